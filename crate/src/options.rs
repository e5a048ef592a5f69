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
/// `crate::model::wire`'s rule in JSON.
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

/// Everything a solver may be asked, in the core's types: what a [`crate::Request`] becomes once
/// checked and resolved. The run resolves it once against the problem ([`SolveOptions::resolve`]:
/// the capacity that applies, the instant the clock started); solvers only read the result, so a
/// capacity is resolved in one place and a time limit has one clock however many solvers a run
/// calls. A caller of [`crate::Solver::solve`] itself may leave both unset: the solve resolves
/// them on entry.
#[derive(Clone, Default)]
pub struct SolveOptions {
    /// The capacity that applies. Unset before [`SolveOptions::resolve`] means the problem's own;
    /// after it, the request's or else the problem's: solvers read this field, never the problem's.
    pub capacity: Option<u64>,
    /// How long the solve may take, counted from [`SolveOptions::started`] (the run's one clock).
    pub time_limit: Option<Duration>,
    /// When the run began: every time limit in these options counts from it. Set once, by the run
    /// (or by [`crate::Solver::solve`] for a caller that calls a solver directly); a part of a solve
    /// inherits it, so that no solver or portfolio member restarts the clock.
    pub started: Option<Instant>,
    pub seed: u64,
    /// Worker threads for parallel solvers, 1 to [`MAX_THREADS`]; `None` = all cores (the CLI
    /// builds the pool). [`SolveOptions::check`] refuses other counts.
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
            .field("started", &self.started)
            .field("seed", &self.seed)
            .field("threads", &self.threads)
            .field("effort", &self.effort)
            .field("cancelled", &self.cancel.is_cancelled())
            .field("params", &self.params)
            .field("start", &self.start.as_ref().map(|plan| plan.makespan))
            .finish()
    }
}

/// The most worker threads a solve may ask for. Each solve builds its own pool, and tens of
/// thousands of OS threads take long to start and reserve a stack each, while memplan's
/// parallelism (the portfolio's members, two racing searchers, idealloc's iterations) gains
/// nothing from more threads than a large machine has cores. A fixed number rather than a
/// multiple of this machine's cores, so that a command valid on one machine is valid on all.
pub const MAX_THREADS: usize = 256;

impl SolveOptions {
    /// Refuses what no solver can honour, with one message wherever the options come from (the
    /// CLI, the page, a library caller): a thread count outside `1..=`[`MAX_THREADS`].
    pub fn check(&self) -> Result<(), SolveError> {
        match self.threads {
            Some(threads) if !(1..=MAX_THREADS).contains(&threads) => Err(SolveError::InvalidThreads(threads)),
            _ => Ok(()),
        }
    }

    /// The options resolved against `problem`, once: the capacity that applies (these options',
    /// else the problem's) and the clock started now unless a run already started it. Resolving
    /// resolved options changes nothing, so a solver called by another keeps its caller's clock.
    pub fn resolve(&mut self, problem: &crate::model::Problem) {
        self.capacity = self.capacity.or(problem.capacity());
        self.started.get_or_insert_with(Instant::now);
    }

    /// The point in time after which the solve must stop: the time limit counted from when the
    /// run started ([`SolveOptions::started`]; from now when nothing started it, as for a part of
    /// a solver called on its own).
    pub fn deadline(&self) -> Deadline {
        let started = self.started.unwrap_or_else(Instant::now);
        Deadline { at: self.time_limit.and_then(|limit| started.checked_add(limit)), cancel: self.cancel.clone() }
    }

    /// These options with at most `budget` left from now (a turn of a search that takes turns),
    /// never past the run's own deadline.
    pub fn within(&self, budget: Duration) -> SolveOptions {
        let now = Instant::now();
        let started = self.started.unwrap_or(now);
        let turn = now.saturating_duration_since(started).saturating_add(budget);
        let time_limit = Some(self.time_limit.map_or(turn, |limit| limit.min(turn)));
        SolveOptions { time_limit, started: Some(started), ..self.clone() }
    }

