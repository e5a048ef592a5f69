use std::fmt;

/// One problem with the input, located as precisely as the format allows.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct InputError {
    /// 1-based line in the input text.
    pub line: Option<usize>,
    /// 1-based column (character) in that line.
    pub column: Option<usize>,
    pub message: String,
}

impl InputError {
    pub fn new(message: impl Into<String>) -> Self {
        InputError { line: None, column: None, message: message.into() }
    }

    pub fn at_line(line: usize, message: impl Into<String>) -> Self {
        InputError { line: Some(line), column: None, message: message.into() }
    }

    pub fn at(line: usize, column: usize, message: impl Into<String>) -> Self {
        InputError { line: Some(line), column: Some(column), message: message.into() }
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (Some(line), Some(column)) => write!(f, "line {line}, column {column}: {}", self.message),
            (Some(line), None) => write!(f, "line {line}: {}", self.message),
            _ => write!(f, "{}", self.message),
        }
    }
}

/// Every problem found in one input, so that a user can fix them all in one go.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct InputErrors {
    /// The file name, when the input came from a file.
    pub file: Option<String>,
    pub errors: Vec<InputError>,
}

impl InputErrors {
    /// How many errors `Display` lists before summarising the rest.
    const SHOWN: usize = 20;

    pub fn new(errors: Vec<InputError>) -> Self {
        InputErrors { file: None, errors }
    }

    pub fn single(error: InputError) -> Self {
        InputErrors::new(vec![error])
    }

    pub fn in_file(mut self, file: impl Into<String>) -> Self {
        self.file = Some(file.into());
        self
    }
}

impl fmt::Display for InputErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, error) in self.errors.iter().take(Self::SHOWN).enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            if let Some(file) = &self.file {
                write!(f, "{file}: ")?;
            }
            write!(f, "{error}")?;
        }
        if self.errors.len() > Self::SHOWN {
            write!(f, "\n... and {} more errors", self.errors.len() - Self::SHOWN)?;
        }
        Ok(())
    }
}

impl std::error::Error for InputErrors {}
