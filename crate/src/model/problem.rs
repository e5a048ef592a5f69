use std::collections::HashMap;

use super::memo::Memo;
use super::{Buffer, InputError, InputErrors, Semantics};

/// A validated instance: buffers plus an optional capacity. Construction checks every buffer, so
/// solvers may rely on: start < end, alignment >= 1, unique ids, pinned offsets aligned,
/// no offset + size beyond u64, gaps sorted, disjoint, non-empty and inside the lifetime with
/// windows inside the size, and a max load that fits in u64. A buffer may have size 0 (MiniMalloc's
/// files have them): it occupies nothing, and [`crate::Solver::solve`] places it apart, so that
/// solvers only see sizes above 0.
///
/// Any capacity is a question with an answer, 0 included: only an instance whose buffers all have
/// size 0 (and are pinned at 0, if at all) fits in 0 bytes, and a solver proves a non-empty one infeasible there (by its
/// max load) like any capacity below the max load. Input files, `--capacity` and the page all
/// accept it, so that they give one answer.
#[derive(Clone, Debug)]
pub struct Problem {
    buffers: Vec<Buffer>,
    capacity: Option<u64>,
    /// What the times meant in the input; the buffers themselves are always `[start, end)`.
    semantics: Semantics,
    max_load: u64,
    /// [`Problem::lower_bound`], computed once.
    lower_bound: u64,
    /// What solvers derived from the buffers, for the other solvers of a run ([`Problem::memo`]).
    memo: Memo,
}

impl Problem {
    /// Checks the buffers and returns every violation, each with the buffer's line when known.
    ///
    /// ```
    /// use memplan::{Buffer, Gap, Problem};
    ///
    /// // `a` lives in [0, 4), `b` in [2, 6) but away in [3, 5), `c` is pinned at offset 16.
    /// let buffers = vec![
    ///     Buffer::new("a", 0, 4, 8).with_alignment(8),
    ///     Buffer::new("b", 2, 6, 4).with_gaps(vec![Gap::new(3, 5)]),
    ///     Buffer::new("c", 0, 6, 2).pinned_at(16),
    /// ];
    /// let problem = Problem::new(buffers, Some(64)).expect("valid buffers");
    /// assert_eq!(problem.len(), 3);
    /// assert_eq!(problem.max_load(), 14); // at time 2: a, b and c
    ///
    /// // An empty lifetime is refused, with the buffer named.
    /// let errors = Problem::new(vec![Buffer::new("d", 5, 5, 1)], None).unwrap_err();
    /// assert!(errors.to_string().contains('d'), "{errors}");
    /// ```
    pub fn new(buffers: Vec<Buffer>, capacity: Option<u64>) -> Result<Problem, InputErrors> {
        let mut errors = Vec::new();
        let located = |buffer: &Buffer, message: String| match buffer.line() {
            Some(line) => InputError::at_line(line as usize, message),
            None => InputError::new(message),
        };
        let first_with_id = first_with_same_id(&buffers);
        for (i, buffer) in buffers.iter().enumerate() {
            if buffer.end <= buffer.start {
                errors.push(located(
                    buffer,
                    format!("buffer {}: end ({}) must be greater than start ({})", buffer.id, buffer.end, buffer.start),
                ));
            }
            if buffer.alignment() == 0 {
                errors.push(located(buffer, format!("buffer {}: alignment must be at least 1", buffer.id)));
            }
            if let Some(offset) = buffer.pinned {
                if buffer.alignment() > 0 && offset % buffer.alignment() != 0 {
                    errors.push(located(
                        buffer,
                        format!(
                            "buffer {}: pinned offset {offset} is not a multiple of its alignment {}",
                            buffer.id,
                            buffer.alignment()
                        ),
                    ));
                }
                if offset.checked_add(buffer.size).is_none() {
                    errors.push(located(
                        buffer,
                        format!("buffer {}: pinned offset {offset} + size {} overflows u64", buffer.id, buffer.size),
                    ));
                }
            }
            check_gaps(buffer, &mut |message| errors.push(located(buffer, format!("buffer {}: {message}", buffer.id))));
            if let Some(&first) = first_with_id.get(&i) {
                let previous = buffers[first].line().map(|l| format!(" (first seen on line {l})")).unwrap_or_default();
                errors.push(located(buffer, format!("duplicate buffer id {}{previous}", buffer.id)));
            }
        }
        if !errors.is_empty() {
            return Err(InputErrors::new(errors));
        }
        let max_load = super::load::max_load_wide(&buffers);
        let max_load = u64::try_from(max_load).map_err(|_| InputErrors::single(max_load_error(&buffers, max_load)))?;
        let pinned_top = buffers.iter().filter_map(|b| b.pinned.map(|offset| offset + b.size)).max().unwrap_or(0);
        // Every buffer counts in the makespan, one that is never alive (gaps over its whole
        // lifetime) too, where the load does not see it.
        let largest = buffers.iter().map(|b| b.size).max().unwrap_or(0);
        let lower_bound = max_load.max(pinned_top).max(largest).max(alignment_bound(&buffers));
        let lower_bound = super::stacking::stacking_bound(&buffers, lower_bound);
        Ok(Problem { buffers, capacity, semantics: Semantics::HalfOpen, max_load, lower_bound, memo: Memo::default() })
    }

