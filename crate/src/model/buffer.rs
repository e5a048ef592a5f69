use serde::{Deserialize, Serialize};

use super::Category;

/// Bytes `[lower, upper)` of a buffer, relative to its offset: what it occupies during a windowed
/// [`Gap`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Window {
    pub lower: u64,
    pub upper: u64,
}

/// A stretch `[start, end)` inside a buffer's lifetime where it is not (wholly) alive: without a
/// window it occupies nothing then, with one only the window's bytes (MiniMalloc's gaps, written
/// `start-end` or `start-end@lower:upper`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Gap {
    pub start: u64,
    pub end: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<Window>,
}

impl Gap {
    /// Not alive at all in `[start, end)`.
    pub fn new(start: u64, end: u64) -> Self {
        Gap { start, end, window: None }
    }

    /// Alive in `[start, end)` only in bytes `[lower, upper)` of the buffer.
    pub fn windowed(start: u64, end: u64, lower: u64, upper: u64) -> Self {
        Gap { start, end, window: Some(Window { lower, upper }) }
    }
}

/// One live part of a buffer: during `[start, end)` it occupies bytes `[lower, upper)` above its
/// offset. A buffer without gaps is one piece, `[start, end)` × `[0, size)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    pub start: u64,
    pub end: u64,
    pub lower: u64,
    pub upper: u64,
}

impl Piece {
    pub fn height(&self) -> u64 {
        self.upper - self.lower
    }

    /// Two pieces, of buffers at offsets `offset` and `other_offset`, share a time and a byte.
    pub fn meets(&self, offset: u64, other: &Piece, other_offset: u64) -> bool {
        let (low, high) = (offset as u128 + self.lower as u128, offset as u128 + self.upper as u128);
        let (other_low, other_high) =
            (other_offset as u128 + other.lower as u128, other_offset as u128 + other.upper as u128);
        self.start < other.end && other.start < self.end && low < other_high && other_low < high
    }
}

/// A buffer's id as written in the input: inline up to 24 bytes (ids are mostly short numbers
/// or names), so that millions of buffers need no heap block each. It reads as a `&str`.
pub type BufferId = compact_str::CompactString;

/// One buffer to place. It is alive during the half-open lifetime `[start, end)`, except in its
/// gaps: two buffers conflict iff their live pieces ([`Buffer::pieces`]) meet in time and in bytes.
/// Without gaps that is `a.start < b.end && b.start < a.end` (MiniMalloc's convention).
///
/// What most buffers lack (a pinned offset, a hint, a name, a category, gaps) lives in [`Details`], behind one
/// pointer that stays empty for them: on millions of buffers the fields took most of the
/// process's memory. They read and write as fields of the buffer (`buffer.pinned`, `buffer.gaps`)
/// through [`Deref`](std::ops::Deref); writing one gives the buffer its details.
///
/// The alignment and the input line are read through methods ([`Buffer::alignment`],
/// [`Buffer::line`]): they share one word, so that a buffer fits in 64 bytes (on millions of
/// buffers, a ninth of the process's memory).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(from = "BufferRecord", into = "BufferRecord")]
pub struct Buffer {
    /// The id as written in the input; the index in [`crate::Problem::buffers`] is the internal id.
    pub id: BufferId,
    pub start: u64,
    pub end: u64,
    pub size: u64,
    /// The alignment when it is below [`WIDE_ALIGNMENT`] (every alignment in practice), else
    /// [`WIDE_ALIGNMENT`], and the alignment is in the details (`Details::wide_alignment`).
    alignment: u32,
    /// The 1-based line of the input this buffer came from, for error messages; 0 when unknown (a
    /// buffer built in code, or a line past u32, in a text of more than 4 GiB).
    line: u32,
    /// The pin, hint, name, category and gaps, read through the buffer ([`Buffer::details`]). None
    /// while every one has its default; a write through `DerefMut` may leave a boxed default,
    /// which compares equal to none.
    pub details: Option<Box<Details>>,
}

/// The inline alignment that says "in the details": alignments from here up are rare enough (a
/// buffer aligned to 4 GiB) to cost a box.
const WIDE_ALIGNMENT: u32 = u32::MAX;

const _: () = assert!(std::mem::size_of::<Buffer>() <= 64, "a Buffer outgrew 64 bytes");

