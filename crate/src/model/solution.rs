use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// An offset for every buffer, indexed like [`crate::Problem::buffers`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Plan {
    pub offsets: Vec<u64>,
}

impl Plan {
    pub fn new(offsets: Vec<u64>) -> Self {
        Plan { offsets }
    }
}

/// A solver statistic: counters stay exact integers (they may pass 2^53), ratios are floats.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum StatValue {
    Count(u64),
    Ratio(f64),
    Text(String),
}

impl From<u64> for StatValue {
    fn from(value: u64) -> Self {
        StatValue::Count(value)
    }
}

impl From<usize> for StatValue {
    fn from(value: usize) -> Self {
        StatValue::Count(value as u64)
    }
}

impl From<f64> for StatValue {
    fn from(value: f64) -> Self {
        StatValue::Ratio(value)
    }
}

impl From<&str> for StatValue {
    fn from(value: &str) -> Self {
        StatValue::Text(value.to_string())
    }
}

impl From<String> for StatValue {
    fn from(value: String) -> Self {
        StatValue::Text(value)
    }
}

/// Named solver statistics (nodes, backtracks, pool buffers, ...), sorted by name for stable output.
pub type Stats = BTreeMap<String, StatValue>;

/// A plan with what is known about it. `optimal` is true only with a proof: the makespan equals a
/// proven lower bound.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Solution {
    /// The solver that produced the plan (for `auto`, the portfolio member that won).
    pub solver: String,
    pub plan: Plan,
    /// The highest address in use: max over buffers of offset + size.
    pub makespan: u64,
    /// The most bytes alive at once (L).
    pub max_load: u64,
    pub lower_bound: u64,
    pub optimal: bool,
    /// The makespan is within the problem's capacity (always true without one).
    pub feasible: bool,
    pub stats: Stats,
    #[serde(with = "duration_ms")]
    pub elapsed: Duration,
    /// Buffer indices in the order the solver placed them (for replaying a plan).
    pub placement_order: Vec<usize>,
    pub seed: u64,
}

impl Solution {
    /// makespan − L: the memory lost to fragmentation.
    pub fn fragmentation(&self) -> u64 {
        self.makespan.saturating_sub(self.max_load)
    }

    /// Fragmentation as a percentage of L (0 when L is 0).
    pub fn fragmentation_pct(&self) -> f64 {
        if self.max_load == 0 { 0.0 } else { 100.0 * self.fragmentation() as f64 / self.max_load as f64 }
    }
}

mod duration_ms {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(value: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_f64(value.as_secs_f64() * 1000.0)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Duration, D::Error> {
        let ms = f64::deserialize(deserializer)?;
        Ok(Duration::from_secs_f64(ms.max(0.0) / 1000.0))
    }
}
