//! JSON: `{"capacity"?, "semantics"?, "buffers": [{"id", "start", "end", "size", "name"?, "category"?,
//! "alignment"?, "offset"?, "hint"?, "gaps"?}]}`, where `gaps` is a list of
//! `{"start", "end", "window"?: {"lower", "upper"}}` with times in the file's semantics. Numbers may also be strings holding an integer, so that JavaScript can
//! pass values beyond 2^53; `size` and `capacity` may be sizes like `"1MiB"`. Every error points at
//! the value (or the buffer object) it is about.

mod members;

use serde_json::value::RawValue;

use self::members::{Kind, Locator, Members};
use super::reading::{self, Row, Rows, WrittenLifetime};
use super::{Document, Format, Offsets, ReadOptions};
use crate::model::{Buffer, Category, Details, Gap, InputError, InputErrors, Problem, Semantics, Window};

/// One element of a buffer's `gaps`, as written (times in the file's semantics).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct GapObject {
    start: u64,
    end: u64,
    #[serde(default)]
    window: Option<Window>,
}
use crate::size::parse_size;

/// The members a buffer object may have; `start`/`lower` and `end`/`upper` are aliases.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Field {
    Id,
    Start,
    End,
    Size,
    Alignment,
    Offset,
    Hint,
    Name,
    Category,
    Gaps,
}

const FIELD_COUNT: usize = 10;

const ACCEPTED_FIELDS: &str =
    "id, start (or lower), end (or upper), size, alignment, offset, hint, name, category, gaps";

impl Field {
    fn from_key(key: &str) -> Option<Field> {
        Some(match key {
            "id" => Field::Id,
            "start" | "lower" => Field::Start,
            "end" | "upper" => Field::End,
            "size" => Field::Size,
            "alignment" => Field::Alignment,
            "offset" => Field::Offset,
            "hint" => Field::Hint,
            "name" => Field::Name,
            "category" => Field::Category,
            "gaps" => Field::Gaps,
            _ => return None,
        })
    }
}

/// How an integer may be written besides a JSON number: always as a string holding an integer,
/// and for sizes also with a unit (`"64KiB"`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Spelling {
    Integer,
    Size,
}

/// A `u64` from a JSON number or string; `None` for `null`.
fn integer_value(raw: &RawValue, spelling: Spelling) -> Result<Option<u64>, String> {
    match Kind::of(raw) {
        Kind::Null => Ok(None),
        Kind::Number => reading::parse_integer(raw.get()).map(Some),
        Kind::Text => {
            let text: String = serde_json::from_str(raw.get()).map_err(|e| e.to_string())?;
            match spelling {
                Spelling::Integer => reading::parse_integer(&text).map(Some),
                Spelling::Size => parse_size(&text).map(Some),
            }
        }
        other => Err(format!("expected a non-negative integer, found {}", other.described())),
    }
}

/// Reads the JSON format; see the module documentation. Syntax errors stop at the first (the rest
/// cannot be trusted); every error in the values is reported.
pub(super) fn read(text: &str, options: &ReadOptions) -> Result<Document, InputErrors> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text); // a byte-order mark is not JSON
    read_located(&Locator::new(text), options)
}

