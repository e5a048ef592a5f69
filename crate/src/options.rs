//! What a caller can ask of a solver, and how a solve can fail.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use web_time::Instant;

use crate::model::Plan;

/// How hard the portfolio works: more planners, orders and random restarts at higher levels.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
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

    pub const ALL: [Effort; 3] = [Effort::Low, Effort::Normal, Effort::High];

    pub fn name(self) -> &'static str {
        match self {
            Effort::Low => "low",
            Effort::Normal => "normal",
            Effort::High => "high",
        }
    }
}

/// A flag a caller sets to stop a solve; solvers poll it and return their best plan so far.
///
/// A [`CancelFlag::child`] is cancelled by its own `cancel` or by any ancestor's, so a part of a
/// solve (one racer of the portfolio) can be stopped alone while the caller's cancel still
/// reaches it.
#[derive(Clone, Debug, Default)]
pub struct CancelFlag {
    own: Arc<AtomicBool>,
    ancestors: Arc<[Arc<AtomicBool>]>,
}

impl CancelFlag {
    pub fn new() -> Self {
        CancelFlag::default()
    }

    /// A new flag that is also cancelled when this one is.
    pub fn child(&self) -> CancelFlag {
        let ancestors: Vec<Arc<AtomicBool>> = self.ancestors.iter().cloned().chain([self.own.clone()]).collect();
        CancelFlag { own: Arc::new(AtomicBool::new(false)), ancestors: ancestors.into() }
    }

    pub fn cancel(&self) {
        self.own.store(true, Ordering::Relaxed);
    }

    pub fn is_cancelled(&self) -> bool {
        self.own.load(Ordering::Relaxed) || self.ancestors.iter().any(|flag| flag.load(Ordering::Relaxed))
    }
}

/// A report during a long solve (for the playground's progress line). Integers follow
/// [`crate::model::wire`]'s rule in JSON.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Progress {
    /// The solver (or portfolio member) reporting.
    pub solver: String,
    /// The lowest makespan found so far.
    #[serde(serialize_with = "crate::model::wire::serialize_option_u64")]
    #[cfg_attr(test, ts(type = "number | string | null"))]
    pub best_makespan: Option<u64>,
    /// The best lower bound proven so far.
    #[serde(serialize_with = "crate::model::wire::serialize_u64")]
    #[cfg_attr(test, ts(type = "number | string"))]
    pub lower_bound: u64,
    /// Work done so far, in the solver's own unit (capacity probes of a minimisation).
    #[serde(serialize_with = "crate::model::wire::serialize_u64")]
    #[cfg_attr(test, ts(type = "number | string"))]
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
    /// Solver-specific settings by name (`iterations=100`), as each solver declares them in
    /// [`crate::Solver::parameters`]; `run::solve` refuses names the solver does not declare.
    pub params: Params,
    /// A valid plan of the problem to start from (a warm start): solvers that search from a plan
    /// ([`crate::solvers::Capabilities::warm_start`]) begin with it instead of building their own.
    pub start: Option<Arc<Plan>>,
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
            .field("params", &self.params)
            .field("start", &self.start.as_ref().map(|plan| plan.makespan))
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

/// Solver-specific settings, by name, as text: the CLI (`--param name=value`) and the page pass them
/// through unchanged and the solver parses what it declared.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Params(std::collections::BTreeMap<String, String>);

impl Params {
    pub fn new() -> Self {
        Params::default()
    }

    pub fn set(&mut self, name: impl Into<String>, value: impl Into<String>) {
        self.0.insert(name.into(), value.into());
    }

    pub fn with(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.set(name, value);
        self
    }

    /// Parses `name=value`.
    pub fn parse_assignment(text: &str) -> Result<(String, String), String> {
        match text.split_once('=') {
            Some((name, value)) if !name.trim().is_empty() => Ok((name.trim().to_string(), value.trim().to_string())),
            _ => Err(format!("'{text}' is not of the form name=value")),
        }
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.0.keys().map(String::as_str)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The value of `name` parsed as `T`, `None` when unset; a value that does not parse is an
    /// [`SolveError::Unsupported`] naming the parameter.
    pub fn get<T: std::str::FromStr>(&self, name: &str) -> Result<Option<T>, SolveError> {
        match self.0.get(name) {
            None => Ok(None),
            Some(text) => text.parse::<T>().map(Some).map_err(|_| {
                SolveError::Unsupported(format!("parameter {name}: '{text}' is not a valid {}", short_type_name::<T>()))
            }),
        }
    }

    /// Like [`Params::get`] with a default.
    pub fn get_or<T: std::str::FromStr>(&self, name: &str, default: T) -> Result<T, SolveError> {
        Ok(self.get(name)?.unwrap_or(default))
    }
}

fn short_type_name<T>() -> &'static str {
    let full = std::any::type_name::<T>();
    full.rsplit("::").next().unwrap_or(full)
}