impl PartialEq for Buffer {
    fn eq(&self, other: &Buffer) -> bool {
        (&self.id, self.start, self.end, self.size, self.alignment(), self.line)
            == (&other.id, other.start, other.end, other.size, other.alignment(), other.line)
            && self.details() == other.details()
    }
}

impl Eq for Buffer {}

/// The attributes of a buffer that most buffers lack, read through the buffer (see [`Buffer`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Details {
    /// A fixed offset the planner must keep (MiniMalloc's `offset` column on input). (Here, not
    /// in the buffer: few buffers have one, and on millions of buffers its 16 bytes were a sixth
    /// of a buffer.)
    pub pinned: Option<u64>,
    /// MiniMalloc's `hint` column, carried through to the output untouched.
    pub hint: Option<u64>,
    /// The name the buffer's producer gave it (a tensor's name in a model), carried through to the
    /// output untouched. Never empty: an empty name is no name.
    pub name: Option<String>,
    /// What the buffer holds (input, output, weight, ...) when its producer knows, carried
    /// through to the output untouched like the name.
    pub category: Option<Category>,
    /// Stretches of the lifetime where the buffer is not alive, or only in a window of its bytes;
    /// sorted, disjoint, inside `[start, end)` ([`crate::Problem::new`] checks it).
    pub gaps: Vec<Gap>,
    /// The alignment of a buffer whose alignment does not fit its inline word (see
    /// [`Buffer::alignment`]); 0 for every other buffer. Not public: only
    /// [`Buffer::set_alignment`] writes it, and the buffer keeps it across
    /// [`Buffer::with_details`]. (Readers in the crate build details with `..Details::default()`.)
    pub(crate) wide_alignment: u64,
}

/// The details of every buffer that has none of its own.
static NO_DETAILS: Details =
    Details { pinned: None, hint: None, name: None, category: None, gaps: Vec::new(), wide_alignment: 0 };

impl std::ops::Deref for Buffer {
    type Target = Details;

    fn deref(&self) -> &Details {
        self.details()
    }
}

impl std::ops::DerefMut for Buffer {
    fn deref_mut(&mut self) -> &mut Details {
        self.details.get_or_insert_with(Box::default)
    }
}

/// A buffer with every field in line: its serialised form.
#[derive(Serialize, Deserialize)]
struct BufferRecord {
    id: String,
    start: u64,
    end: u64,
    size: u64,
    alignment: u64,
    pinned: Option<u64>,
    hint: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    category: Option<Category>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    gaps: Vec<Gap>,
    line: Option<usize>,
}

impl From<BufferRecord> for Buffer {
    fn from(record: BufferRecord) -> Self {
        let BufferRecord { id, start, end, size, alignment, pinned, hint, name, category, gaps, line } = record;
        let line = line.and_then(|line| u32::try_from(line).ok());
        Buffer::new(id, start, end, size)
            .with_line(line)
            .with_details(Details { pinned, hint, name, category, gaps, ..Details::default() })
            .with_alignment(alignment)
    }
}

impl From<Buffer> for BufferRecord {
    fn from(buffer: Buffer) -> Self {
        let alignment = buffer.alignment();
        let line = buffer.line().map(|line| line as usize);
        let Details { pinned, hint, name, category, gaps, wide_alignment: _ } =
            buffer.details.map(|details| *details).unwrap_or_default();
        BufferRecord {
            id: buffer.id.into(),
            start: buffer.start,
            end: buffer.end,
            size: buffer.size,
            alignment,
            pinned,
            hint,
            name,
            category,
            gaps,
            line,
        }
    }
}

impl Buffer {
    pub fn new(id: impl Into<BufferId>, start: u64, end: u64, size: u64) -> Self {
        Buffer { id: id.into(), start, end, size, alignment: 1, line: 0, details: None }
    }

    /// Every offset must be a multiple of this (1 = no constraint; 0 is invalid, and
    /// [`crate::Problem::new`] says so).
    #[inline]
    pub fn alignment(&self) -> u64 {
        if self.alignment != WIDE_ALIGNMENT { self.alignment as u64 } else { self.details().wide_alignment }
    }