    pub fn report(&self, progress: Progress) {
        if let Some(sink) = &self.progress {
            sink(&progress);
        }
    }
}

/// A time limit given in seconds (the CLI's `--time-limit`, the page's `timeLimit`) as the
/// options hold it. Zero is a limit that has already passed: solvers stop at their first look at
/// the clock and return what they have (`auto` always has a plan). A limit too long for a
/// [`Duration`] (about 585 billion years) or `+inf` is no limit (`None`), as a deadline that far
/// ahead is never reached anyway. `NaN` and negative numbers are errors.
pub(crate) fn time_limit_from_secs(secs: f64) -> Result<Option<Duration>, SolveError> {
    if secs.is_nan() || secs < 0.0 {
        return Err(SolveError::InvalidTimeLimit(secs.to_string()));
    }
    // Non-negative and not NaN: the only failure left is a value too large.
    Ok(Duration::try_from_secs_f64(secs).ok())
}

/// Solver-specific settings, by name, as text: the CLI (`--param name=value`) and the page pass them
/// through unchanged and the solver parses what it declared. Names are kebab-case
/// (`subtree-limit`); a name written with underscores (`subtree_limit`, as some solvers named
/// their parameters before) names the same parameter ([`Params::canonical_name`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "std::collections::BTreeMap<String, String>")]
pub struct Params(std::collections::BTreeMap<String, String>);

impl From<std::collections::BTreeMap<String, String>> for Params {
    fn from(values: std::collections::BTreeMap<String, String>) -> Self {
        values.into_iter().fold(Params::new(), |params, (name, value)| params.with(name, value))
    }
}

impl Params {
    pub fn new() -> Self {
        Params::default()
    }

    /// The one spelling of a parameter's name: kebab-case, so `subtree_limit` is `subtree-limit`.
    pub fn canonical_name(name: &str) -> String {
        name.trim().replace('_', "-")
    }

    pub fn set(&mut self, name: impl Into<String>, value: impl Into<String>) {
        self.0.insert(Params::canonical_name(&name.into()), value.into());
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
    /// [`SolveError::InvalidParameter`] naming the parameter.
    pub fn get<T: std::str::FromStr>(&self, name: &str) -> Result<Option<T>, SolveError> {
        match self.0.get(&Params::canonical_name(name)) {
            None => Ok(None),
            Some(text) => text.parse::<T>().map(Some).map_err(|_| SolveError::InvalidParameter {
                name: name.to_string(),
                reason: format!("'{text}' is not a valid {}", short_type_name::<T>()),
            }),
        }
    }

    /// Like [`Params::get`] with a default.
    pub fn get_or<T: std::str::FromStr>(&self, name: &str, default: T) -> Result<T, SolveError> {
        Ok(self.get(name)?.unwrap_or(default))
    }

    /// Checks the value of every parameter in `declared` that is set against its kind and range
    /// (the first refused is the error). Names not declared are left alone: a solver that runs
    /// another passes its options on, and [`crate::run::solve`] refuses unknown names.
    pub fn check(&self, declared: &[Parameter]) -> Result<(), SolveError> {
        declared.iter().try_for_each(|p| self.0.get(p.name).map_or(Ok(()), |text| p.check(text)))
    }
}

fn short_type_name<T>() -> &'static str {
    let full = std::any::type_name::<T>();
    full.rsplit("::").next().unwrap_or(full)
}

/// A setting a solver accepts, for `memplan solvers` and the playground's controls.
///
/// Every number parameter declares the values it accepts, and [`Params::check`] refuses a value
/// outside them with an error that names the parameter and the range: one answer for every
/// solver, never a silent clamp. Solvers check their parameters when a solve starts.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Parameter {
    pub name: &'static str,
    /// `int`, `float` or `bool`: how the page draws the control.
    pub kind: &'static str,
    /// The value used when the parameter is not set, as text.
    pub default: String,
    pub description: &'static str,
    /// The values accepted (`None` for a `bool`).
    #[cfg_attr(test, ts(type = "{ min: string, max: string | null, text: string } | null"))]
    pub range: Option<Range>,
}

