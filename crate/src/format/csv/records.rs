//! Splitting CSV text into records of cells, each cell with the line and column it starts at.
//! Quoted cells (`"a,b"`, `"say ""hi"""`) may hold commas, quotes and line breaks; blank lines and
//! lines whose first non-blank character is `#` are skipped between records.
//!
//! Records come one at a time ([`Records`]) and a plain cell borrows its text from the input, so
//! that reading millions of rows keeps no copy of the file beside the buffers it becomes.

use std::borrow::Cow;

use crate::model::InputError;

/// One cell's text (unquoted, surrounding blanks trimmed unless it was quoted) and where it starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Cell<'t> {
    pub text: Cow<'t, str>,
    /// 1-based line of the cell's first character (a quoted cell may continue on later lines).
    pub line: usize,
    /// 1-based character column of the cell's first non-blank character (of the cell's start when
    /// the cell is blank).
    pub column: usize,
}

/// One non-blank, non-comment line (or several, when a quoted cell spans lines).
#[derive(Clone, Debug)]
pub(super) struct Record<'t> {
    pub line: usize,
    pub cells: Vec<Cell<'t>>,
}

/// Every record of the text, plus an error for each record that could not be split (an unclosed
/// quote, or text after a closing quote); such a record is left out, never guessed at.
#[cfg(test)]
pub(super) fn split(text: &str) -> (Vec<Record<'_>>, Vec<InputError>) {
    let mut records = Records::new(text);
    let (mut all, mut errors) = (Vec::new(), Vec::new());
    let mut cells = Vec::new();
    while let Some(next) = records.next_into(&mut cells) {
        match next {
            Ok(line) => all.push(Record { line, cells: std::mem::take(&mut cells) }),
            Err(error) => errors.push(error),
        }
    }
    (all, errors)
}

/// The records of a text, one at a time, in the order [`split`] lists them.
#[derive(Clone)]
pub(super) struct Records<'t> {
    lines: Lines<'t>,
}

impl<'t> Records<'t> {
    pub(super) fn new(text: &'t str) -> Self {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text); // a byte-order mark is not part of the header
        Records { lines: Lines::new(text) }
    }

    /// Reads the next record's cells into `cells` (cleared first, so that one vector serves every
    /// row) and returns its line; `None` at the end of the text, an error for a record that could
    /// not be split.
    pub(super) fn next_into(&mut self, cells: &mut Vec<Cell<'t>>) -> Option<Result<usize, InputError>> {
        cells.clear();
        loop {
            let line = self.lines.next()?;
            let content = trim(line.text);
            if content.is_empty() || content.starts_with('#') {
                continue;
            }
            let number = line.number;
            return Some(read_record(line, &mut self.lines, cells).map(|()| number));
        }
    }
}

/// The lines of a text: each ends with `\n` (or `\r\n`); a text with carriage returns and no line
/// feed (old Mac files, some exports) ends them with `\r`.
#[derive(Clone)]
struct Lines<'t> {
    rest: &'t str,
    number: usize,
    breaks: u8,
}

impl<'t> Lines<'t> {
    fn new(text: &'t str) -> Self {
        let breaks = if !text.contains('\n') && text.contains('\r') { b'\r' } else { b'\n' };
        Lines { rest: text, number: 0, breaks }
    }
}

impl<'t> Iterator for Lines<'t> {
    type Item = Line<'t>;

    fn next(&mut self) -> Option<Line<'t>> {
        if self.rest.is_empty() {
            return None;
        }
        // (The break is ASCII, so a byte index past it is a character boundary.)
        let length = self.rest.bytes().position(|b| b == self.breaks).map_or(self.rest.len(), |at| at + 1);
        let (line, rest) = self.rest.split_at(length);
        self.rest = rest;
        self.number += 1;
        Some(Line::new(self.number, line))
    }
}

/// One line of the text without its line break, and the break itself, which a quoted cell that
/// spans lines keeps as written (`\r\n` stays `\r\n`, so that any id reads back as it was).
struct Line<'t> {
    number: usize,
    text: &'t str,
    /// `"\n"`, `"\r\n"`, `"\r"` (in a text without line feeds), or `""` on a last line without a
    /// break.
    ending: &'t str,
}

impl<'t> Line<'t> {
    fn new(number: usize, with_ending: &'t str) -> Self {
        let text = match with_ending.strip_suffix('\n') {
            Some(text) => text.strip_suffix('\r').unwrap_or(text),
            None => with_ending.strip_suffix('\r').unwrap_or(with_ending),
        };
        Line { number, text, ending: &with_ending[text.len()..] }
    }

