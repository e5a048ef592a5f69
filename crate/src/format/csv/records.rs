//! Splitting CSV text into records of cells, each cell with the line and column it starts at.
//! Quoted cells (`"a,b"`, `"say ""hi"""`) may hold commas, quotes and line breaks; blank lines and
//! lines whose first non-blank character is `#` are skipped between records.

use std::borrow::Cow;
use std::iter::Peekable;
use std::str::Chars;

use crate::model::InputError;

/// One cell's text (unquoted, surrounding blanks trimmed unless it was quoted) and where it starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Cell {
    pub text: String,
    /// 1-based line of the cell's first character (a quoted cell may continue on later lines).
    pub line: usize,
    /// 1-based character column of the cell's first non-blank character (of the cell's start when
    /// the cell is blank).
    pub column: usize,
}

/// One non-blank, non-comment line (or several, when a quoted cell spans lines).
#[derive(Clone, Debug)]
pub(super) struct Record {
    pub line: usize,
    pub cells: Vec<Cell>,
}

/// Every record of the text, plus an error for each record that could not be split (an unclosed
/// quote, or text after a closing quote); such a record is left out, never guessed at.
pub(super) fn split(text: &str) -> (Vec<Record>, Vec<InputError>) {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text); // a byte-order mark is not part of the header
    // Lines end with `\n` (or `\r\n`); a text with carriage returns and no line feed (old Mac
    // files, some exports) ends them with `\r`.
    let breaks = if !text.contains('\n') && text.contains('\r') { '\r' } else { '\n' };
    let mut lines = text.split_inclusive(breaks).enumerate().map(|(i, line)| Line::new(i + 1, line));
    let (mut records, mut errors) = (Vec::new(), Vec::new());
    while let Some(line) = lines.next() {
        let content = line.text.trim();
        if content.is_empty() || content.starts_with('#') {
            continue;
        }
        match read_record(line, &mut lines) {
            Ok(record) => records.push(record),
            Err(error) => errors.push(error),
        }
    }
    (records, errors)
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
}

/// A cursor over the current line's characters that knows its line and column.
struct Cursor<'t> {
    chars: Peekable<Chars<'t>>,
    line: usize,
    /// The column of the next character.
    column: usize,
    /// The current line's break, for a quoted cell that goes on to the next line.
    ending: &'t str,
}

impl<'t> Cursor<'t> {
    fn new(line: Line<'t>) -> Self {
        Cursor { chars: line.text.chars().peekable(), line: line.number, column: 1, ending: line.ending }
    }

    fn next(&mut self) -> Option<char> {
        let c = self.chars.next()?;
        self.column += 1;
        Some(c)
    }

    fn skip_blanks(&mut self) {
        while self.chars.peek().is_some_and(|c| c.is_whitespace()) {
            self.next();
        }
    }
}

fn read_record<'t>(line: Line<'t>, more_lines: &mut impl Iterator<Item = Line<'t>>) -> Result<Record, InputError> {
    let line_number = line.number;
    let mut cursor = Cursor::new(line);
    let mut cells = Vec::new();
    loop {
        let cell_start = cursor.column;
        cursor.skip_blanks();
        let (cell_line, first_column) = (cursor.line, cursor.column);
        let (text, ends_record) = if cursor.chars.peek() == Some(&'"') {
            cursor.next();
            let text = read_quoted(&mut cursor, more_lines)
                .ok_or_else(|| InputError::at(cell_line, first_column, "this quoted cell has no closing quote"))?;
            cursor.skip_blanks();
            match cursor.next() {
                None => (text, true),
                Some(',') => (text, false),
                Some(other) => {
                    return Err(InputError::at(
                        cursor.line,
                        cursor.column - 1,
                        format!("unexpected '{other}' after a closing quote; expected ',' or the end of the line"),
                    ));
                }
            }
        } else {
            let mut text = String::new();
            let ends_record = loop {
                match cursor.next() {
                    None => break true,
                    Some(',') => break false,
                    Some(c) => text.push(c),
                }
            };
            text.truncate(text.trim_end().len());
            (text, ends_record)
        };
        let column = if text.is_empty() { cell_start } else { first_column };
        cells.push(Cell { text, line: cell_line, column });
        if ends_record {
            return Ok(Record { line: line_number, cells });
        }
    }
}

/// Reads a quoted cell's content after its opening quote, through the closing quote, moving to
/// the next lines while the quote is open. `None` when the text ends first.
fn read_quoted<'t>(cursor: &mut Cursor<'t>, more_lines: &mut impl Iterator<Item = Line<'t>>) -> Option<String> {
    let mut text = String::new();
    loop {
        match cursor.next() {
            Some('"') if cursor.chars.peek() == Some(&'"') => {
                cursor.next();
                text.push('"');
            }
            Some('"') => return Some(text),
            Some(c) => text.push(c),
            None => {
                let ending = cursor.ending;
                *cursor = Cursor::new(more_lines.next()?);
                text.push_str(ending);
            }
        }
    }
}

/// A cell ready to write: quoted when reading it back plain would change it (commas, quotes, line
/// breaks, surrounding blanks, emptiness, or a leading `#` that would make its line a comment).
pub(super) fn quote(text: &str) -> Cow<'_, str> {
    let needs_quotes =
        text.is_empty() || text.starts_with('#') || text.trim() != text || text.contains([',', '"', '\n', '\r']);
    if needs_quotes { Cow::Owned(format!("\"{}\"", text.replace('"', "\"\""))) } else { Cow::Borrowed(text) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(record: &Record) -> Vec<&str> {
        record.cells.iter().map(|c| c.text.as_str()).collect()
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
            let (records, errors) = split(&format!("{},1\n", quote(id)));
            assert!(errors.is_empty(), "{id:?}: {errors:?}");
            assert_eq!(records[0].cells[0].text, id);
        }
        assert_eq!(quote("plain"), "plain");
    }
}
