//! Reading JSON objects member by member with each value left as raw text borrowed from the
//! input, so that every error can point at the value's line and column, and numbers are judged
//! from their digits (no rounding through `f64`).

use std::cell::Cell;
use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

use crate::model::InputError;

/// An object's members in input order, duplicates included (serde's maps would keep only one).
#[derive(Debug)]
pub(super) struct Members<'t>(pub Vec<(String, &'t RawValue)>);

impl<'de> Deserialize<'de> for Members<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MembersVisitor;

        impl<'de> Visitor<'de> for MembersVisitor {
            type Value = Members<'de>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut members = Vec::new();
                while let Some(member) = map.next_entry::<String, &'de RawValue>()? {
                    members.push(member);
                }
                Ok(Members(members))
            }
        }

        deserializer.deserialize_map(MembersVisitor)
    }
}

/// What a raw value is, from its first character (serde_json has already checked its syntax).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Null,
    Number,
    Text,
    Object,
    Array,
    Boolean,
}

impl Kind {
    pub(super) fn of(raw: &RawValue) -> Kind {
        match raw.get().as_bytes().first() {
            Some(b'n') => Kind::Null,
            Some(b'"') => Kind::Text,
            Some(b'{') => Kind::Object,
            Some(b'[') => Kind::Array,
            Some(b't' | b'f') => Kind::Boolean,
            _ => Kind::Number,
        }
    }

    pub(super) fn described(self) -> &'static str {
        match self {
            Kind::Null => "null",
            Kind::Number => "a number",
            Kind::Text => "a string",
            Kind::Object => "an object",
            Kind::Array => "an array",
            Kind::Boolean => "a boolean",
        }
    }
}

/// Turns byte positions in the input into 1-based lines and character columns in time that does
/// not grow with the input: a line is a binary search over the line starts, and a column counts
/// characters from the nearest checkpoint (at most [`CHECKPOINT_SPACING`] bytes away), not from the
/// line's start, so that a whole file on one line is no slower to locate in than a pretty one.
pub(super) struct Locator<'t> {
    text: &'t str,
    /// The byte offset where each line starts.
    line_starts: Vec<usize>,
    /// `chars_before[i]`: how many characters `text[..i * CHECKPOINT_SPACING]` holds.
    chars_before: Vec<usize>,
    /// Bytes looked at so far (building the index, columns, keys): the work the locator does,
    /// which the tests keep proportional to the input's length.
    scanned: Cell<usize>,
}

/// Bytes between two character-count checkpoints: a column costs at most twice this many.
const CHECKPOINT_SPACING: usize = 64;

/// UTF-8 continuation bytes (`10xxxxxx`) are the only bytes that do not start a character.
fn starts_char(byte: u8) -> bool {
    byte & 0xC0 != 0x80
}

impl<'t> Locator<'t> {
    pub(super) fn new(text: &'t str) -> Self {
        let bytes = text.as_bytes();
        let mut line_starts = vec![0];
        let mut chars_before = Vec::with_capacity(bytes.len() / CHECKPOINT_SPACING + 1);
        let mut chars = 0;
        for (chunk_index, chunk) in bytes.chunks(CHECKPOINT_SPACING).enumerate() {
            chars_before.push(chars);
            let chunk_start = chunk_index * CHECKPOINT_SPACING;
            for (i, &byte) in chunk.iter().enumerate() {
                chars += usize::from(starts_char(byte));
                if byte == b'\n' {
                    line_starts.push(chunk_start + i + 1);
                }
            }
        }
        if bytes.len().is_multiple_of(CHECKPOINT_SPACING) {
            chars_before.push(chars); // the end of the text is a place too, and starts no chunk
        }
        Locator { text, line_starts, chars_before, scanned: Cell::new(bytes.len()) }
    }