    /// The 1-based character column of byte `at` (a character boundary).
    fn column(&self, at: usize) -> usize {
        let before = &self.text[..at];
        if before.is_ascii() { at + 1 } else { before.chars().count() + 1 }
    }
}

/// Where a record's reading is: the line it is on and the byte of that line to read next.
struct Cursor<'t> {
    line: Line<'t>,
    at: usize,
}

impl<'t> Cursor<'t> {
    fn rest(&self) -> &'t str {
        &self.line.text[self.at..]
    }

    fn skip_blanks(&mut self) {
        let rest = self.rest();
        if rest.as_bytes().first().is_some_and(|&b| !is_blank_byte(b)) {
            return;
        }
        self.at += rest.len() - rest.trim_start().len();
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn next(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.at += c.len_utf8();
        Some(c)
    }

    fn column(&self) -> usize {
        self.line.column(self.at)
    }
}

fn read_record<'t>(
    line: Line<'t>,
    more_lines: &mut impl Iterator<Item = Line<'t>>,
    cells: &mut Vec<Cell<'t>>,
) -> Result<(), InputError> {
    let mut cursor = Cursor { line, at: 0 };
    loop {
        let cell_start = cursor.at;
        cursor.skip_blanks();
        let cell_line = cursor.line.number;
        let (text, column, ends_record) = if cursor.peek() == Some('"') {
            let first_column = cursor.column();
            // An empty quoted cell (`""`) is placed where the cell started, as a blank plain one
            // (it cannot span lines: its text would hold the line break).
            let start_column = cursor.line.column(cell_start);
            cursor.next();
            let text = read_quoted(&mut cursor, more_lines)
                .ok_or_else(|| InputError::at(cell_line, first_column, "this quoted cell has no closing quote"))?;
            cursor.skip_blanks();
            let column = if text.is_empty() { start_column } else { first_column };
            match cursor.next() {
                None => (Cow::Owned(text), column, true),
                Some(',') => (Cow::Owned(text), column, false),
                Some(other) => {
                    return Err(InputError::at(
                        cursor.line.number,
                        cursor.column() - 1,
                        format!("unexpected '{other}' after a closing quote; expected ',' or the end of the line"),
                    ));
                }
            }
        } else {
            let first = cursor.at;
            let rest = cursor.rest();
            // (A comma is ASCII: the byte after it is a character boundary.)
            let (length, ends_record) = match rest.bytes().position(|b| b == b',') {
                Some(at) => (at, false),
                None => (rest.len(), true),
            };
            let text = trim_end(&rest[..length]);
            cursor.at += length + usize::from(!ends_record);
            let column = cursor.line.column(if text.is_empty() { cell_start } else { first });
            (Cow::Borrowed(text), column, ends_record)
        };
        cells.push(Cell { text, line: cell_line, column });
        if ends_record {
            return Ok(());
        }
    }
}

/// Reads a quoted cell's content after its opening quote, through the closing quote, moving to
/// the next lines while the quote is open. `None` when the text ends first.
fn read_quoted<'t>(cursor: &mut Cursor<'t>, more_lines: &mut impl Iterator<Item = Line<'t>>) -> Option<String> {
    let mut text = String::new();
    loop {
        let rest = cursor.rest();
        match rest.find('"') {
            Some(at) => {
                text.push_str(&rest[..at]);
                cursor.at += at + 1;
                if cursor.peek() == Some('"') {
                    cursor.at += 1;
                    text.push('"');
                } else {
                    return Some(text);
                }
            }
            None => {
                text.push_str(rest);
                let ending = cursor.line.ending;
                *cursor = Cursor { line: more_lines.next()?, at: 0 };
                text.push_str(ending);
            }
        }
    }
}

/// Whether `byte` may be part of a blank: an ASCII blank (as `char::is_whitespace` has them, the
/// vertical tab included), or any byte of a multi-byte character, which only `str::trim` can tell.
fn is_blank_byte(byte: u8) -> bool {
    !byte.is_ascii() || char::from(byte).is_whitespace()
}

/// `text.trim()`, without decoding characters when both ends are plain ASCII (nearly every cell
/// and line of a large file, where the trims were a visible part of the reading).
fn trim(text: &str) -> &str {
    match text.as_bytes() {
        [first, .., last] if !is_blank_byte(*first) && !is_blank_byte(*last) => text,
        [only] if !is_blank_byte(*only) => text,
        _ => text.trim(),
    }
}

/// `text.trim_end()`, in the same way as [`trim`].
fn trim_end(text: &str) -> &str {
    match text.as_bytes().last() {
        Some(&last) if !is_blank_byte(last) => text,
        _ => text.trim_end(),
    }
}