    pub fn buffers(&self) -> &[Buffer] {
        &self.buffers
    }

    pub fn len(&self) -> usize {
        self.buffers.len()
    }

    pub fn is_empty(&self) -> bool {
        self.buffers.is_empty()
    }

    pub fn capacity(&self) -> Option<u64> {
        self.capacity
    }

    pub fn set_capacity(&mut self, capacity: Option<u64>) {
        self.capacity = capacity;
    }

    pub fn semantics(&self) -> Semantics {
        self.semantics
    }

    /// Records what the input's times meant, so that writers can give them back the same way.
    pub fn set_semantics(&mut self, semantics: Semantics) {
        self.semantics = semantics;
    }

    /// The most bytes alive at once (L): no plan can have a smaller makespan.
    pub fn max_load(&self) -> u64 {
        self.max_load
    }

    /// A lower bound on the makespan of every valid plan that the instance gives without search:
    /// L, the largest buffer, the top of each pinned buffer, the alignment bound (`alignment_bound`) and the stacking
    /// bound (`super::stacking`: the least top of the buffers alive at one time, each at a
    /// multiple of its alignment).
    pub fn lower_bound(&self) -> u64 {
        self.lower_bound
    }

    /// Facts that solvers derived from the buffers and keep for the other solvers given this
    /// problem (or a clone of it): see `Memo`.
    pub fn memo(&self) -> &Memo {
        &self.memo
    }

    pub fn has_pinned(&self) -> bool {
        self.buffers.iter().any(|b| b.pinned.is_some())
    }

    pub fn has_alignment(&self) -> bool {
        self.buffers.iter().any(|b| b.alignment() > 1)
    }

    pub fn has_gaps(&self) -> bool {
        self.buffers.iter().any(Buffer::has_gaps)
    }

    /// The problem with every buffer replaced by its hull ([`Buffer::hull`]): alive over its whole
    /// lifetime with its whole size. Every plan of the hull problem is a plan of this one (with a
    /// makespan no lower than this one's bound), so a solver that cannot use gaps plans the hulls.
    pub fn hull(&self) -> Problem {
        if !self.has_gaps() {
            return self.clone();
        }
        let buffers: Vec<Buffer> = self.buffers.iter().map(Buffer::hull).collect();
        // The hulls' load can only pass u64 where some offset + size does, which `new` refused.
        let mut hull = Problem::new(buffers, self.capacity).expect("the hulls of a valid problem are a valid problem");
        hull.semantics = self.semantics;
        hull
    }
}