    /// Sets the alignment (see [`Buffer::alignment`]).
    pub fn set_alignment(&mut self, alignment: u64) {
        match u32::try_from(alignment) {
            Ok(inline) if inline != WIDE_ALIGNMENT => {
                self.alignment = inline;
                if self.details.is_some() {
                    self.wide_alignment = 0;
                }
            }
            _ => {
                self.alignment = WIDE_ALIGNMENT;
                self.wide_alignment = alignment;
            }
        }
    }

    /// The 1-based line of the input this buffer came from, for error messages: `None` for a
    /// buffer built in code, or one past line u32::MAX.
    #[inline]
    pub fn line(&self) -> Option<u32> {
        (self.line != 0).then_some(self.line)
    }

    /// Says which line of the input the buffer came from (`None`, or `Some(0)`, for unknown).
    pub fn set_line(&mut self, line: Option<u32>) {
        self.line = line.unwrap_or(0);
    }

    /// The buffer with its input line set (see [`Buffer::set_line`]).
    pub fn with_line(mut self, line: Option<u32>) -> Self {
        self.set_line(line);
        self
    }

    /// The buffer's pin, hint, name, category and gaps (the defaults when it has none).
    pub fn details(&self) -> &Details {
        self.details.as_deref().unwrap_or(&NO_DETAILS)
    }

    /// Gives the buffer these details; the defaults take no memory. (The buffer keeps its
    /// alignment.)
    pub fn with_details(mut self, mut details: Details) -> Self {
        details.wide_alignment = self.details().wide_alignment;
        self.details = (details != Details::default()).then(|| Box::new(details));
        self
    }

    /// Gives the buffer gaps (sorted and disjoint, inside its lifetime: [`crate::Problem::new`]
    /// checks them).
    pub fn with_gaps(mut self, gaps: Vec<Gap>) -> Self {
        if !gaps.is_empty() || self.details.is_some() {
            self.gaps = gaps;
        }
        self
    }

    pub fn has_gaps(&self) -> bool {
        !self.gaps.is_empty()
    }

    /// The buffer without its gaps: alive over its whole lifetime with its whole size. A plan of
    /// hulls is a plan of the buffers (each hull holds every live piece), only looser.
    pub fn hull(&self) -> Buffer {
        let mut hull = self.clone();
        if hull.has_gaps() {
            hull.gaps = Vec::new();
        }
        hull
    }

    /// The live pieces in time order: the stretches between gaps with the whole size, and the
    /// windowed gaps with their windows. Empty stretches and a zero-size buffer give no piece.
    pub fn pieces(&self) -> Vec<Piece> {
        let mut pieces = Vec::with_capacity(2 * self.gaps.len() + 1);
        let mut push = |start: u64, end: u64, lower: u64, upper: u64| {
            if start < end && lower < upper {
                pieces.push(Piece { start, end, lower, upper });
            }
        };
        let mut time = self.start;
        for gap in &self.gaps {
            push(time, gap.start, 0, self.size);
            if let Some(window) = gap.window {
                push(gap.start, gap.end, window.lower, window.upper);
            }
            time = gap.end;
        }
        push(time, self.end, 0, self.size);
        pieces
    }

    pub fn with_alignment(mut self, alignment: u64) -> Self {
        self.set_alignment(alignment);
        self
    }

    /// Names the buffer; an empty name leaves it unnamed.
    pub fn named(mut self, name: impl Into<String>) -> Self {
        let name = name.into();
        if !name.is_empty() {
            self.name = Some(name);
        } else if self.name.is_some() {
            self.name = None;
        }
        self
    }

    /// Says what the buffer holds.
    pub fn with_category(mut self, category: Category) -> Self {
        self.category = Some(category);
        self
    }

    pub fn pinned_at(self, offset: u64) -> Self {
        self.with_pin(Some(offset))
    }

    /// Pins the buffer at an offset, or (`None`) frees it; a free buffer without other details
    /// stays without.
    pub fn with_pin(mut self, pinned: Option<u64>) -> Self {
        if pinned.is_some() || self.details.is_some() {
            self.pinned = pinned;
        }
        self
    }

    pub fn lifetime(&self) -> u64 {
        self.end - self.start
    }

    /// True when some live piece of each is alive at one time (gaps honoured, windows counted as
    /// alive): the two must then be kept apart somewhere.
    pub fn alive_together(&self, other: &Buffer) -> bool {
        if !self.overlaps_in_time(other) {
            return false;
        }
        if self.gaps.is_empty() && other.gaps.is_empty() {
            return true;
        }
        let theirs = other.pieces();
        self.pieces().iter().any(|p| theirs.iter().any(|q| p.start < q.end && q.start < p.end))
    }