impl Parameter {
    /// A whole number from `min` to `max` (both included).
    pub fn int(name: &'static str, default: u64, min: u64, max: u64, description: &'static str) -> Parameter {
        Parameter { name, kind: "int", default: default.to_string(), description, range: Some(Range::Int { min, max }) }
    }

    /// A whole number of at least `min`, with no upper end (a count or budget that only u64 caps);
    /// its range reads "at least `min`".
    pub fn at_least(name: &'static str, default: u64, min: u64, description: &'static str) -> Parameter {
        Parameter::int(name, default, min, u64::MAX, description)
    }

    /// A finite number of at least `min` (and at most `max` when given).
    pub fn float(name: &'static str, default: f64, min: f64, max: Option<f64>, description: &'static str) -> Parameter {
        let range = Some(Range::Float { min, max });
        Parameter { name, kind: "float", default: default.to_string(), description, range }
    }

    /// `true` or `false`.
    pub fn flag(name: &'static str, default: bool, description: &'static str) -> Parameter {
        Parameter { name, kind: "bool", default: default.to_string(), description, range: None }
    }

    /// Whether `text` is a value of this parameter; the error names the parameter and what it takes.
    pub fn check(&self, text: &str) -> Result<(), SolveError> {
        let name = self.name;
        let refuse = |reason: String| Err(SolveError::InvalidParameter { name: name.to_string(), reason });
        match self.range {
            None => match text.parse::<bool>() {
                Ok(_) => Ok(()),
                Err(_) => refuse(format!("'{text}' is not true or false")),
            },
            Some(range @ Range::Int { min, max }) => match text.parse::<u64>() {
                Ok(value) if (min..=max).contains(&value) => Ok(()),
                Ok(value) => refuse(format!("{value} is outside its range, {range}")),
                Err(_) => refuse(format!("'{text}' is not a whole number ({range})")),
            },
            Some(range @ Range::Float { min, max }) => match text.parse::<f64>() {
                Ok(value) if value.is_finite() && value >= min && max.is_none_or(|max| value <= max) => Ok(()),
                Ok(value) => refuse(format!("{value} is outside its range, {range}")),
                Err(_) => refuse(format!("'{text}' is not a number ({range})")),
            },
        }
    }
}

/// The values a number parameter accepts, both ends included.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Range {
    Int {
        min: u64,
        max: u64,
    },
    /// Finite numbers only; `max: None` leaves the top open.
    Float {
        min: f64,
        max: Option<f64>,
    },
}

impl std::fmt::Display for Range {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Range::Int { min, max: u64::MAX } => write!(f, "at least {min}"),
            Range::Int { min, max } => write!(f, "{min} to {max}"),
            Range::Float { min, max: None } => write!(f, "at least {min}"),
            Range::Float { min, max: Some(max) } => write!(f, "{min} to {max}"),
        }
    }
}

