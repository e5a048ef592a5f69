//! MiniMalloc CSV (to be written by the formats helper).
use super::{Document, ReadOptions};
use crate::model::{InputErrors, Problem};

#[derive(Clone, Debug, Default)]
pub struct CsvLayout {}

pub fn read(_text: &str, _options: &ReadOptions) -> Result<Document, InputErrors> {
    todo!("csv reader")
}

pub fn write(_problem: &Problem, _layout: Option<&CsvLayout>, _offsets: &[u64]) -> String {
    todo!("csv writer")
}