/// A cell ready to write: quoted when reading it back plain would change it (commas, quotes, line
/// breaks, surrounding blanks, emptiness, or a leading `#` that would make its line a comment).
pub(super) fn quote(text: &str) -> Cow<'_, str> {
    let needs_quotes = text.is_empty()
        || text.starts_with('#')
        || trim(text).len() != text.len()
        || text.contains([',', '"', '\n', '\r']);
    if needs_quotes { Cow::Owned(format!("\"{}\"", text.replace('"', "\"\""))) } else { Cow::Borrowed(text) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts<'a>(record: &'a Record<'a>) -> Vec<&'a str> {
        record.cells.iter().map(|c| c.text.as_ref()).collect()
    }

    #[test]
    fn splits_plain_and_quoted_cells_with_positions() {
        let (records, errors) = split("id, lower ,x\r\n\n# note\n\"a,\"\"b\"\"\" ,  7,\n");
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(records.len(), 2);
        assert_eq!(texts(&records[0]), ["id", "lower", "x"]);
        assert_eq!(records[0].cells[1].column, 5);
        assert_eq!(records[1].line, 4);
        assert_eq!(texts(&records[1]), ["a,\"b\"", "7", ""]);
        let columns: Vec<usize> = records[1].cells.iter().map(|c| c.column).collect();
        assert_eq!(columns, [1, 14, 16]);
    }

    #[test]
    fn quoted_cells_may_span_lines() {
        let (records, errors) = split("\"two\nlines\",1\nb,2\n");
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(texts(&records[0]), ["two\nlines", "1"]);
        assert_eq!(records[1].line, 3);
        let (records, errors) = split("\"two\r\nlines\r\n\",1\r\nb,2\r\n");
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(texts(&records[0]), ["two\r\nlines\r\n", "1"]);
        assert_eq!(texts(&records[1]), ["b", "2"]);
    }

    /// A text whose lines end with a carriage return alone was one line (a header with a cell per
    /// column, glued to the rows): each `\r` ends a line there, and a quoted one stays in its cell.
    #[test]
    fn carriage_returns_alone_end_lines() {
        let (records, errors) = split("id,lower\r\"a\rb\",1\r\rc,2");
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(
            records.iter().map(texts).collect::<Vec<_>>(),
            [vec!["id", "lower"], vec!["a\rb", "1"], vec!["c", "2"]]
        );
        assert_eq!(records.iter().map(|r| r.line).collect::<Vec<_>>(), [1, 2, 5]);
    }

    #[test]
    fn broken_quotes_are_errors_and_the_rest_is_still_read() {
        let (records, errors) = split("\"open,1\n");
        assert!(records.is_empty());
        assert_eq!((errors[0].line, errors[0].column), (Some(1), Some(1)));
        let (records, errors) = split("a,\"b\"x,1\nc,d,e\n");
        assert_eq!(records.len(), 1);
        assert_eq!((errors[0].line, errors[0].column), (Some(1), Some(6)));
        assert!(errors[0].message.contains("after a closing quote"));
    }

    #[test]
    fn quote_round_trips_through_split() {
        for id in ["plain", "a,b", "say \"hi\"", " padded ", "", "#hash", "two\nlines", "cr\r\nlf\r\n", "cr\r", "\r"] {
            let text = format!("{},1\n", quote(id));
            let (records, errors) = split(&text);
            assert!(errors.is_empty(), "{id:?}: {errors:?}");
            assert_eq!(records[0].cells[0].text, id);
        }
        assert_eq!(quote("plain"), "plain");
    }

    #[test]
    fn the_quick_trims_are_the_standard_ones() {
        // ASCII blanks (the vertical tab among them), blanks of several bytes (no-break space, em
        // space) and other characters of several bytes, at either end or alone.
        let cases = [
            "",
            " ",
            "\t",
            "\u{b}",
            "\u{c}",
            "\r",
            "a",
            " a",
            "a ",
            "\u{b}a\u{b}",
            "\u{a0}7",
            "7\u{a0}",
            "\u{2003}",
            "é",
            "é ",
            " é",
            "#x",
            "1,2",
            "x\u{2003}y",
        ];
        for text in cases {
            assert_eq!(trim(text), text.trim(), "{text:?}");
            assert_eq!(trim_end(text), text.trim_end(), "{text:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn trims_agree_with_the_standard_library(text in "[ \t\u{b}\u{c}a9#,\u{a0}\u{2003}é]{0,6}") {
            proptest::prop_assert_eq!(trim(&text), text.trim());
            proptest::prop_assert_eq!(trim_end(&text), text.trim_end());
        }
    }
}