/// As `{min, max, text}`, the ends as decimal text (a u64 does not survive a JS number); `max`
/// is null when the top is open.
impl Serialize for Range {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let (min, max) = match *self {
            Range::Int { min, max } => (min.to_string(), (max != u64::MAX).then(|| max.to_string())),
            Range::Float { min, max } => (min.to_string(), max.map(|max| max.to_string())),
        };
        let mut out = serializer.serialize_struct("Range", 3)?;
        out.serialize_field("min", &min)?;
        out.serialize_field("max", &max)?;
        out.serialize_field("text", &self.to_string())?;
        out.end()
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
///
/// One variant per kind of refusal, so that the faces (the CLI's exit status, the page's refusal,
/// Python's exception class) choose by kind and never by message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SolveError {
    /// No solver has this name (`memplan solvers` lists them).
    #[error("no such solver: {0}")]
    UnknownSolver(String),
    /// Parameters the solver does not declare.
    #[error("{solver} has no parameter {} (it has: {})", .names.join(", "), if .known.is_empty() { "none".to_string() } else { .known.join(", ") })]
    UnknownParameter { solver: String, names: Vec<String>, known: Vec<String> },
    /// A parameter's value the parameter does not accept; `reason` says what it takes.
    #[error("parameter {name}: {reason}")]
    InvalidParameter { name: String, reason: String },
    /// A capacity given as text that is not a size.
    #[error("capacity: {0}")]
    InvalidCapacity(String),
    /// A time limit that is not a non-negative number of seconds (as given).
    #[error("time limit: {0} is not a non-negative number of seconds")]
    InvalidTimeLimit(String),
    /// A thread count outside `1..=`[`MAX_THREADS`].
    #[error("threads: {0} is outside 1 to {MAX_THREADS} (leave it unset for all cores)")]
    InvalidThreads(usize),
    /// The machine would not start the thread pool asked for.
    #[error("cannot start {threads} threads: {reason}")]
    ThreadPool { threads: usize, reason: String },
    /// The warm start plan ([`SolveOptions::start`]) is not a valid plan of the instance; the
    /// message names the problem.
    #[error("the warm start plan is not valid: {0}")]
    InvalidStart(String),
    /// The solver cannot honour something of this problem (a constraint it does not support, a
    /// size past what it can represent): another solver may. The message says what.
    #[error("unsupported: {0}")]
    Unsupported(String),
}

impl SolveError {
    /// Whether the refusal is about a value of the request (an option the caller can change)
    /// rather than the solver or the problem: the CLI reports these as invalid options.
    pub fn is_invalid_option(&self) -> bool {
        matches!(
            self,
            SolveError::InvalidParameter { .. }
                | SolveError::InvalidCapacity(_)
                | SolveError::InvalidTimeLimit(_)
                | SolveError::InvalidThreads(_)
        )
    }
}

/// Why a solver's work ended without a plan of its own. It lives inside the solvers, whose
/// [`crate::Solver::solve`] turns it into an outcome (see `crate::solvers::conclude`).
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
    /// The solver cannot honour something of the problem (a missing preset, a size it cannot
    /// represent).
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// A refusal of the request of another kind (a parameter's value), passed up as it is.
    #[error("{0}")]
    Request(SolveError),
}

impl From<SolveError> for Halt {
    fn from(error: SolveError) -> Self {
        match error {
            SolveError::Unsupported(what) => Halt::Unsupported(what),
            other => Halt::Request(other),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_limits_in_seconds() {
        assert_eq!(time_limit_from_secs(0.0), Ok(Some(Duration::ZERO)));
        assert_eq!(time_limit_from_secs(1.5), Ok(Some(Duration::from_millis(1500))));
        assert_eq!(time_limit_from_secs(1e20), Ok(None));
        assert_eq!(time_limit_from_secs(f64::INFINITY), Ok(None));
        assert_eq!(time_limit_from_secs(f64::MAX), Ok(None));
        for bad in [-1.0, -0.001, f64::NEG_INFINITY, f64::NAN] {
            assert!(matches!(time_limit_from_secs(bad), Err(SolveError::InvalidTimeLimit(_))), "{bad}");
        }
        // A limit that fits a Duration but not an Instant is no deadline either.
        let far = time_limit_from_secs(1e19).unwrap();
        let options = SolveOptions { time_limit: far, ..SolveOptions::default() };
        assert_eq!(options.deadline().remaining(), None);
    }

    #[test]
    fn thread_counts_are_bounded() {
        for threads in [None, Some(1), Some(MAX_THREADS)] {
            assert_eq!(SolveOptions { threads, ..SolveOptions::default() }.check(), Ok(()));
        }
        for threads in [0, MAX_THREADS + 1, 100_000, usize::MAX] {
            let error = SolveOptions { threads: Some(threads), ..SolveOptions::default() }.check().unwrap_err();
            assert!(error.to_string().contains(&MAX_THREADS.to_string()), "{error}");
        }
    }

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
