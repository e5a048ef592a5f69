//! The front door: one request that every face (the CLI's flags, the page's message, Python's
//! keyword arguments, a Rust caller) translates into, checked and resolved once here.
//!
//! [`Request::prepare`] reads everything that does not depend on the problem (the solver looked up
//! in the catalogue, its parameters, the capacity's text, the time limit, the thread count);
//! [`Prepared::run`] resolves the rest against one problem (the capacity that applies, the warm
//! start), starts the one clock of the run and solves. Solvers see resolved options only.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::registry;
use crate::model::{Plan, Problem};
use crate::options::{CancelFlag, Effort, Params, ProgressSink, SolveError, SolveOptions, time_limit_from_secs};
use crate::size;
use crate::solvers::Solver;

/// A capacity as a face has it: a number of bytes, or text such as `"1MiB"` (see
/// [`size::parse_size`]). Empty text is no capacity.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Capacity {
    Bytes(u64),
    Text(String),
}

impl Capacity {
    /// The capacity in bytes (`None` for empty text); the one place a capacity's text is read.
    ///
    /// ```
    /// use memplan::run::Capacity;
    /// assert_eq!(Capacity::from("1MiB").bytes(), Ok(Some(1 << 20)));
    /// assert_eq!(Capacity::from(4096).bytes(), Ok(Some(4096)));
    /// assert!(Capacity::from("12 parsecs").bytes().is_err());
    /// ```
    pub fn bytes(&self) -> Result<Option<u64>, SolveError> {
        match self {
            Capacity::Bytes(bytes) => Ok(Some(*bytes)),
            Capacity::Text(text) if text.trim().is_empty() => Ok(None),
            Capacity::Text(text) => size::parse_size(text).map(Some).map_err(SolveError::InvalidCapacity),
        }
    }

    /// An optional capacity's bytes: `None` when absent or empty.
    pub fn resolve(capacity: Option<&Capacity>) -> Result<Option<u64>, SolveError> {
        capacity.map_or(Ok(None), Capacity::bytes)
    }
}

impl From<u64> for Capacity {
    fn from(bytes: u64) -> Self {
        Capacity::Bytes(bytes)
    }
}

impl From<&str> for Capacity {
    fn from(text: &str) -> Self {
        Capacity::Text(text.to_string())
    }
}

impl From<String> for Capacity {
    fn from(text: String) -> Self {
        Capacity::Text(text)
    }
}

/// Everything a caller may ask of one solve, as the faces give it. Absent settings take the
/// CLI's defaults: solver `auto`, no capacity beyond the problem's own, no time limit, seed 0,
/// normal effort, all cores.
///
/// ```
/// use memplan::run::Request;
/// use memplan::{Buffer, Problem};
///
/// let problem = Problem::new(vec![Buffer::new("a", 0, 2, 4), Buffer::new("b", 1, 3, 4)], None).unwrap();
/// let run = Request::new("auto").capacity("8").seed(7).run(&problem).unwrap();
/// assert!(run.is_valid());
/// assert_eq!(run.outcome.makespan(), Some(8));
/// ```
#[derive(Clone)]
pub struct Request {
    /// The solver by name (`memplan solvers` lists them; `auto` races a portfolio).
    pub solver: String,
    /// Overrides the problem's own capacity when set.
    pub capacity: Option<Capacity>,
    pub effort: Effort,
    pub seed: u64,
    /// Seconds; `None` for none. Zero has already passed (the solvers return what they have).
    pub time_limit: Option<f64>,
    /// Worker threads, 1 to [`crate::options::MAX_THREADS`]; `None` for all cores.
    pub threads: Option<usize>,
    /// Solver-specific settings by name, as text.
    pub params: Params,
    /// A plan to start from (an offset per buffer, e.g. a compiler's): the answer is never worse.
    pub warm_start: Option<Vec<u64>>,
    pub cancel: CancelFlag,
    pub progress: Option<ProgressSink>,
}

impl Default for Request {
    fn default() -> Self {
        Request::new("auto")
    }
}

impl std::fmt::Debug for Request {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Request")
            .field("solver", &self.solver)
            .field("capacity", &self.capacity)
            .field("effort", &self.effort)
            .field("seed", &self.seed)
            .field("time_limit", &self.time_limit)
            .field("threads", &self.threads)
            .field("params", &self.params)
            .field("warm_start", &self.warm_start.as_ref().map(Vec::len))
            .finish()
    }
}

impl Request {
    /// A request for the named solver with every other setting at its default.
    pub fn new(solver: impl Into<String>) -> Request {
        Request {
            solver: solver.into(),
            capacity: None,
            effort: Effort::default(),
            seed: 0,
            time_limit: None,
            threads: None,
            params: Params::new(),
            warm_start: None,
            cancel: CancelFlag::new(),
            progress: None,
        }
    }

