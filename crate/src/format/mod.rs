//! Reading and writing buffer lists: MiniMalloc CSV and JSON. Parsers return a [`Document`] (the
//! problem plus what is needed to write it back the same way) or every error with line and column.

mod csv;
mod json;
mod reading;

use crate::model::{InputError, InputErrors, Problem, Semantics};

pub use csv::CsvLayout;

/// A file format memplan reads and writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Csv,
    Json,
}

impl Format {
    /// By file extension (`.csv`, `.json`).
    pub fn from_path(path: &str) -> Option<Format> {
        let lower = path.to_ascii_lowercase();
        if lower.ends_with(".json") {
            Some(Format::Json)
        } else if lower.ends_with(".csv") {
            Some(Format::Csv)
        } else {
            None
        }
    }

    /// By content: JSON starts with `{`, everything else is read as CSV.
    pub fn sniff(text: &str) -> Format {
        if text.trim_start().starts_with('{') { Format::Json } else { Format::Csv }
    }
}

/// What the `offset` values of an input mean.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Offsets {
    /// Fixed offsets the planner must keep (when solving).
    #[default]
    Pinned,
    /// A plan to check: every buffer must have one.
    Plan,
}

#[derive(Clone, Debug, Default)]
pub struct ReadOptions {
    /// `None`: sniff the content.
    pub format: Option<Format>,
    pub semantics: Semantics,
    pub offsets: Offsets,
}

/// Something a reader did with the input that is no error but that the user should know (a
/// column it ignored, times it shifted), located like an [`crate::InputError`].
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Note {
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub message: String,
}

impl std::fmt::Display for Note {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.line, self.column) {
            (Some(line), Some(column)) => write!(f, "line {line}, column {column}: {}", self.message),
            (Some(line), None) => write!(f, "line {line}: {}", self.message),
            _ => write!(f, "{}", self.message),
        }
    }
}

/// A parsed input: the problem, the plan when reading with [`Offsets::Plan`], and how to write it back.
#[derive(Clone, Debug)]
pub struct Document {
    pub problem: Problem,
    pub plan: Option<Vec<u64>>,
    pub format: Format,
    /// The CSV columns in input order, so that output keeps them (None for JSON).
    pub csv_layout: Option<CsvLayout>,
    /// What the reader did that the user should know (see [`Note`]); empty for most inputs.
    pub notes: Vec<Note>,
}

impl Document {
    /// A problem made in memory (not read from a file), written in `format` with default columns.
    pub fn new(problem: Problem, format: Format) -> Document {
        Document { problem, plan: None, format, csv_layout: None, notes: Vec::new() }
    }
}

/// The text of an input file's `bytes` (`path` names it, for its extension), or why it is no
/// buffer list: a model file, which `memplan import` reads (TFLite by its flatbuffer identifier
/// `TFL3` at bytes 4..8, an XLA `HloProto` by its `.pb` extension), or bytes that are not UTF-8,
/// at the line and column of the first of them.
pub fn text_of<'b>(bytes: &'b [u8], path: Option<&str>) -> Result<&'b str, InputErrors> {
    const IMPORT: &str =
        "import it first with `memplan import` (in Python, memplan.import_tflite or memplan.import_xla)";
    if bytes.get(4..8) == Some(b"TFL3") {
        return Err(InputErrors::single(InputError::new(format!(
            "this is a TFLite model (its identifier TFL3 at bytes 4..8), not a buffer list: {IMPORT}"
        ))));
    }
    std::str::from_utf8(bytes).map_err(|error| {
        let valid = &bytes[..error.valid_up_to()];
        if path.is_some_and(|p| p.to_ascii_lowercase().ends_with(".pb")) {
            return InputErrors::single(InputError::new(format!(
                "this looks like an XLA HloProto (a binary .pb file), not a buffer list: {IMPORT}"
            )));
        }
        // (`valid` is UTF-8 up to `valid_up_to`.)
        let before = std::str::from_utf8(valid).unwrap_or_default();
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().unwrap_or_default().chars().count() + 1;
        InputErrors::single(InputError::at(
            line,
            column,
            format!(
                "byte 0x{:02x} (byte {} of the file) is not UTF-8: a buffer list is text",
                bytes[valid.len()],
                valid.len() + 1
            ),
        ))
    })
}

/// Parses text in the given or sniffed format, converting lifetimes to `[start, end)` and checking
/// that the conversion kept the max load.
pub fn read(text: &str, options: &ReadOptions) -> Result<Document, InputErrors> {
    let format = options.format.unwrap_or_else(|| Format::sniff(text));
    match format {
        Format::Csv => csv::read(text, options),
        Format::Json => json::read(text, options),
    }
}

/// Writes the problem with the given offsets: CSV with the input's columns plus `offset`
/// (MiniMalloc's output), or JSON with `offset` on every buffer. Lifetimes go out in the
/// problem's input semantics. `offsets` is a plan (an offset per buffer) or empty for the problem
/// alone; with no buffers the two are one, written as a plan (CSV keeps an `offset` column), so
/// that every plan written reads back as one.
pub fn write(document: &Document, offsets: &[u64], format: Format) -> String {
    match format {
        Format::Csv => csv::write(&document.problem, document.csv_layout.as_ref(), offsets),
        Format::Json => json::write(&document.problem, offsets),
    }
}

/// [`write()`] into `out` as it goes (a file, standard output), never holding the whole text: the
/// same bytes.
pub fn write_to(
    document: &Document,
    offsets: &[u64],
    format: Format,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    match format {
        Format::Csv => csv::write_to(&document.problem, document.csv_layout.as_ref(), offsets, out),
        Format::Json => json::write_to(&document.problem, offsets, out),
    }
}

/// The text the writers made: they write only `str`s and numbers, so it is UTF-8.
fn utf8(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned())
}