/// A setting a solver accepts, for `memplan solvers` and the playground's controls.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Parameter {
    pub name: &'static str,
    /// `int`, `float` or `bool`: how the page draws the control.
    pub kind: &'static str,
    /// The value used when the parameter is not set, as text.
    pub default: String,
    pub description: &'static str,
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

    /// This deadline, or `limit` from now if that comes first (a budget for one part of a solve);
    /// the cancel flag is shared.
    pub fn within(&self, limit: std::time::Duration) -> Deadline {
        let at = Instant::now().checked_add(limit);
        let at = match (self.at, at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        Deadline { at, cancel: self.cancel.clone() }
    }

    /// Time left before the deadline (`None` without a time limit).
    pub fn remaining(&self) -> Option<std::time::Duration> {
        self.at.map(|at| at.saturating_duration_since(Instant::now()))
    }

    pub fn cancel_flag(&self) -> &CancelFlag {
        &self.cancel
    }

    /// Why the solve must stop now, if it must.
    pub fn expired(&self) -> Option<Halt> {
        if self.cancel.is_cancelled() {
            return Some(Halt::Cancelled);
        }
        match self.at {
            Some(at) if Instant::now() >= at => Some(Halt::Timeout),
            _ => None,
        }
    }
}

/// How often, in steps, a loop that places one buffer per step asks [`Deadline::poll`]: cheap
/// enough never to show in a profile, frequent enough to stop within milliseconds.
pub(crate) const POLL_EVERY: usize = 1024;

impl Deadline {
    /// The deadline's verdict at step `step` (from 0) of a placement loop, looked at only every
    /// [`POLL_EVERY`] steps: `Err` with why the solve must stop, else `Ok`.
    pub(crate) fn poll(&self, step: usize) -> Result<(), Halt> {
        if step % POLL_EVERY != POLL_EVERY - 1 {
            return Ok(());
        }
        self.expired().map_or(Ok(()), Err)
    }
}

/// Why a solve could not run at all: the request itself is wrong (an unknown solver, a setting it
/// does not have or cannot honour). Everything else, including "nothing fits", a time limit and a
/// cancel, is an [`crate::Outcome`] with its [`crate::Stopped`] reason.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SolveError {
    #[error("unsupported: {0}")]
    Unsupported(String),
    #[error("no such solver: {0}")]
    UnknownSolver(String),
}

/// Why a solver's work ended without a plan of its own. It lives inside the solvers, whose
/// [`crate::Solver::solve`] turns it into an outcome (see [`crate::solvers::conclude`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Halt {
    /// A proof that no plan fits.
    #[error("infeasible: {0}")]
    Infeasible(String),
    #[error("time limit reached")]
    Timeout,
    #[error("cancelled")]
    Cancelled,
    /// An offset this solver chose would pass u64: it has no plan (another solver may).
    #[error("buffer {buffer}: offset {offset} + size {size} overflows u64")]
    Overflow { buffer: String, offset: u64, size: u64 },
    /// The request cannot be served (a parameter's value, a missing preset).
    #[error("unsupported: {0}")]
    Unsupported(String),
}

impl From<SolveError> for Halt {
    fn from(error: SolveError) -> Self {
        match error {
            SolveError::Unsupported(what) => Halt::Unsupported(what),
            SolveError::UnknownSolver(name) => Halt::Unsupported(format!("no such solver: {name}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_flag_sees_its_ancestors_cancel_but_not_the_reverse() {
        let root = CancelFlag::new();
        let child = root.child();
        let grandchild = child.child();
        grandchild.cancel();
        assert!(grandchild.is_cancelled());
        assert!(!child.is_cancelled() && !root.is_cancelled());
        let other = child.child();
        root.cancel();
        assert!(child.is_cancelled() && other.is_cancelled());
    }
}