    pub fn capacity(mut self, capacity: impl Into<Capacity>) -> Request {
        self.capacity = Some(capacity.into());
        self
    }

    pub fn effort(mut self, effort: Effort) -> Request {
        self.effort = effort;
        self
    }

    pub fn seed(mut self, seed: u64) -> Request {
        self.seed = seed;
        self
    }

    /// A time limit in seconds.
    pub fn time_limit(mut self, seconds: f64) -> Request {
        self.time_limit = Some(seconds);
        self
    }

    pub fn threads(mut self, threads: usize) -> Request {
        self.threads = Some(threads);
        self
    }

    pub fn param(mut self, name: impl Into<String>, value: impl Into<String>) -> Request {
        self.params.set(name, value);
        self
    }

    pub fn warm_start(mut self, offsets: Vec<u64>) -> Request {
        self.warm_start = Some(offsets);
        self
    }

    pub fn cancel(mut self, cancel: CancelFlag) -> Request {
        self.cancel = cancel;
        self
    }

    pub fn progress(mut self, progress: ProgressSink) -> Request {
        self.progress = Some(progress);
        self
    }

    /// The settings every solver shares, read and checked: the capacity's text, the time limit,
    /// the thread count (the solver and its parameters are [`Request::prepare`]'s). A bench that
    /// runs several solvers with one request reads them here once.
    pub fn options(&self) -> Result<SolveOptions, SolveError> {
        let options = SolveOptions {
            capacity: Capacity::resolve(self.capacity.as_ref())?,
            time_limit: self.time_limit.map(time_limit_from_secs).transpose()?.flatten(),
            seed: self.seed,
            threads: self.threads,
            started: None,
            effort: self.effort,
            cancel: self.cancel.clone(),
            progress: self.progress.clone(),
            params: self.params.clone(),
            start: None,
        };
        options.check()?;
        Ok(options)
    }

    /// The request checked before any problem is seen: the solver found, every setting read. A
    /// batch of problems solved with one request is checked once.
    pub fn prepare(&self) -> Result<Prepared, SolveError> {
        let mut prepared = Prepared::new(&self.solver, self.options()?)?;
        prepared.warm_start = self.warm_start.clone().map(|offsets| (offsets, Vec::new()));
        Ok(prepared)
    }

    /// Checks the request, solves `problem` and validates the plan ([`Prepared::run`]).
    pub fn run(&self, problem: &Problem) -> Result<super::Run, SolveError> {
        self.prepare()?.run(problem)
    }
}

/// A request the catalogue and every check have accepted: what [`Prepared::run`] needs besides
/// the problem.
#[derive(Clone)]
pub struct Prepared {
    solver: Arc<dyn Solver>,
    /// The request's options; `capacity` is the request's own (the problem's is added per run).
    options: SolveOptions,
    /// Offsets and placement order to start from.
    warm_start: Option<(Vec<u64>, Vec<usize>)>,
}

impl std::fmt::Debug for Prepared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prepared")
            .field("solver", &self.solver.name())
            .field("options", &self.options)
            .field("warm_start", &self.warm_start.as_ref().map(|(offsets, _)| offsets.len()))
            .finish()
    }
}

impl Prepared {
    /// `options` for the named solver, checked as a [`Request`] is: the solver exists, it declares
    /// every parameter and accepts their values, the thread count is one it can start.
    pub fn new(solver: &str, mut options: SolveOptions) -> Result<Prepared, SolveError> {
        let solver = registry::by_name(solver)?;
        let declared = solver.parameters();
        let unknown: Vec<String> =
            options.params.names().filter(|n| !declared.iter().any(|p| p.name == *n)).map(String::from).collect();
        if !unknown.is_empty() {
            return Err(SolveError::UnknownParameter {
                solver: solver.name().to_string(),
                names: unknown,
                known: declared.iter().map(|p| p.name.to_string()).collect(),
            });
        }
        options.params.check(&declared)?;
        options.check()?;
        let warm_start = options.start.take().map(|plan| (plan.offsets.clone(), plan.placement_order.clone()));
        Ok(Prepared { solver, options, warm_start })
    }

    pub fn solver(&self) -> &dyn Solver {
        self.solver.as_ref()
    }

    /// The options every run of this request starts from (the problem's capacity is added per run).
    pub fn options(&self) -> &SolveOptions {
        &self.options
    }

    /// Solves `problem` from the prepared warm start, if any.
    pub fn run(&self, problem: &Problem) -> Result<super::Run, SolveError> {
        let start = self.warm_start.as_ref().map(|(offsets, order)| (offsets.as_slice(), order.as_slice()));
        self.run_from(problem, start)
    }