    /// True when both lifetimes meet (half-open), gaps ignored: their hulls meet in time.
    pub fn overlaps_in_time(&self, other: &Buffer) -> bool {
        self.start < other.end && other.start < self.end
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_skip_gaps_and_keep_windows() {
        let buffer = Buffer::new("a", 0, 10, 8).with_gaps(vec![Gap::new(0, 2), Gap::windowed(4, 6, 2, 4)]);
        let pieces: Vec<_> = buffer.pieces().iter().map(|p| (p.start, p.end, p.lower, p.upper)).collect();
        assert_eq!(pieces, vec![(2, 4, 0, 8), (4, 6, 2, 4), (6, 10, 0, 8)]);
        assert_eq!(Buffer::new("z", 0, 3, 0).pieces(), Vec::new());
        assert_eq!(buffer.hull().pieces().len(), 1);
    }

    #[test]
    fn details_read_and_write_as_fields_and_take_no_memory_unset() {
        let plain = Buffer::new("a", 0, 4, 8);
        assert!(plain.details.is_none() && plain.gaps.is_empty() && plain.name.is_none() && plain.hint.is_none());
        // A write through the buffer gives it details; writing the defaults back compares equal
        // to a buffer that never had any.
        let mut written = plain.clone();
        written.hint = Some(3);
        assert_eq!((written.hint, written.details().hint), (Some(3), Some(3)));
        assert_ne!(written, plain);
        written.hint = None;
        assert!(written.details.is_some());
        assert_eq!(written, plain);
        assert!(Buffer::new("a", 0, 4, 8).named("").with_gaps(Vec::new()).details.is_none());
        // An ordinary buffer stays small: the rare attributes (a pin among them) cost one pointer,
        // the line and the alignment four bytes each.
        assert!(std::mem::size_of::<Buffer>() <= 64, "{}", std::mem::size_of::<Buffer>());
        assert!(plain.pinned.is_none() && plain.clone().pinned_at(8).details.is_some());
    }

    #[test]
    fn alignments_of_any_size_and_lines_read_back() {
        for alignment in [0, 1, 6, 1 << 31, u32::MAX as u64 - 1, u32::MAX as u64, 1 << 40, 3 << 40, u64::MAX] {
            let buffer = Buffer::new("a", 0, 4, 8).with_alignment(alignment).named("n");
            assert_eq!(buffer.alignment(), alignment);
            // New details leave the alignment alone, however it is kept.
            assert_eq!(buffer.clone().with_details(Details::default()).alignment(), alignment);
            let text = serde_json::to_string(&buffer).unwrap();
            assert_eq!(serde_json::from_str::<Buffer>(&text).unwrap(), buffer, "{text}");
            // Changing it either way reads back, and back again compares equal.
            let changed = buffer.clone().with_alignment(4);
            assert_eq!(changed.alignment(), 4);
            assert_ne!(changed, buffer);
            assert_eq!(changed.with_alignment(alignment), buffer);
        }
        // Only an alignment past the inline word costs a box.
        assert!(Buffer::new("a", 0, 4, 8).with_alignment(1 << 31).details.is_none());
        let wide = Buffer::new("a", 0, 4, 8).with_alignment(1 << 40);
        assert!(wide.details.is_some());
        assert_eq!(wide.with_alignment(1), Buffer::new("a", 0, 4, 8));
        let lines: Vec<_> = [Some(7), Some(u32::MAX), None, Some(0)]
            .map(|line| Buffer::new("a", 0, 4, 8).with_line(line).line())
            .into();
        assert_eq!(lines, [Some(7), Some(u32::MAX), None, None]);
    }

    #[test]
    fn a_buffer_serialises_with_every_field_in_line() {
        let buffer = Buffer::new("b", 1, 9, 4).named("t").with_gaps(vec![Gap::new(2, 3)]).pinned_at(0);
        let text = serde_json::to_string(&buffer).unwrap();
        assert!(text.contains(r#""name":"t""#) && text.contains(r#""gaps":[{"start":2,"end":3}]"#), "{text}");
        assert_eq!(serde_json::from_str::<Buffer>(&text).unwrap(), buffer);
    }
}
