//! Reading instance files and parsing flag values.

use std::io::Read;

use memplan::format::{self, Document, Format, Offsets, ReadOptions};
use memplan::{Effort, Semantics};

use crate::{Failure, InputArgs};

pub fn parse_semantics(text: &str) -> Result<Semantics, String> {
    Semantics::parse(text).ok_or_else(|| format!("'{text}' is not one of half-open, inclusive, exclusive"))
}

pub fn parse_effort(text: &str) -> Result<Effort, String> {
    Effort::parse(text).ok_or_else(|| format!("'{text}' is not one of low, normal, high"))
}

pub fn parse_shape(text: &str) -> Result<memplan::generate::Shape, String> {
    memplan::generate::Shape::parse(text)
        .ok_or_else(|| format!("'{text}' is not one of {}", memplan::generate::Shape::names().join(", ")))
}

pub fn parse_runtime(text: &str) -> Result<memplan::import::tflite::Runtime, String> {
    memplan::import::tflite::Runtime::parse(text).ok_or_else(|| format!("'{text}' is not one of litert, micro"))
}

pub fn parse_format(text: &str) -> Result<Format, String> {
    match text.to_ascii_lowercase().as_str() {
        "csv" => Ok(Format::Csv),
        "json" => Ok(Format::Json),
        _ => Err(format!("'{text}' is not one of csv, json")),
    }
}

/// Reads a file (or standard input for `-`) and parses it; errors name the file and line.
pub fn load(path: &str, args: &InputArgs, offsets: Offsets) -> Result<Document, Failure> {
    let bytes = if path == "-" {
        let mut bytes = Vec::new();
        std::io::stdin().read_to_end(&mut bytes).map_err(|e| Failure::bad_input(format!("standard input: {e}")))?;
        bytes
    } else {
        std::fs::read(path).map_err(|e| Failure::bad_input(format!("{path}: {e}")))?
    };
    let named = (path != "-").then_some(path);
    let text = format::text_of(&bytes, named).map_err(|errors| Failure::bad_input(errors.in_file(path).to_string()))?;
    let options =
        ReadOptions { format: args.format.or_else(|| Format::from_path(path)), semantics: args.semantics, offsets };
    let document =
        format::read(text, &options).map_err(|errors| Failure::bad_input(errors.in_file(path).to_string()))?;
    // What the reader did that is no error (an ignored column, shifted times) goes to standard
    // error, where the CLI says everything that is not its result.
    for note in &document.notes {
        eprintln!("{path}: note: {note}");
    }
    Ok(document)
}