/// [`read`] with the locator made by the caller, so that tests can see how much work it did.
fn read_located(locator: &Locator, options: &ReadOptions) -> Result<Document, InputErrors> {
    let text = locator.text();
    if text.trim().is_empty() {
        let what = if text.is_empty() { "empty input" } else { "blank input" };
        return Err(InputErrors::single(InputError::at_line(
            1,
            format!("{what}: expected a JSON object such as {{\"buffers\": []}}"),
        )));
    }
    let top: Members = serde_json::from_str(text).map_err(|e| InputErrors::single(locator.serde_error(&e)))?;
    let mut errors = Vec::new();
    let (mut capacity_raw, mut semantics_raw, mut buffers_raw) = (None, None, None);
    for (key, value) in &top.0 {
        let slot = match key.as_str() {
            "capacity" => &mut capacity_raw,
            "semantics" => &mut semantics_raw,
            "buffers" => &mut buffers_raw,
            _ => {
                errors.push(locator.at_key(
                    value.get(),
                    format!("unknown field '{key}'; the top level accepts capacity, semantics and buffers"),
                ));
                continue;
            }
        };
        if slot.is_some() {
            errors.push(locator.at_key(value.get(), format!("duplicate field '{key}'")));
        } else {
            *slot = Some(*value);
        }
    }

    let semantics = match semantics_raw {
        None => options.semantics,
        Some(raw) => match file_semantics(raw, options.semantics) {
            Ok(semantics) => semantics,
            Err(message) => {
                errors.push(locator.at(raw.get(), message));
                options.semantics
            }
        },
    };
    let capacity = match capacity_raw.map(|raw| (raw, integer_value(raw, Spelling::Size))) {
        None | Some((_, Ok(None))) => None,
        // 0 too: a capacity only an empty instance fits, as `--capacity 0` asks (see `Problem::new`).
        Some((_, Ok(Some(capacity)))) => Some(capacity),
        Some((raw, Err(message))) => {
            errors.push(locator.at(raw.get(), format!("capacity: {message}")));
            None
        }
    };

    let mut rows = Rows::new(semantics, options.offsets);
    match buffers_raw {
        None => errors.push(locator.at(text.trim_start(), "missing field 'buffers'")),
        Some(raw) if Kind::of(raw) != Kind::Array => errors
            .push(locator.at(raw.get(), format!("buffers: expected an array, found {}", Kind::of(raw).described()))),
        Some(raw) => match serde_json::from_str::<Vec<&RawValue>>(raw.get()) {
            Err(error) => errors.push(locator.at(raw.get(), format!("buffers: {error}"))),
            Ok(elements) => {
                for (index, element) in elements.into_iter().enumerate() {
                    let reader = BufferReader { index, raw: element, locator, errors: Vec::new() };
                    match reader.read(semantics, options.offsets) {
                        Ok(row) => rows.push(row),
                        Err(buffer_errors) => errors.extend(buffer_errors),
                    }
                }
            }
        },
    }
    errors.append(&mut rows.errors);
    rows.errors = errors;
    let (problem, plan) = reading::assemble(rows, capacity, semantics)?;
    Ok(Document { problem, plan, format: Format::Json, csv_layout: None, notes: Vec::new() })
}

/// The file's `semantics`, which must agree with one that was asked for; the default
/// (half-open) request defers to the file.
fn file_semantics(raw: &RawValue, requested: Semantics) -> Result<Semantics, String> {
    let named = match Kind::of(raw) {
        Kind::Text => serde_json::from_str::<String>(raw.get()).map_err(|e| e.to_string())?,
        other => return Err(format!("semantics: expected a string, found {}", other.described())),
    };
    let semantics = Semantics::parse(&named)
        .ok_or_else(|| format!("semantics: '{named}' is not one of half-open, inclusive, exclusive"))?;
    if requested != Semantics::default() && requested != semantics {
        return Err(format!(
            "the file's semantics '{}' conflicts with the requested '{}'",
            semantics.name(),
            requested.name()
        ));
    }
    Ok(semantics)
}

/// Reads one element of `buffers`, recording every problem with the position of its value.
struct BufferReader<'t, 'l> {
    index: usize,
    raw: &'t RawValue,
    locator: &'l Locator<'t>,
    errors: Vec<InputError>,
}

