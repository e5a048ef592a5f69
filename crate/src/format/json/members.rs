//! Reading JSON objects member by member with each value left as raw text borrowed from the
//! input, so that every error can point at the value's line and column, and numbers are judged
//! from their digits (no rounding through `f64`).

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
    pub fn of(raw: &RawValue) -> Kind {
        match raw.get().as_bytes().first() {
            Some(b'n') => Kind::Null,
            Some(b'"') => Kind::Text,
            Some(b'{') => Kind::Object,
            Some(b'[') => Kind::Array,
            Some(b't' | b'f') => Kind::Boolean,
            _ => Kind::Number,
        }
    }

    pub fn described(self) -> &'static str {
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

/// Turns byte positions in the input into 1-based lines and character columns.
pub(super) struct Locator<'t> {
    text: &'t str,
    /// The byte offset where each line starts.
    line_starts: Vec<usize>,
}

impl<'t> Locator<'t> {
    pub fn new(text: &'t str) -> Self {
        let line_starts = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
        Locator { text, line_starts }
    }

    /// The byte offset of `part` in the input, if it is a slice of it.
    fn offset(&self, part: &str) -> Option<usize> {
        let offset = (part.as_ptr() as usize).checked_sub(self.text.as_ptr() as usize)?;
        (offset + part.len() <= self.text.len()).then_some(offset)
    }

    /// The line and column where `part`, a slice of the input, starts. `None` if it is not one.
    pub fn position(&self, part: &str) -> Option<(usize, usize)> {
        let offset = self.offset(part)?;
        let line = self.line_starts.partition_point(|&start| start <= offset); // >= 1: line 1 starts at 0
        let line_start = self.line_starts[line - 1];
        let column = self.text.get(line_start..offset)?.chars().count() + 1;
        Some((line, column))
    }

    /// An error located at the start of `part` (unlocated if `part` is not a slice of the input).
    pub fn at(&self, part: &str, message: impl Into<String>) -> InputError {
        match self.position(part) {
            Some((line, column)) => InputError::at(line, column, message),
            None => InputError::new(message),
        }
    }

    /// The input from the opening quote of the key whose member value starts at `value`, so that
    /// errors about a key (unknown, duplicate) point at the key. The input is valid JSON here, and
    /// inside a JSON string every `"` is escaped, so the opening quote is the first `"` found
    /// backwards that follows an even number of backslashes.
    pub fn key_of(&self, value: &str) -> Option<&'t str> {
        let before = self.text.get(..self.offset(value)?)?.trim_end().strip_suffix(':')?.trim_end();
        let key_body = before.strip_suffix('"')?.as_bytes();
        let mut index = key_body.len();
        while index > 0 {
            index -= 1;
            if key_body[index] == b'"' {
                let backslashes = key_body[..index].iter().rev().take_while(|&&b| b == b'\\').count();
                if backslashes % 2 == 0 {
                    return self.text.get(index..);
                }
            }
        }
        None
    }

    /// An error at the key of the member whose value is `value` (at the value if that fails).
    pub fn at_key(&self, value: &str, message: impl Into<String>) -> InputError {
        self.at(self.key_of(value).unwrap_or(value), message)
    }

    /// A serde_json error on the whole input, with its byte column turned into a character column
    /// and the position taken out of the message (it is in the fields).
    pub fn serde_error(&self, error: &serde_json::Error) -> InputError {
        let (line, byte_column) = (error.line(), error.column());
        let full = error.to_string();
        let message = full.strip_suffix(&format!(" at line {line} column {byte_column}")).unwrap_or(&full);
        let Some(&line_start) = line.checked_sub(1).and_then(|index| self.line_starts.get(index)) else {
            return InputError::new(message);
        };
        let line_text = &self.text[line_start..];
        let line_text = line_text.split('\n').next().unwrap_or(line_text);
        let mut end = byte_column.min(line_text.len());
        while !line_text.is_char_boundary(end) {
            end -= 1; // stops at 0 at the latest, which is a boundary
        }
        let column = line_text[..end].chars().count().max(1);
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