/// For each buffer whose id an earlier buffer has, the index of the first buffer with that id.
/// Open-addressing tables of (fingerprint, index) pairs, 8 bytes a slot at half load, one per
/// group of hashes, where a map keyed by the ids took about 66 bytes a buffer on millions of them.
fn first_with_same_id(buffers: &[Buffer]) -> HashMap<usize, usize> {
    let mut duplicates = HashMap::new();
    let Ok(count) = u32::try_from(buffers.len()) else {
        // Past 4·10^9 buffers the table's indices do not fit: a map does the same work.
        let mut first_of: HashMap<&str, usize> = HashMap::new();
        for (i, buffer) in buffers.iter().enumerate() {
            if let Some(&first) = first_of.get(buffer.id.as_str()) {
                duplicates.insert(i, first);
            } else {
                first_of.insert(&buffer.id, i);
            }
        }
        return duplicates;
    };
    // The ids' hashes grouped by their top bits (a stable counting sort, so each group lists its
    // buffers in input order), then each group through its own table, small enough to stay in
    // cache: one table over millions of ids took a cache and TLB miss per buffer, most of
    // building a problem.
    let groups = (count as usize / GROUP).next_power_of_two();
    let group_of = |hash: u64| hash.checked_shr(64 - groups.trailing_zeros()).unwrap_or(0) as usize;
    let mut bounds = vec![0u32; groups + 1];
    for buffer in buffers {
        bounds[group_of(id_hash(buffer.id.as_bytes())) + 1] += 1;
    }
    for g in 0..groups {
        bounds[g + 1] += bounds[g];
    }
    // (The low half of each hash: a group's table takes its slot from the low bits, and its
    // fingerprint is the rest.)
    let mut grouped: Vec<(u32, u32)> = vec![(0, 0); buffers.len()];
    let mut next = bounds.clone();
    for (i, buffer) in buffers.iter().enumerate() {
        let hash = id_hash(buffer.id.as_bytes());
        let at = &mut next[group_of(hash)];
        grouped[*at as usize] = (hash as u32, i as u32);
        *at += 1;
    }
    let mut table: Vec<(u32, u32)> = Vec::new();
    for group in bounds.windows(2) {
        let members = &grouped[group[0] as usize..group[1] as usize];
        let slots = (members.len() * 2).next_power_of_two().max(16);
        table.clear();
        table.resize(slots, (0, EMPTY));
        for &(hash, i) in members {
            probe(&mut table, buffers, &mut duplicates, i as usize, hash, slots - 1);
        }
    }
    duplicates
}

/// About how many buffers [`first_with_same_id`] puts in one table (16 KiB of hashes and
/// indices, 32 KiB of table).
const GROUP: usize = 2048;

/// A free slot of [`first_with_same_id`]'s table.
const EMPTY: u32 = u32::MAX;

/// Enters buffer `i` (whose id's hash has `hash` as its low half) in the table, or records the
/// first buffer with its id in `duplicates`.
fn probe(
    table: &mut [(u32, u32)],
    buffers: &[Buffer],
    duplicates: &mut HashMap<usize, usize>,
    i: usize,
    hash: u32,
    mask: usize,
) {
    let buffer = &buffers[i];
    let fingerprint = hash;
    let mut slot = hash as usize & mask;
    loop {
        let (print, index) = table[slot];
        if index == EMPTY {
            table[slot] = (fingerprint, i as u32);
            return;
        }
        if print == fingerprint && buffers[index as usize].id == buffer.id {
            duplicates.insert(i, index as usize);
            return;
        }
        slot = (slot + 1) & mask;
    }
}

