use serde::{Deserialize, Serialize};

/// What a buffer holds, when its producer knows (an importer reads it from the model): lets a
/// view colour a plan by role, as PyTorch's memory_viz and Netron do. Unknown is `None` on the
/// buffer, never a variant, so that hand-written inputs need not say.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    /// Fed in from outside before the graph runs (a model's input, an entry parameter).
    Input,
    /// Read out after the graph has run (a model's output, the entry's result).
    Output,
    /// A constant the model carries (weights), planned with the rest.
    Weight,
    /// State kept between runs (TFLite's variable tensors).
    Variable,
    /// An intermediate value, dead once its last reader has run.
    Temporary,
}

impl Category {
    /// Every category, in the order of their codes ([`Category::code`]).
    pub const ALL: [Category; 5] =
        [Category::Input, Category::Output, Category::Weight, Category::Variable, Category::Temporary];

    /// The name written in CSV and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Category::Input => "input",
            Category::Output => "output",
            Category::Weight => "weight",
            Category::Variable => "variable",
            Category::Temporary => "temporary",
        }
    }

    /// Reads a name as written in CSV and JSON (case-insensitive, trimmed).
    pub fn parse(text: &str) -> Option<Category> {
        let text = text.trim();
        Category::ALL.into_iter().find(|category| category.name().eq_ignore_ascii_case(text))
    }

    /// A compact code for the page, 1-based so that 0 can mean "unknown".
    pub fn code(self) -> u8 {
        Category::ALL.iter().position(|&category| category == self).map_or(0, |index| index as u8 + 1)
    }

    /// The allowed names, for error messages.
    pub fn names() -> String {
        Category::ALL.map(Category::name).join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_codes_round_trip() {
        for category in Category::ALL {
            assert_eq!(Category::parse(category.name()), Some(category));
            assert_eq!(Category::ALL[category.code() as usize - 1], category);
        }
        assert_eq!(Category::parse(" Input "), Some(Category::Input));
        assert_eq!(Category::parse("scratch"), None);
        assert_eq!(serde_json::to_string(&Category::Temporary).unwrap(), "\"temporary\"");
    }
}