    /// Solves `problem` from `warm_start` (offsets and the order they were placed in, which may be
    /// empty) instead of the prepared one. Here the capacity that applies is settled (the
    /// request's, else the problem's) and the warm start is checked against the problem, once.
    pub fn run_from(
        &self,
        problem: &Problem,
        warm_start: Option<(&[u64], &[usize])>,
    ) -> Result<super::Run, SolveError> {
        let started = web_time::Instant::now();
        let mut options = self.options.clone();
        // The run's clock (unless the caller's options carry one already) and the capacity that
        // applies, resolved once for every solver below.
        options.resolve(problem);
        let warm = match warm_start {
            Some((offsets, order)) => {
                if offsets.len() != problem.len() {
                    return Err(SolveError::InvalidStart(format!(
                        "it has {} offsets for {} buffers",
                        offsets.len(),
                        problem.len()
                    )));
                }
                crate::diff::check(problem, offsets).map_err(|e| SolveError::InvalidStart(e.to_string()))?;
                let plan = Arc::new(Plan::new(problem, offsets.to_vec(), order.to_vec()));
                options.start = Some(plan.clone());
                Some(plan)
            }
            None => None,
        };
        super::execute(problem, self.solver.as_ref(), &options, warm, started)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Buffer;

    fn two() -> Problem {
        Problem::new(vec![Buffer::new("a", 0, 2, 512), Buffer::new("b", 1, 3, 512)], None).unwrap()
    }

    #[test]
    fn a_capacity_as_text_or_as_bytes_is_one_value() {
        let problem = two();
        for capacity in [Capacity::from("1KiB"), Capacity::from(1024), Capacity::from(" 1 KiB ")] {
            let run = Request::new("slff").capacity(capacity.clone()).run(&problem).unwrap();
            assert_eq!(run.outcome.capacity, Some(1024), "{capacity:?}");
        }
        assert_eq!(Request::new("slff").capacity("").options().unwrap().capacity, None);
    }

    #[test]
    fn the_problems_capacity_applies_when_the_request_gives_none() {
        let problem = Problem::new(two().buffers().to_vec(), Some(2048)).unwrap();
        assert_eq!(Request::new("slff").run(&problem).unwrap().outcome.capacity, Some(2048));
        // The request's own overrides it.
        assert_eq!(Request::new("slff").capacity(4096).run(&problem).unwrap().outcome.capacity, Some(4096));
    }

    #[test]
    fn each_refusal_has_its_own_kind() {
        let problem = two();
        let refusal = |request: Request| request.run(&problem).unwrap_err();
        assert!(matches!(refusal(Request::new("nonsense")), SolveError::UnknownSolver(name) if name == "nonsense"));
        assert!(matches!(
            refusal(Request::new("slff").param("iterations", "3")),
            SolveError::UnknownParameter { solver, names, .. } if solver == "slff" && names == ["iterations"]
        ));
        assert!(matches!(
            refusal(Request::new("idealloc").param("iterations", "many")),
            SolveError::InvalidParameter { name, .. } if name == "iterations"
        ));
        assert!(matches!(refusal(Request::new("slff").capacity("12 parsecs")), SolveError::InvalidCapacity(_)));
        assert!(matches!(refusal(Request::new("slff").time_limit(-1.0)), SolveError::InvalidTimeLimit(_)));
        assert!(matches!(refusal(Request::new("slff").threads(0)), SolveError::InvalidThreads(0)));
        assert!(matches!(refusal(Request::new("slff").warm_start(vec![0])), SolveError::InvalidStart(_)));
        assert!(matches!(refusal(Request::new("slff").warm_start(vec![0, 0])), SolveError::InvalidStart(_)));
    }

    /// A library caller that holds options (not a request) gets the same checks: the thread count
    /// was once checked by the CLI and Python but not by `run::solve`.
    #[test]
    fn options_from_a_library_caller_are_checked_as_a_request_is() {
        let problem = two();
        let options = SolveOptions { threads: Some(0), ..SolveOptions::default() };
        assert_eq!(super::super::solve(&problem, "slff", &options).unwrap_err(), SolveError::InvalidThreads(0));
        let options = SolveOptions { params: Params::new().with("orderings", "0"), ..SolveOptions::default() };
        assert!(matches!(
            super::super::solve(&problem, "minimalloc", &options).unwrap_err(),
            SolveError::InvalidParameter { name, .. } if name == "orderings"
        ));
    }

    #[test]
    fn a_prepared_request_runs_on_many_problems_with_each_ones_warm_start() {
        let prepared = Request::new("auto").prepare().unwrap();
        let problem = two();
        let run = prepared.run_from(&problem, Some((&[0, 512], &[]))).unwrap();
        assert_eq!(run.warm_start, Some(1024));
        assert_eq!(prepared.run(&problem).unwrap().warm_start, None);
    }

    #[test]
    fn a_lookup_builds_no_solver() {
        let first = registry::by_name("minimalloc").unwrap();
        let again = registry::by_name("minimalloc").unwrap();
        assert!(Arc::ptr_eq(&first, &again), "the catalogue's own solver, not a new one");
    }
}
