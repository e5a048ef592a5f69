//! What a caller can ask of a solver, and how a solve can fail.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use web_time::Instant;

/// How hard the portfolio works: more planners, orders and random restarts at higher levels.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Effort {
    Low,
    #[default]
    Normal,
    High,
}

impl Effort {
    pub fn parse(text: &str) -> Option<Effort> {
        match text.trim().to_ascii_lowercase().as_str() {
            "low" | "0" => Some(Effort::Low),
            "normal" | "1" => Some(Effort::Normal),
            "high" | "2" => Some(Effort::High),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Effort::Low => "low",
            Effort::Normal => "normal",
            Effort::High => "high",
        }
    }
}

/// A flag a caller sets to stop a solve; solvers poll it and return their best plan so far.
#[derive(Clone, Debug, Default)]
pub struct CancelFlag(Arc<AtomicBool>);

impl CancelFlag {
    pub fn new() -> Self {
        CancelFlag::default()
    }

    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// A report during a long solve (for the playground's progress line).
#[derive(Clone, Debug, Serialize)]
pub struct Progress {
    pub solver: String,
    pub best_makespan: Option<u64>,
    pub lower_bound: u64,
    pub nodes: u64,
}

pub type ProgressSink = Arc<dyn Fn(&Progress) + Send + Sync>;

/// Everything a solver may be asked. `capacity` overrides the problem's own when set.
#[derive(Clone, Default)]
pub struct SolveOptions {
    pub capacity: Option<u64>,
    pub time_limit: Option<Duration>,
    pub seed: u64,
    /// Worker threads for parallel solvers; `None` = all cores (the CLI builds the pool).
    pub threads: Option<usize>,
    pub effort: Effort,
    pub cancel: CancelFlag,
    pub progress: Option<ProgressSink>,
}

impl std::fmt::Debug for SolveOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SolveOptions")
            .field("capacity", &self.capacity)
            .field("time_limit", &self.time_limit)
            .field("seed", &self.seed)
            .field("threads", &self.threads)
            .field("effort", &self.effort)
            .field("cancelled", &self.cancel.is_cancelled())
            .finish()
    }
}

impl SolveOptions {
    /// The point in time after which the solve must stop, measured from `started`.
    pub fn deadline(&self, started: Instant) -> Deadline {
        Deadline { at: self.time_limit.and_then(|limit| started.checked_add(limit)), cancel: self.cancel.clone() }
    }

    pub fn report(&self, progress: Progress) {
        if let Some(sink) = &self.progress {
            sink(&progress);
        }
    }
}

/// The time limit and the cancel flag together: the one thing a solver's loops poll.
#[derive(Clone, Debug)]
pub struct Deadline {
    at: Option<Instant>,
    cancel: CancelFlag,
}

impl Deadline {
    pub fn none() -> Self {
        Deadline { at: None, cancel: CancelFlag::new() }
    }

    /// Why the solve must stop now, if it must.
    pub fn expired(&self) -> Option<SolveError> {
        if self.cancel.is_cancelled() {
            return Some(SolveError::Cancelled);
        }
        match self.at {
            Some(at) if Instant::now() >= at => Some(SolveError::Timeout),
            _ => None,
        }
    }
}

/// Why a solver returned no plan.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize)]
pub enum SolveError {
    #[error("infeasible: {0}")]
    Infeasible(String),
    #[error("time limit reached before any plan was found")]
    Timeout,
    #[error("cancelled")]
    Cancelled,
    #[error("unsupported: {0}")]
    Unsupported(String),
    #[error("no such solver: {0}")]
    UnknownSolver(String),
    #[error("buffer {buffer}: offset {offset} + size {size} overflows u64")]
    Overflow { buffer: String, offset: u64, size: u64 },
}