    /// The whole input.
    pub(super) fn text(&self) -> &'t str {
        self.text
    }

    /// The bytes looked at since [`Locator::new`] started, including its own pass.
    #[cfg(test)]
    pub(super) fn scanned(&self) -> usize {
        self.scanned.get()
    }

    fn count_scanned(&self, bytes: usize) {
        self.scanned.set(self.scanned.get() + bytes);
    }

    /// The byte offset of `part` in the input, if it is a slice of it.
    fn offset(&self, part: &str) -> Option<usize> {
        let offset = (part.as_ptr() as usize).checked_sub(self.text.as_ptr() as usize)?;
        (offset.checked_add(part.len())? <= self.text.len()).then_some(offset)
    }

    /// How many characters `text[..offset]` holds (`offset` is at most the text's length).
    fn chars_before(&self, offset: usize) -> usize {
        let checkpoint = offset / CHECKPOINT_SPACING;
        let from = checkpoint * CHECKPOINT_SPACING;
        self.count_scanned(offset - from);
        self.chars_before[checkpoint] + self.text.as_bytes()[from..offset].iter().filter(|&&b| starts_char(b)).count()
    }

    /// The 1-based line holding byte `offset`.
    fn line_at(&self, offset: usize) -> usize {
        self.line_starts.partition_point(|&start| start <= offset) // >= 1: line 1 starts at 0
    }

    /// The line where `part`, a slice of the input, starts. `None` if it is not one.
    pub(super) fn line(&self, part: &str) -> Option<usize> {
        self.offset(part).map(|offset| self.line_at(offset))
    }

    /// The line and column where `part`, a slice of the input, starts. `None` if it is not one.
    pub(super) fn position(&self, part: &str) -> Option<(usize, usize)> {
        let offset = self.offset(part)?;
        let line = self.line_at(offset);
        let line_start = self.line_starts[line - 1];
        let column = self.chars_before(offset) - self.chars_before(line_start) + 1;
        Some((line, column))
    }

    /// An error located at the start of `part` (unlocated if `part` is not a slice of the input).
    pub(super) fn at(&self, part: &str, message: impl Into<String>) -> InputError {
        match self.position(part) {
            Some((line, column)) => InputError::at(line, column, message),
            None => InputError::new(message),
        }
    }

    /// The input from the opening quote of the key whose member value starts at `value`, so that
    /// errors about a key (unknown, duplicate) point at the key. The input is valid JSON here, and
    /// inside a JSON string every `"` is escaped, so the opening quote is the first `"` found
    /// backwards that follows an even number of backslashes.
    pub(super) fn key_of(&self, value: &str) -> Option<&'t str> {
        let value_offset = self.offset(value)?;
        let before = self.text.get(..value_offset)?.trim_end().strip_suffix(':')?.trim_end();
        self.count_scanned(value_offset - before.len()); // the blanks and the colon
        let key_body = before.strip_suffix('"')?.as_bytes();
        let mut index = key_body.len();
        while index > 0 {
            index -= 1;
            if key_body[index] == b'"' {
                let backslashes = key_body[..index].iter().rev().take_while(|&&b| b == b'\\').count();
                self.count_scanned(backslashes);
                if backslashes % 2 == 0 {
                    self.count_scanned(key_body.len() - index);
                    return self.text.get(index..);
                }
            }
        }
        self.count_scanned(key_body.len());
        None
    }

    /// An error at the key of the member whose value is `value` (at the value if that fails).
    pub(super) fn at_key(&self, value: &str, message: impl Into<String>) -> InputError {
        self.at(self.key_of(value).unwrap_or(value), message)
    }

    /// A serde_json error on the whole input, with its byte column turned into a character column
    /// and the position taken out of the message (it is in the fields).
    pub(super) fn serde_error(&self, error: &serde_json::Error) -> InputError {
        let (line, byte_column) = (error.line(), error.column());
        let full = error.to_string();
        let message = full.strip_suffix(&format!(" at line {line} column {byte_column}")).unwrap_or(&full);
        let Some(&line_start) = line.checked_sub(1).and_then(|index| self.line_starts.get(index)) else {
            return InputError::new(message);
        };
        let line_end = self.line_starts.get(line).map_or(self.text.len(), |next| next - 1);
        let end = line_start + byte_column.min(line_end - line_start);
        // Counting characters needs no boundary: a partial character counts as the one it starts.
        let column = (self.chars_before(end) - self.chars_before(line_start)).max(1);
        InputError::at(line, column, message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_keep_order_duplicates_and_positions() {
        let text = "{\"b\": 1,\n  \"a\": [2],\n \"b\": \"é\"}";
        let members: Members = serde_json::from_str(text).unwrap();
        let keys: Vec<&str> = members.0.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["b", "a", "b"]);
        let locator = Locator::new(text);
        assert_eq!(locator.position(members.0[0].1.get()), Some((1, 7)));
        assert_eq!(locator.position(members.0[1].1.get()), Some((2, 8)));
        assert_eq!(Kind::of(members.0[1].1), Kind::Array);
        assert_eq!(locator.position("elsewhere"), None);
        let key = locator.key_of(members.0[2].1.get()).map(|k| locator.position(k));
        assert_eq!(key, Some(Some((3, 2))));
        let escaped = r#"{"a\\\"b": 1}"#; // the key a\"b holds an escaped quote
        let members: Members = serde_json::from_str(escaped).unwrap();
        let locator = Locator::new(escaped);
        assert_eq!(locator.key_of(members.0[0].1.get()), Some(&escaped[1..]));
    }

    /// Lines and columns as a reader counts them, from the start of the text.
    fn naive_position(text: &str, offset: usize) -> (usize, usize) {
        let before = &text[..offset];
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        (before.matches('\n').count() + 1, before[line_start..].chars().count() + 1)
    }

    proptest::proptest! {
        /// The checkpoints give the same columns as counting from the line's start, across
        /// multi-byte characters, line breaks and checkpoint boundaries.
        #[test]
        fn positions_match_counting_from_the_start(text in "([a-z ]{0,70}|é|日本|🦀|\n){0,40}") {
            let locator = Locator::new(&text);
            for (offset, _) in text.char_indices().chain(std::iter::once((text.len(), ' '))) {
                let expected = naive_position(&text, offset);
                proptest::prop_assert_eq!(locator.position(&text[offset..]), Some(expected));
                proptest::prop_assert_eq!(locator.line(&text[offset..]), Some(expected.0));
            }
        }
    }

    /// A column was counted from the start of its line, so one-line JSON took time
    /// quadratic in its length. The work is counted, not timed: every look-up on a line of 240 kB
    /// costs what it costs on a short line.
    #[test]
    fn look_ups_cost_the_same_on_one_long_line() {
        let members = "\"é\": 1, ".repeat(20_000);
        let text = format!("{{{members}\"x\": 2}}");
        let parsed: Members = serde_json::from_str(&text).unwrap();
        let locator = Locator::new(&text);
        let built = locator.scanned();
        assert_eq!(built, text.len());
        for (_, value) in &parsed.0 {
            locator.position(value.get());
            locator.key_of(value.get());
        }
        let per_look_up = (locator.scanned() - built) as f64 / parsed.0.len() as f64;
        // Counting from the line's start would average 120,000 bytes a look-up here.
        assert!(per_look_up < 1_000.0, "{per_look_up} bytes per look-up");
        let last = parsed.0.last().unwrap().1.get();
        assert_eq!(locator.position(last), Some(naive_position(&text, text.len() - 2)));
    }

    #[test]
    fn serde_errors_get_character_columns() {
        let text = "{\"é\": 1,\n \"x\": tru }";
        let error = serde_json::from_str::<Members>(text).unwrap_err();
        let located = Locator::new(text).serde_error(&error);
        assert_eq!(located.line, Some(2));
        assert!(!located.message.contains("at line"), "{}", located.message);
        assert!(located.column.is_some_and(|c| (7..=10).contains(&c)), "{located:?}");
    }
}
