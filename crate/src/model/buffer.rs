use serde::{Deserialize, Serialize};

/// One buffer to place. It is alive during the half-open lifetime `[start, end)`: two buffers
/// conflict iff `a.start < b.end && b.start < a.end` (MiniMalloc's convention).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Buffer {
    /// The id as written in the input; the index in [`crate::Problem::buffers`] is the internal id.
    pub id: String,
    pub start: u64,
    pub end: u64,
    pub size: u64,
    /// Every offset must be a multiple of this (1 = no constraint).
    pub alignment: u64,
    /// A fixed offset the planner must keep (MiniMalloc's `offset` column on input).
    pub pinned: Option<u64>,
    /// MiniMalloc's `hint` column, carried through to the output untouched.
    pub hint: Option<u64>,
    /// The name the buffer's producer gave it (a tensor's name in a model), carried through to the
    /// output untouched. Never empty: an empty name is no name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The 1-based line of the input this buffer came from, for error messages.
    pub line: Option<usize>,
}

impl Buffer {
    pub fn new(id: impl Into<String>, start: u64, end: u64, size: u64) -> Self {
        Buffer { id: id.into(), start, end, size, alignment: 1, pinned: None, hint: None, name: None, line: None }
    }

    pub fn with_alignment(mut self, alignment: u64) -> Self {
        self.alignment = alignment;
        self
    }

    /// Names the buffer; an empty name leaves it unnamed.
    pub fn named(mut self, name: impl Into<String>) -> Self {
        let name = name.into();
        self.name = if name.is_empty() { None } else { Some(name) };
        self
    }

    pub fn pinned_at(mut self, offset: u64) -> Self {
        self.pinned = Some(offset);
        self
    }

    pub fn lifetime(&self) -> u64 {
        self.end - self.start
    }

    /// True when both are alive at some time (half-open lifetimes).
    pub fn overlaps_in_time(&self, other: &Buffer) -> bool {
        self.start < other.end && other.start < self.end
    }
}