/// A fast non-cryptographic hash of an id (a multiply-rotate over 8 bytes at a time): ids come
/// from the user's file, but a collision only costs a comparison.
fn id_hash(bytes: &[u8]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut hash = bytes.len() as u64;
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let word = u64::from_le_bytes(chunk.try_into().unwrap_or_default());
        hash = (hash.rotate_left(5) ^ word).wrapping_mul(K);
    }
    let mut last = [0u8; 8];
    last[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    hash = (hash.rotate_left(5) ^ u64::from_le_bytes(last)).wrapping_mul(K);
    // SplitMix64's finaliser: every bit of the hash moves the low ones the slot is taken from.
    hash = (hash ^ (hash >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    hash = (hash ^ (hash >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    hash ^ (hash >> 31)
}

/// Reports what is wrong with a buffer's gaps: each must be non-empty, inside the lifetime, after
/// the one before it, and its window (if any) non-empty and inside the size.
fn check_gaps(buffer: &Buffer, report: &mut dyn FnMut(String)) {
    let mut previous_end = None;
    for gap in &buffer.gaps {
        let written = match gap.window {
            Some(w) => format!("gap {}-{}@{}:{}", gap.start, gap.end, w.lower, w.upper),
            None => format!("gap {}-{}", gap.start, gap.end),
        };
        if gap.end <= gap.start {
            report(format!("{written}: its end must be greater than its start"));
        } else if gap.start < buffer.start || gap.end > buffer.end {
            report(format!("{written} is not inside the lifetime [{}, {})", buffer.start, buffer.end));
        }
        if let Some(previous_end) = previous_end
            && gap.start < previous_end
        {
            report(format!(
                "{written} starts before the previous gap ends ({previous_end}); gaps must be sorted and disjoint"
            ));
        }
        if let Some(window) = gap.window {
            if window.upper <= window.lower {
                report(format!("{written}: the window's upper byte must be greater than its lower one"));
            } else if window.upper > buffer.size {
                report(format!("{written}: the window passes the buffer's size {}", buffer.size));
            }
        }
        previous_end = Some(previous_end.map_or(gap.end, |end: u64| end.max(gap.end)));
    }
}

/// Says when the buffers alive at once exceed 64 bits, at the line of the first of them in the
/// input, since no one buffer is to blame.
fn max_load_error(buffers: &[Buffer], max_load: u128) -> InputError {
    let time = super::load::peak_time(buffers).unwrap_or(0); // there is one: the load is positive
    let alive: Vec<&Buffer> =
        buffers.iter().filter(|b| b.pieces().iter().any(|p| p.start <= time && time < p.end)).collect();
    let message = format!(
        "the {} buffers alive at time {time} total {max_load} bytes, which does not fit in 64 bits",
        alive.len()
    );
    match alive.first().and_then(|b| b.line()) {
        Some(line) => InputError::at_line(line as usize, format!("{message} (the first of them is on this line)")),
        None => InputError::new(message),
    }
}

/// How many distinct alignments [`alignment_bound`] looks at (the largest ones): it costs a sweep
/// each, and real models use a handful (powers of two).
const ALIGNMENT_CLASSES: usize = 16;

/// A bound on the makespan that alignment forces. Take an alignment `a` and the buffers alive at
/// one time whose alignment is a multiple of `a`: their offsets are multiples of `a` and their
/// ranges disjoint, so each after the lowest starts at least `a * ceil(size / a)` above the one
/// before it. The highest of `k` such buffers therefore starts at `a * (sum of ceil(size / a) - 1)`
/// or above and ends at least one byte higher. With `a` = 1 this is L; with three 1-byte buffers
/// aligned to 2^30 it is 2^31 + 1, where L is 3. The maximum over every time and alignment class
/// (saturating at u64::MAX, which no plan can pass anyway). A buffer counts only where it is alive
/// with its whole size (not in its gaps), which only weakens the bound.
pub(super) fn alignment_bound(buffers: &[Buffer]) -> u64 {
    let mut alignments: Vec<u64> = buffers.iter().map(|b| b.alignment()).filter(|&a| a > 1).collect();
    alignments.sort_unstable_by(|a, b| b.cmp(a));
    alignments.dedup();
    alignments.truncate(ALIGNMENT_CLASSES);
    if alignments.is_empty() {
        return 0;
    }
    // (time, is_start, index): ends before starts at one time, as `[start, end)` asks.
    let mut events: Vec<(u64, bool, usize)> = Vec::with_capacity(buffers.len() * 2);
    for (i, b) in buffers.iter().enumerate() {
        if b.alignment() > 1 && b.size > 0 {
            for piece in b.pieces().into_iter().filter(|p| p.height() == b.size) {
                events.push((piece.start, true, i));
                events.push((piece.end, false, i));
            }
        }
    }
    events.sort_unstable();
    let mut best: u128 = 0;
    for &alignment in &alignments {
        let mut slots: u128 = 0; // sum of ceil(size / alignment) over the class alive now
        for &(_, is_start, i) in &events {
            let b = &buffers[i];
            if !b.alignment().is_multiple_of(alignment) {
                continue;
            }
            let need = b.size.div_ceil(alignment) as u128;
            if is_start {
                slots += need;
                best = best.max(alignment as u128 * (slots - 1) + 1);
            } else {
                slots -= need;
            }
        }
    }
    u64::try_from(best).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_every_violation_with_its_line() {
        let mut buffers = vec![
            Buffer::new("a", 0, 4, 8).with_gaps(vec![crate::model::Gap::new(5, 6)]),
            Buffer::new("b", 9, 4, 8),
            Buffer::new("a", 0, 1, 8).with_alignment(0),
            Buffer::new("d", 0, 1, 8).with_alignment(4).pinned_at(6),
        ];
        for (i, b) in buffers.iter_mut().enumerate() {
            b.set_line(Some(i as u32 + 2));
        }
        let errors = Problem::new(buffers, None).unwrap_err().errors;
        let lines: Vec<_> = errors.iter().map(|e| e.line.unwrap()).collect();
        assert_eq!(lines, vec![2, 3, 4, 4, 5], "{errors:?}");
        assert!(errors[1].message.contains("end (4) must be greater than start (9)"));
        assert!(errors[3].message.contains("duplicate buffer id a (first seen on line 2)"));
        assert!(errors[4].message.contains("not a multiple of its alignment 4"));
    }

    #[test]
    fn duplicate_ids_name_the_first_line_among_many() {
        let mut buffers: Vec<Buffer> = (0..5000).map(|i| Buffer::new(format!("b{i}"), 0, 1, 1)).collect();
        buffers.push(Buffer::new("b17", 0, 1, 1));
        buffers.push(Buffer::new("a long id that does not fit in a word", 0, 1, 1));
        buffers.push(Buffer::new("a long id that does not fit in a word", 0, 1, 1));
        for (i, b) in buffers.iter_mut().enumerate() {
            b.set_line(Some(i as u32 + 2));
        }
        let errors = Problem::new(buffers, None).unwrap_err().errors;
        let found: Vec<_> = errors.iter().map(|e| (e.line.unwrap(), e.message.as_str())).collect();
        assert_eq!(
            found,
            vec![
                (5002, "duplicate buffer id b17 (first seen on line 19)"),
                (5004, "duplicate buffer id a long id that does not fit in a word (first seen on line 5003)"),
            ]
        );
        assert_ne!(id_hash(b"b1"), id_hash(b"b2"));
    }

    #[test]
    fn pinned_offset_overflow_is_an_error() {
        let buffers = vec![Buffer::new("a", 0, 4, 16).pinned_at(u64::MAX - 7)];
        let errors = Problem::new(buffers, None).unwrap_err();
        assert!(errors.to_string().contains("overflows u64"), "{errors}");
    }

    #[test]
    fn max_load_beyond_u64_is_an_error() {
        let mut buffers = vec![Buffer::new("a", 5, 9, 1), Buffer::new("b", 0, 4, u64::MAX), Buffer::new("c", 1, 2, 2)];
        buffers[1].set_line(Some(3));
        let errors = Problem::new(buffers, None).unwrap_err().errors;
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].line, Some(3));
        let expected = format!("the 2 buffers alive at time 1 total {} bytes", u128::from(u64::MAX) + 2);
        assert!(errors[0].message.contains(&expected), "{errors:?}");
    }

    #[test]
    fn lower_bound_knows_alignment() {
        let buffers = (0..3).map(|i| Buffer::new(i.to_string(), 0, 10, 1).with_alignment(1 << 30)).collect();
        let problem = Problem::new(buffers, None).unwrap();
        assert_eq!(problem.max_load(), 3);
        assert_eq!(problem.lower_bound(), (1 << 31) + 1);
        // Alignments that are multiples of a smaller one count in its class: 8, 8 and 4 bytes at
        // alignment 4 need slots 0, 8 and 16 at best (the 4-byte buffer last).
        let buffers = vec![
            Buffer::new("a", 0, 2, 5).with_alignment(8),
            Buffer::new("b", 0, 2, 5).with_alignment(4),
            Buffer::new("c", 1, 2, 1).with_alignment(4),
        ];
        let problem = Problem::new(buffers, None).unwrap();
        // Class 4: slots 2 + 2 + 1 = 5, so at least 4 * 4 + 1 = 17. Class 8: one buffer, 1.
        assert_eq!(problem.lower_bound(), 17);
    }

    #[test]
    fn capacity_zero_is_a_question_only_an_empty_instance_fits() {
        let empty = Problem::new(Vec::new(), Some(0)).unwrap();
        assert_eq!((empty.capacity(), empty.lower_bound()), (Some(0), 0));
        let one = Problem::new(vec![Buffer::new("a", 0, 1, 1)], Some(0)).unwrap();
        assert!(one.lower_bound() > one.capacity().unwrap());
    }

    #[test]
    fn gaps_are_checked_with_the_line() {
        use crate::model::Gap;
        let mut buffer = Buffer::new("a", 2, 10, 8).with_gaps(vec![
            Gap::new(1, 3),
            Gap::new(4, 4),
            Gap::windowed(5, 7, 2, 9),
            Gap::windowed(6, 8, 3, 3),
        ]);
        buffer.set_line(Some(7));
        let errors = Problem::new(vec![buffer], None).unwrap_err().errors;
        let messages: Vec<_> = errors.iter().map(|e| (e.line, e.message.as_str())).collect();
        assert_eq!(
            messages,
            vec![
                (Some(7), "buffer a: gap 1-3 is not inside the lifetime [2, 10)"),
                (Some(7), "buffer a: gap 4-4: its end must be greater than its start"),
                (Some(7), "buffer a: gap 5-7@2:9: the window passes the buffer's size 8"),
                (
                    Some(7),
                    "buffer a: gap 6-8@3:3 starts before the previous gap ends (7); gaps must be sorted and disjoint"
                ),
                (Some(7), "buffer a: gap 6-8@3:3: the window's upper byte must be greater than its lower one"),
            ]
        );
    }

    #[test]
    fn max_load_honours_gaps_and_windows() {
        use crate::model::Gap;
        // a: 8 bytes over [0, 10) but gone in [2, 5) and 2 bytes in [5, 8); b: 6 bytes over [2, 8).
        let a = Buffer::new("a", 0, 10, 8).with_gaps(vec![Gap::new(2, 5), Gap::windowed(5, 8, 0, 2)]);
        let b = Buffer::new("b", 2, 8, 6);
        let problem = Problem::new(vec![a, b], None).unwrap();
        assert_eq!(problem.max_load(), 8);
        assert_eq!(problem.hull().max_load(), 14);
        assert!(!problem.hull().has_gaps());
        // Alignment counts only where a buffer is whole: a is not, in [2, 8).
        let a = Buffer::new("a", 0, 10, 2).with_alignment(64).with_gaps(vec![Gap::windowed(2, 8, 0, 1)]);
        let b = Buffer::new("b", 2, 8, 1).with_alignment(64);
        let problem = Problem::new(vec![a, b], None).unwrap();
        assert_eq!((problem.lower_bound(), problem.hull().lower_bound()), (2, 65));
    }

    #[test]
    fn lower_bound_includes_pinned_tops() {
        let buffers = vec![Buffer::new("a", 0, 4, 16), Buffer::new("b", 5, 6, 8).pinned_at(32)];
        let problem = Problem::new(buffers, None).unwrap();
        assert_eq!(problem.max_load(), 16);
        assert_eq!(problem.lower_bound(), 40);
    }
}