impl<'t> BufferReader<'t, '_> {
    /// An error at `part` (a value inside this buffer, or the whole buffer object).
    fn fail(&mut self, part: &str, message: impl std::fmt::Display) {
        let error = self.locator.at(part, format!("buffers[{}]: {message}", self.index));
        self.errors.push(error);
    }

    /// An error about the key of the member whose value is `value`.
    fn fail_key(&mut self, value: &str, message: impl std::fmt::Display) {
        let error = self.locator.at_key(value, format!("buffers[{}]: {message}", self.index));
        self.errors.push(error);
    }

    fn fail_here(&mut self, message: impl std::fmt::Display) {
        let whole = self.raw.get();
        self.fail(whole, message);
    }

    /// The member values by field, each with the key it was written under.
    fn members(&mut self) -> Option<[Option<(String, &'t RawValue)>; FIELD_COUNT]> {
        let kind = Kind::of(self.raw);
        if kind != Kind::Object {
            self.fail_here(format!("expected an object, found {}", kind.described()));
            return None;
        }
        let members: Members<'t> = match serde_json::from_str(self.raw.get()) {
            Ok(members) => members,
            Err(error) => {
                self.fail_here(error);
                return None;
            }
        };
        let mut fields: [Option<(String, &'t RawValue)>; FIELD_COUNT] = Default::default();
        for (key, value) in members.0 {
            let Some(field) = Field::from_key(&key) else {
                self.fail_key(value.get(), format!("unknown field '{key}'; a buffer accepts {ACCEPTED_FIELDS}"));
                continue;
            };
            match &fields[field as usize] {
                Some((first, _)) if *first == key => self.fail_key(value.get(), format!("duplicate field '{key}'")),
                Some((first, _)) => {
                    let message = format!("'{first}' and '{key}' are the same field; keep one");
                    self.fail_key(value.get(), message);
                }
                None => fields[field as usize] = Some((key, value)),
            }
        }
        Some(fields)
    }

    /// An integer field; `None` (with an error unless `optional`) when missing, null or bad.
    fn integer(
        &mut self,
        member: &Option<(String, &RawValue)>,
        name: &str,
        spelling: Spelling,
        optional: bool,
    ) -> Option<u64> {
        let Some((key, raw)) = member else {
            if !optional {
                self.fail_here(format!("missing field '{name}'"));
            }
            return None;
        };
        match integer_value(raw, spelling) {
            Ok(Some(value)) => Some(value),
            Ok(None) => {
                if !optional {
                    self.fail(raw.get(), format!("{key}: null; expected a non-negative integer"));
                }
                None
            }
            Err(message) => {
                self.fail(raw.get(), format!("{key}: {message}"));
                None
            }
        }
    }

    fn id(&mut self, member: &Option<(String, &RawValue)>) -> Option<String> {
        let Some((_, raw)) = member else {
            self.fail_here("missing field 'id'");
            return None;
        };
        let id = match Kind::of(raw) {
            Kind::Text => serde_json::from_str::<String>(raw.get()).map_err(|e| e.to_string()),
            Kind::Number => Ok(raw.get().to_string()),
            other => Err(format!("expected a string or a number, found {}", other.described())),
        };
        match id {
            Ok(id) if id.is_empty() => self.fail(raw.get(), "id: empty; every buffer needs an id"),
            Ok(id) => return Some(id),
            Err(message) => self.fail(raw.get(), format!("id: {message}")),
        }
        None
    }

    /// The optional `name`: a string, or null; an empty string is no name, as in CSV.
    fn name(&mut self, member: &Option<(String, &RawValue)>) -> Option<String> {
        let (_, raw) = member.as_ref()?;
        match Kind::of(raw) {
            Kind::Null => None,
            Kind::Text => match serde_json::from_str::<String>(raw.get()) {
                Ok(name) => Some(name).filter(|name| !name.is_empty()),
                Err(error) => {
                    self.fail(raw.get(), format!("name: {error}"));
                    None
                }
            },
            other => {
                self.fail(raw.get(), format!("name: expected a string, found {}", other.described()));
                None
            }
        }
    }

    /// The optional `category`: one of the names of [`Category`], or null.
    fn category(&mut self, member: &Option<(String, &RawValue)>) -> Option<Category> {
        let (_, raw) = member.as_ref()?;
        match Kind::of(raw) {
            Kind::Null => None,
            Kind::Text => {
                let text = serde_json::from_str::<String>(raw.get()).unwrap_or_default();
                let category = Category::parse(&text);
                if category.is_none() {
                    self.fail(
                        raw.get(),
                        format!("category: unknown category '{text}'; expected one of {}", Category::names()),
                    );
                }
                category
            }
            other => {
                self.fail(raw.get(), format!("category: expected a string, found {}", other.described()));
                None
            }
        }
    }

    /// The optional `gaps`: a list of `{"start", "end", "window"?: {"lower", "upper"}}`, times
    /// converted like the lifetime's. Empty when absent, null or wrong (wrong is recorded).
    fn gaps(&mut self, member: &Option<(String, &'t RawValue)>, semantics: Semantics) -> Vec<Gap> {
        let Some((_, raw)) = member else { return Vec::new() };
        if Kind::of(raw) == Kind::Null {
            return Vec::new();
        }
        let parsed: Result<Vec<GapObject>, _> = serde_json::from_str(raw.get());
        let objects = match parsed {
            Ok(objects) => objects,
            Err(error) => {
                self.fail(
                    raw.get(),
                    format!("gaps: {error}; expected a list of {{\"start\", \"end\", \"window\"?: {{\"lower\", \"upper\"}}}}"),
                );
                return Vec::new();
            }
        };
        let mut gaps = Vec::with_capacity(objects.len());
        for (k, object) in objects.into_iter().enumerate() {
            match semantics.to_half_open(object.start, object.end) {
                Ok((start, end)) => gaps.push(Gap { start, end, window: object.window }),
                Err(message) => self.fail(raw.get(), format!("gaps[{k}]: {message}")),
            }
        }
        gaps
    }

    fn read(mut self, semantics: Semantics, offsets: Offsets) -> Result<Row, Vec<InputError>> {
        let Some(fields) = self.members() else { return Err(self.errors) };
        let [id, start, end, size, alignment, offset, hint, name, category, gaps] = &fields;
        let gaps = self.gaps(gaps, semantics);
        let id = self.id(id);
        let name = self.name(name);
        let category = self.category(category);
        let start_value = self.integer(start, "start", Spelling::Integer, false);
        let end_value = self.integer(end, "end", Spelling::Integer, false);
        let size = self.integer(size, "size", Spelling::Size, false);
        let alignment = self.integer(alignment, "alignment", Spelling::Integer, true).unwrap_or(1);
        let hint = self.integer(hint, "hint", Spelling::Integer, true);
        let offset_value = self.integer(offset, "offset", Spelling::Integer, true);
        let offset_missing = offset.as_ref().is_none_or(|(_, raw)| Kind::of(raw) == Kind::Null);
        if offsets == Offsets::Plan && offset_missing {
            self.fail_here("missing field 'offset' (checking a plan needs an offset on every buffer)");
        }
        let mut lifetime = None;
        if let (Some((start_name, _)), Some((end_name, end_raw)), Some(start), Some(end)) =
            (start, end, start_value, end_value)
        {
            let written = WrittenLifetime { start_name, start, end_name, end };
            match reading::to_half_open(semantics, &written) {
                Ok(converted) => lifetime = Some(converted),
                Err(message) => self.fail(end_raw.get(), message),
            }
        }
        let (Some(id), Some((start, end)), Some(written_start), Some(written_end), Some(size)) =
            (id, lifetime, start_value, end_value, size)
        else {
            return Err(self.errors);
        };
        if !self.errors.is_empty() {
            return Err(self.errors);
        }
        let (pinned, planned) = match offsets {
            Offsets::Pinned => (offset_value, None),
            Offsets::Plan => (None, offset_value),
        };
        let line = self.locator.line(self.raw.get()).and_then(|line| u32::try_from(line).ok());
        let buffer = Buffer::new(id, start, end, size)
            .with_alignment(alignment)
            .with_line(line)
            .with_details(Details { pinned, hint, name, category, gaps, ..Details::default() });
        Ok(Row { buffer, written: (written_start, written_end, size), planned })
    }
}

/// Writes the problem with one buffer per line, times in the problem's semantics, and `offset`
/// from `offsets` (or the pinned offset for buffers beyond it), so that reading the output back
/// gives the same problem. Numbers are exact JSON integers.
pub(super) fn write(problem: &Problem, offsets: &[u64]) -> String {
    let mut out = Vec::new();
    // (Writing into memory cannot fail.)
    let _ = write_to(problem, offsets, &mut out);
    super::utf8(out)
}

/// [`write`], buffer by buffer into `out`, so that a plan of millions of buffers is never held as
/// one text.
pub(super) fn write_to(problem: &Problem, offsets: &[u64], out: &mut dyn std::io::Write) -> std::io::Result<()> {
    out.write_all(b"{\n")?;
    if let Some(capacity) = problem.capacity() {
        writeln!(out, "  \"capacity\": {capacity},")?;
    }
    writeln!(out, "  \"semantics\": \"{}\",", problem.semantics().name())?;
    out.write_all(b"  \"buffers\": [")?;
    let semantics = problem.semantics();
    // Each buffer's line is made in `line` and written whole: one call a buffer, where one a field
    // (through `dyn Write` and the formatting machinery) took most of the writing of millions.
    let mut line: Vec<u8> = Vec::with_capacity(160);
    let mut digits = itoa::Buffer::new();
    for (index, buffer) in problem.buffers().iter().enumerate() {
        line.clear();
        let (start, end) = semantics.from_half_open(buffer.start, buffer.end);
        line.extend_from_slice(if index == 0 { b"\n    " } else { b",\n    " });
        line.extend_from_slice(b"{\"id\": ");
        quote_into(&mut line, &buffer.id);
        number(&mut line, &mut digits, b", \"start\": ", start);
        number(&mut line, &mut digits, b", \"end\": ", end);
        number(&mut line, &mut digits, b", \"size\": ", buffer.size);
        if let Some(name) = &buffer.name {
            line.extend_from_slice(b", \"name\": ");
            quote_into(&mut line, name);
        }
        if let Some(category) = buffer.category {
            line.extend_from_slice(b", \"category\": \"");
            line.extend_from_slice(category.name().as_bytes());
            line.push(b'"');
        }
        if buffer.alignment() != 1 {
            number(&mut line, &mut digits, b", \"alignment\": ", buffer.alignment());
        }
        if let Some(offset) = offsets.get(index).copied().or(buffer.pinned) {
            number(&mut line, &mut digits, b", \"offset\": ", offset);
        }
        if let Some(hint) = buffer.hint {
            number(&mut line, &mut digits, b", \"hint\": ", hint);
        }
        if buffer.has_gaps() {
            line.extend_from_slice(b", \"gaps\": [");
            for (i, gap) in buffer.gaps.iter().enumerate() {
                if i > 0 {
                    line.extend_from_slice(b", ");
                }
                let (start, end) = semantics.from_half_open(gap.start, gap.end);
                number(&mut line, &mut digits, b"{\"start\": ", start);
                number(&mut line, &mut digits, b", \"end\": ", end);
                if let Some(w) = gap.window {
                    number(&mut line, &mut digits, b", \"window\": {\"lower\": ", w.lower);
                    number(&mut line, &mut digits, b", \"upper\": ", w.upper);
                    line.push(b'}');
                }
                line.push(b'}');
            }
            line.push(b']');
        }
        line.push(b'}');
        out.write_all(&line)?;
    }
    out.write_all(if problem.is_empty() { b"]\n}\n" } else { b"\n  ]\n}\n" })
}

/// Appends `prefix` and then `value` in decimal to `line`.
fn number(line: &mut Vec<u8>, digits: &mut itoa::Buffer, prefix: &[u8], value: u64) {
    line.extend_from_slice(prefix);
    line.extend_from_slice(digits.format(value).as_bytes());
}

/// Appends `text` to `line` as a JSON string literal.
fn quote_into(line: &mut Vec<u8>, text: &str) {
    line.push(b'"');
    // (Most ids need no escape: their bytes go in as they are.)
    if !text.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20) {
        line.extend_from_slice(text.as_bytes());
    } else {
        let mut escaped = [0u8; 4];
        for c in text.chars() {
            match c {
                '"' => line.extend_from_slice(b"\\\""),
                '\\' => line.extend_from_slice(b"\\\\"),
                '\n' => line.extend_from_slice(b"\\n"),
                '\r' => line.extend_from_slice(b"\\r"),
                '\t' => line.extend_from_slice(b"\\t"),
                c if u32::from(c) < 0x20 => line.extend_from_slice(format!("\\u{:04x}", u32::from(c)).as_bytes()),
                c => line.extend_from_slice(c.encode_utf8(&mut escaped).as_bytes()),
            }
        }
    }
    line.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_text(text: &str) -> Result<Document, InputErrors> {
        read(text, &ReadOptions::default())
    }

    #[test]
    fn reads_numbers_strings_sizes_and_aliases() {
        let text = r#"{"capacity": "1KiB", "buffers": [
            {"id": 7, "lower": "0", "upper": 18446744073709551615, "size": "64B", "alignment": 4, "hint": 2},
            {"id": "b", "start": 1, "end": 3, "size": 8, "offset": null}
        ]}"#;
        let document = read_text(text).unwrap();
        let buffers = document.problem.buffers();
        assert_eq!(document.problem.capacity(), Some(1024));
        assert_eq!((buffers[0].id.as_str(), buffers[0].end, buffers[0].size), ("7", u64::MAX, 64));
        assert_eq!((buffers[0].alignment(), buffers[0].hint, buffers[0].line()), (4, Some(2), Some(2)));
        assert_eq!((buffers[1].pinned, buffers[1].line()), (None, Some(3)));
        assert_eq!(document.format, Format::Json);
        assert!(document.csv_layout.is_none());
    }

    #[test]
    fn file_semantics_applies_unless_another_was_asked_for() {
        let text = r#"{"semantics": "inclusive", "buffers": [{"id": "a", "start": 2, "end": 2, "size": 1}]}"#;
        let document = read_text(text).unwrap();
        assert_eq!(document.problem.semantics(), Semantics::Inclusive);
        assert_eq!(document.problem.buffers()[0].end, 3);
        let options = ReadOptions { semantics: Semantics::Exclusive, ..ReadOptions::default() };
        let errors = read(text, &options).unwrap_err().errors;
        assert_eq!((errors[0].line, errors[0].column), (Some(1), Some(15)));
        assert!(errors[0].message.contains("conflicts"), "{errors:?}");
    }

    #[test]
    fn errors_point_at_values() {
        let text = "{\"buffers\": [\n  {\"id\": \"a\", \"start\": 0, \"end\": 4, \"size\": -1, \"colour\": 1},\n  {\"id\": true, \"start\": 9, \"end\": 4, \"size\": 1}\n]}";
        let errors = read_text(text).unwrap_err().errors;
        let found: Vec<(Option<usize>, Option<usize>, &str)> =
            errors.iter().map(|e| (e.line, e.column, e.message.as_str())).collect();
        assert_eq!(found.len(), 4, "{found:?}");
        assert_eq!((found[0].0, found[0].1), (Some(2), Some(45)));
        assert!(found[0].2.contains("buffers[0]: size: '-1' is negative"), "{found:?}");
        assert!(found[1].2.contains("unknown field 'colour'"), "{found:?}");
        assert!(found[2].2.contains("buffers[1]: id: expected a string or a number"), "{found:?}");
        assert!(found[3].2.contains("buffers[1]: end (4) must be greater than start (9)"), "{found:?}");
    }

    /// 100,000 buffers on one line took 150 times as long to read as pretty-printed,
    /// because each buffer's position was counted from the start of its line. Counted, not timed:
    /// the locator's work on one line stays within a small multiple of the text's length (counting
    /// from the line's start would scan about 500 times the length here), errors included.
    #[test]
    fn one_line_json_is_read_in_linear_work() {
        let buffers = 2_000;
        let good: Vec<String> = (0..buffers)
            .map(|i| format!(r#"{{"id": "é{i}", "start": {i}, "end": {}, "size": "1KiB"}}"#, i + 2))
            .collect();
        let bad: Vec<String> = (0..buffers)
            .map(|i| format!(r#"{{"id": "é{i}", "start": {i}, "end": {i}, "size": "1KiB", "colour": 1}}"#))
            .collect();
        for (elements, errors_per_buffer) in [(good, 0), (bad, 2)] {
            let one_line = format!(r#"{{"buffers": [{}]}}"#, elements.join(", "));
            let pretty = format!("{{\"buffers\": [\n  {}\n]}}", elements.join(",\n  "));
            let mut scanned = Vec::new();
            for text in [&one_line, &pretty] {
                let locator = Locator::new(text);
                let result = read_located(&locator, &ReadOptions::default());
                assert_eq!(result.map_err(|e| e.errors.len()).err().unwrap_or(0), errors_per_buffer * buffers);
                scanned.push(locator.scanned() as f64 / text.len() as f64);
            }
            assert!(scanned[0] < 4.0, "{} bytes scanned per byte of one-line input", scanned[0]);
            assert!(scanned[0] < 2.0 * scanned[1], "one line {} vs pretty {} bytes per byte", scanned[0], scanned[1]);
        }
    }

    #[test]
    fn error_columns_on_one_long_line_count_characters() {
        let elements: Vec<String> = (0..500)
            .map(|i| format!(r#"{{"id": "日本{i}", "start": 1, "end": 2, "size": {}}}"#, 1 - 2 * (i % 2)))
            .collect();
        let text = format!(r#"{{"buffers": [{}]}}"#, elements.join(", "));
        let errors = read_text(&text).unwrap_err().errors;
        assert_eq!(errors.len(), 250);
        let last = &errors[249];
        let expected_column = text.rfind("-1").map(|at| text[..at].chars().count() + 1);
        assert_eq!((last.line, last.column), (Some(1), expected_column), "{last:?}");
        assert!(last.message.contains("buffers[499]: size: '-1' is negative"), "{last:?}");
    }

    #[test]
    fn empty_and_blank_input_say_so() {
        for (text, what) in [("", "empty input"), (" \n\t", "blank input")] {
            let errors = read_text(text).unwrap_err().errors;
            assert_eq!(errors.len(), 1);
            assert_eq!(errors[0].line, Some(1));
            assert!(errors[0].message.starts_with(what), "{errors:?}");
        }
    }

    #[test]
    fn writes_one_buffer_per_line_with_optional_fields() {
        let mut buffer = Buffer::new("say \"hi\"", 0, 2, 8).with_alignment(4);
        buffer.hint = Some(1);
        let mut problem = Problem::new(vec![buffer, Buffer::new("b", 1, 3, 4)], Some(64)).unwrap();
        problem.set_semantics(Semantics::Inclusive);
        let out = write(&problem, &[0, 8]);
        assert_eq!(
            out,
            "{\n  \"capacity\": 64,\n  \"semantics\": \"inclusive\",\n  \"buffers\": [\n    \
             {\"id\": \"say \\\"hi\\\"\", \"start\": 0, \"end\": 1, \"size\": 8, \"alignment\": 4, \"offset\": 0, \"hint\": 1},\n    \
             {\"id\": \"b\", \"start\": 1, \"end\": 2, \"size\": 4, \"offset\": 8}\n  ]\n}\n"
        );
        let empty = Problem::new(Vec::new(), None).unwrap();
        assert_eq!(write(&empty, &[]), "{\n  \"semantics\": \"half-open\",\n  \"buffers\": []\n}\n");
    }

    #[test]
    fn writes_names_categories_and_gaps_with_windows() {
        let mut buffer =
            Buffer::new("a", 0, 10, 8).named("t\u{1}é").with_gaps(vec![Gap::new(2, 4), Gap::windowed(5, 7, 0, 4)]);
        buffer.category = Some(Category::Weight);
        let problem = Problem::new(vec![buffer], None).unwrap();
        assert_eq!(
            write(&problem, &[8]),
            "{\n  \"semantics\": \"half-open\",\n  \"buffers\": [\n    \
             {\"id\": \"a\", \"start\": 0, \"end\": 10, \"size\": 8, \"name\": \"t\\u0001é\", \
             \"category\": \"weight\", \"offset\": 8, \"gaps\": [{\"start\": 2, \"end\": 4}, \
             {\"start\": 5, \"end\": 7, \"window\": {\"lower\": 0, \"upper\": 4}}]}\n  ]\n}\n"
        );
    }

    proptest::proptest! {
        /// Any text, quoted, reads back as itself.
        #[test]
        fn quoted_text_reads_back(text in proptest::prelude::any::<String>()) {
            let mut line = Vec::new();
            quote_into(&mut line, &text);
            let back: String = serde_json::from_slice(&line).unwrap();
            proptest::prop_assert_eq!(back, text);
        }
    }
}
