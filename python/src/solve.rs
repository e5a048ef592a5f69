//! Solving from Python: `solve`, `solve_many` and `validate` over the core's runs
//! ([`memplan::run`]), exactly as the CLI and the wasm facade call them, and `SolveResult`, the
//! run's [`Summary`] with its plan. The solve runs on a thread of its own with the GIL released;
//! the calling thread waits on it and polls Python's signal handlers, so that Ctrl-C (or any
//! handler) cancels the run through its [`CancelFlag`].

use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use memplan::format::Document;
use memplan::model::StatValue;
use memplan::run::{self, Run, Summary, registry};
use memplan::{CancelFlag, Effort, Params, Plan, SolveError, SolveOptions, Stopped};
use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use rayon::prelude::*;

use crate::errors::{request_error, solve_error};
use crate::problem::{Problem, column, offsets_array};

/// How often the waiting thread looks at Python's signal handlers (and so how soon Ctrl-C
/// cancels a solve).
const SIGNAL_POLL: Duration = Duration::from_millis(20);

/// A cancel button for solves: pass it as ``cancel=`` to ``memplan.solve`` or
/// ``memplan.solve_many`` and call ``cancel()`` from any thread (or a signal handler); the
/// solve then stops soon with its best plan so far, ``stopped`` = ``Stopped.CANCELLED``.
/// A token stays cancelled: use a new one for the next solve.
#[pyclass(frozen, module = "memplan")]
pub struct CancelToken {
    flag: CancelFlag,
}

#[pymethods]
impl CancelToken {
    #[new]
    fn new() -> CancelToken {
        CancelToken { flag: CancelFlag::new() }
    }

    /// Asks every solve that holds this token to stop.
    fn cancel(&self) {
        self.flag.cancel();
    }

    /// ``True`` once ``cancel()`` was called.
    #[getter]
    fn cancelled(&self) -> bool {
        self.flag.is_cancelled()
    }

    fn __repr__(&self) -> String {
        format!("<memplan.CancelToken cancelled={}>", if self.flag.is_cancelled() { "True" } else { "False" })
    }
}

/// The answer of one run: the plan (``offsets``) and what is known about it. Every plan has
/// passed memplan's independent validator (``valid``; ``violations`` lists what it found).
#[pyclass(frozen, module = "memplan")]
pub struct SolveResult {
    summary: Summary,
    offsets: Option<Vec<u64>>,
    placement_order: Vec<usize>,
}

impl SolveResult {
    fn new(problem: &memplan::Problem, run: &Run) -> SolveResult {
        SolveResult {
            summary: run.summary(problem),
            offsets: run.outcome.plan.as_ref().map(|plan| plan.offsets.clone()),
            placement_order: run.outcome.plan.as_ref().map(|plan| plan.placement_order.clone()).unwrap_or_default(),
        }
    }
}

/// `stopped` as the Python enum `memplan.Stopped` (its values are the core's names).
fn stopped<'py>(py: Python<'py>, stopped: Stopped) -> PyResult<Bound<'py, PyAny>> {
    let name = stopped_name(stopped);
    py.import("memplan")?.getattr("Stopped")?.call1((name,))
}

/// The core's name of a reason (`time_limit`), as the CLI's JSON line says it.
pub fn stopped_name(stopped: Stopped) -> String {
    match serde_json::to_value(stopped) {
        Ok(serde_json::Value::String(name)) => name,
        _ => format!("{stopped:?}"),
    }
}

#[pymethods]
impl SolveResult {
    /// The offset of every buffer (NumPy ``uint64``, indexed like the problem's buffers), or
    /// ``None`` when the run has no plan.
    #[getter]
    fn offsets<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyArray1<u64>>> {
        self.offsets.as_deref().map(|offsets| offsets_array(py, offsets))
    }

    /// Buffer indices in the order the solver placed them (empty when unknown).
    #[getter]
    fn placement_order(&self) -> Vec<usize> {
        self.placement_order.clone()
    }

    /// The plan's peak address (max of offset + size), or ``None`` without a plan.
    #[getter]
    fn makespan(&self) -> Option<u64> {
        self.summary.makespan
    }

    /// The most bytes alive at once (L).
    #[getter]
    fn max_load(&self) -> u64 {
        self.summary.max_load
    }

    /// A proven lower bound on every plan's makespan.
    #[getter]
    fn lower_bound(&self) -> u64 {
        self.summary.lower_bound
    }

    /// The capacity the run was held to, if any.
    #[getter]
    fn capacity(&self) -> Option<u64> {
        self.summary.capacity
    }

    /// makespan − max_load, or ``None`` without a plan.
    #[getter]
    fn fragmentation(&self) -> Option<u64> {
        self.summary.fragmentation
    }

    /// Why the run ended (``memplan.Stopped``): a proof (``LOWER_BOUND``, ``OPTIMAL``,
    /// ``INFEASIBLE``), as asked (``FITS``), a heuristic's end (``COMPLETED``), or an interruption
    /// (``BUDGET``, ``TIME_LIMIT``, ``CANCELLED``).
    #[getter]
    fn stopped<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        stopped(py, self.summary.stopped)
    }

    /// ``stopped`` in words.
    #[getter]
    fn verdict(&self) -> String {
        self.summary.verdict.clone()
    }

    /// What was proven or why no plan came back, for people.
    #[getter]
    fn detail(&self) -> Option<String> {
        self.summary.detail.clone()
    }

    /// The makespan is proven to be the lowest possible.
    #[getter]
    fn optimal(&self) -> bool {
        self.summary.optimal
    }

    /// A plan came back and it is within the capacity (any plan, without one).
    #[getter]
    fn feasible(&self) -> bool {
        self.summary.feasible
    }

    /// The independent validator accepted the plan and every claim about it.
    #[getter]
    fn valid(&self) -> bool {
        self.summary.valid
    }

    /// What the validator found wrong, a sentence each (empty when ``valid``).
    #[getter]
    fn violations(&self) -> Vec<String> {
        self.summary.violations.clone()
    }

    /// The solver asked for.
    #[getter]
    fn solver(&self) -> String {
        self.summary.solver.clone()
    }

    /// For ``auto``, the member whose plan this is; ``"warm"`` when the warm start plan won.
    #[getter]
    fn winner(&self) -> Option<String> {
        self.summary.winner.clone()
    }

    /// The makespan of the warm start plan, when one was given.
    #[getter]
    fn warm_start(&self) -> Option<u64> {
        self.summary.warm_start
    }

    /// The number of buffers.
    #[getter]
    fn buffers(&self) -> usize {
        self.summary.buffers
    }

    /// The solve's wall time in milliseconds, as the solver measured it.
    #[getter]
    fn elapsed_ms(&self) -> f64 {
        self.summary.elapsed_ms
    }

    /// The seed the run used.
    #[getter]
    fn seed(&self) -> u64 {
        self.summary.seed
    }

    /// Solver statistics (nodes, backtracks, ...) by name: ints, floats or strings.
    #[getter]
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let stats = PyDict::new(py);
        for (name, value) in &self.summary.stats {
            match value {
                StatValue::Count(count) => stats.set_item(name, count)?,
                StatValue::Ratio(ratio) => stats.set_item(name, ratio)?,
                StatValue::Text(text) => stats.set_item(name, text)?,
            }
        }
        Ok(stats)
    }

    /// Everything but the plan as a dict, with the keys of the CLI's JSON line (``stopped`` as
    /// its string value; integers exact).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = &self.summary;
        let dict = PyDict::new(py);
        dict.set_item("solver", &s.solver)?;
        dict.set_item("winner", &s.winner)?;
        dict.set_item("warm_start", s.warm_start)?;
        dict.set_item("buffers", s.buffers)?;
        dict.set_item("max_load", s.max_load)?;
        dict.set_item("lower_bound", s.lower_bound)?;
        dict.set_item("makespan", s.makespan)?;
        dict.set_item("capacity", s.capacity)?;
        dict.set_item("fragmentation", s.fragmentation)?;
        dict.set_item("fragmentation_pct", s.fragmentation_pct)?;
        dict.set_item("stopped", stopped_name(s.stopped))?;
        dict.set_item("verdict", &s.verdict)?;
        dict.set_item("detail", &s.detail)?;
        dict.set_item("optimal", s.optimal)?;
        dict.set_item("feasible", s.feasible)?;
        dict.set_item("valid", s.valid)?;
        dict.set_item("violations", &s.violations)?;
        dict.set_item("elapsed_ms", s.elapsed_ms)?;
        dict.set_item("seed", s.seed)?;
        dict.set_item("stats", self.stats(py)?)?;
        Ok(dict)
    }

    fn __repr__(&self) -> String {
        let s = &self.summary;
        let makespan = s.makespan.map_or_else(|| "None".to_string(), |m| m.to_string());
        format!(
            "<memplan.SolveResult solver={} makespan={makespan} lower_bound={} stopped={} valid={}>",
            s.winner.as_deref().unwrap_or(&s.solver),
            s.lower_bound,
            stopped_name(s.stopped),
            if s.valid { "True" } else { "False" }
        )
    }
}

/// The options of a solve, from the Python arguments, checked as the CLI checks its flags.
#[allow(clippy::too_many_arguments)]
fn options(
    py: Python<'_>,
    solver: &str,
    capacity: Option<&Bound<'_, PyAny>>,
    time_limit: Option<f64>,
    seed: u64,
    effort: &str,
    threads: Option<usize>,
    params: Option<&Bound<'_, PyDict>>,
    cancel: Option<&CancelToken>,
) -> PyResult<SolveOptions> {
    registry::by_name(solver).map_err(|e| solve_error(py, &e))?;
    let capacity = match capacity {
        None => None,
        Some(value) => Some(match value.extract::<u64>() {
            Ok(bytes) => bytes,
            Err(_) => match value.extract::<String>() {
                Ok(text) => {
                    memplan::size::parse_size(&text).map_err(|e| request_error(py, format!("capacity: {e}")))?
                }
                Err(_) => {
                    return Err(request_error(
                        py,
                        "capacity: a number of bytes (0 to 2^64 - 1) or a size such as '1MiB'",
                    ));
                }
            },
        }),
    };
    let time_limit = match time_limit {
        Some(secs) => memplan::options::time_limit_from_secs(secs).map_err(|e| solve_error(py, &e))?,
        None => None,
    };
    let effort = Effort::parse(effort)
        .ok_or_else(|| request_error(py, format!("effort '{effort}' is not one of low, normal, high")))?;
    let mut parameters = Params::new();
    if let Some(params) = params {
        for (name, value) in params.iter() {
            let value = match value.extract::<bool>() {
                // Python's True/False as the core's flags read them.
                Ok(flag) => flag.to_string(),
                Err(_) => value.str()?.to_string(),
            };
            parameters.set(name.str()?.to_string(), value);
        }
    }
    let options = SolveOptions {
        capacity,
        time_limit,
        seed,
        threads,
        effort,
        params: parameters,
        cancel: cancel.map_or_else(CancelFlag::new, |token| token.flag.clone()),
        progress: None,
        start: None,
    };
    options.check().map_err(|e| solve_error(py, &e))?;
    Ok(options)
}

/// Runs `work` on a thread of its own with the GIL released, polling Python's signal handlers
/// while it runs. A handler that raises (Ctrl-C's `KeyboardInterrupt`) cancels the work through
/// `cancel`; its exception is raised once the work has stopped, so no solve outlives the call.
fn run_detached<T: Send + 'static>(
    py: Python<'_>,
    cancel: &CancelFlag,
    work: impl FnOnce() -> T + Send + 'static,
) -> PyResult<T> {
    // The worker sets the flag and wakes the waiting thread, which otherwise wakes every
    // SIGNAL_POLL to run Python's signal handlers.
    let finished = Arc::new((Mutex::new(false), Condvar::new()));
    let done = finished.clone();
    let worker = std::thread::Builder::new().name("memplan-solve".into()).spawn(move || {
        let value = work();
        let (flag, wake) = &*done;
        *flag.lock().unwrap_or_else(|e| e.into_inner()) = true;
        wake.notify_all();
        value
    })?;
    let mut interrupted = None;
    loop {
        let ended = py.detach(|| {
            let (flag, wake) = &*finished;
            let guard = flag.lock().unwrap_or_else(|e| e.into_inner());
            let (guard, _) =
                wake.wait_timeout_while(guard, SIGNAL_POLL, |ended| !*ended).unwrap_or_else(|e| e.into_inner());
            *guard
        });
        if ended {
            break;
        }
        if interrupted.is_none()
            && let Err(error) = py.check_signals()
        {
            cancel.cancel();
            interrupted = Some(error);
        }
    }
    let value = py.detach(|| worker.join()).unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    match interrupted {
        Some(error) => Err(error),
        None => Ok(value),
    }
}

/// Solves ``problem`` with the named solver (``memplan.solvers()`` lists them; ``auto`` races a
/// portfolio) and returns a ``SolveResult``, its plan checked by memplan's independent validator.
///
/// - ``capacity``: bytes (an int, or a size such as ``"1MiB"``); overrides the problem's own. With
///   one, the run stops at the first plan that fits (``Stopped.FITS``) or proves none does.
/// - ``time_limit``: seconds; the best plan so far when it passes (``Stopped.TIME_LIMIT``).
/// - ``seed``: every random choice comes from it: the same seed gives the same plan as the CLI's
///   ``memplan solve --seed``.
/// - ``effort``: ``"low"``, ``"normal"`` or ``"high"``.
/// - ``warm``: a plan to start from (offsets, e.g. a compiler's); the answer is never worse.
/// - ``threads``: worker threads (all cores by default); ``params``: solver parameters by name.
/// - ``cancel``: a ``memplan.CancelToken``; cancelling it stops the run with its best plan
///   (``Stopped.CANCELLED``).
///
/// The GIL is released while solving. Ctrl-C stops the solve and raises ``KeyboardInterrupt``.
/// Raises ``memplan.UnknownSolverError``, ``memplan.RequestError`` (a parameter or value the
/// solver cannot use) or ``memplan.InvalidWarmStartError`` (``ValueError`` subclasses).
#[pyfunction]
#[pyo3(signature = (problem, solver = "auto", capacity = None, time_limit = None, seed = 0, effort = "normal", warm = None, threads = None, params = None, cancel = None))]
#[allow(clippy::too_many_arguments)]
pub fn solve(
    py: Python<'_>,
    problem: &Problem,
    solver: &str,
    capacity: Option<&Bound<'_, PyAny>>,
    time_limit: Option<f64>,
    seed: u64,
    effort: &str,
    warm: Option<&Bound<'_, PyAny>>,
    threads: Option<usize>,
    params: Option<&Bound<'_, PyDict>>,
    cancel: Option<&CancelToken>,
) -> PyResult<SolveResult> {
    let mut options = options(py, solver, capacity, time_limit, seed, effort, threads, params, cancel)?;
    let document = problem.document.clone();
    if let Some(warm) = warm {
        let offsets = column(py, "warm", warm)?;
        options.start = Some(Arc::new(Plan::new(&document.problem, offsets, Vec::new())));
    }
    let cancel = options.cancel.clone();
    let solver = solver.to_string();
    let (document, run) = run_detached(py, &cancel, move || {
        let run = run::solve(&document.problem, &solver, &options);
        (document, run)
    })?;
    let run = run.map_err(|e| solve_error(py, &e))?;
    Ok(SolveResult::new(&document.problem, &run))
}

/// Solves many problems at once, in parallel on all cores (rayon, the GIL released), with the
/// same arguments as ``memplan.solve`` for each (the same seed too); returns their results in
/// order. ``cancel`` and Ctrl-C stop every solve still running. For many processes or machines,
/// call ``memplan.solve`` from a process pool or a cluster framework instead.
#[pyfunction]
#[pyo3(signature = (problems, solver = "auto", capacity = None, time_limit = None, seed = 0, effort = "normal", threads = None, params = None, cancel = None))]
#[allow(clippy::too_many_arguments)]
pub fn solve_many(
    py: Python<'_>,
    problems: &Bound<'_, PyAny>,
    solver: &str,
    capacity: Option<&Bound<'_, PyAny>>,
    time_limit: Option<f64>,
    seed: u64,
    effort: &str,
    threads: Option<usize>,
    params: Option<&Bound<'_, PyDict>>,
    cancel: Option<&CancelToken>,
) -> PyResult<Vec<SolveResult>> {
    let options = options(py, solver, capacity, time_limit, seed, effort, threads, params, cancel)?;
    let documents: Vec<Arc<Document>> = problems
        .try_iter()?
        .map(|item| Ok(item?.cast::<Problem>()?.get().document.clone()))
        .collect::<PyResult<_>>()?;
    let cancel = options.cancel.clone();
    let solver = solver.to_string();
    let (documents, runs) = run_detached(py, &cancel, move || {
        let runs: Vec<Result<Run, SolveError>> =
            documents.par_iter().map(|document| run::solve(&document.problem, &solver, &options)).collect();
        (documents, runs)
    })?;
    documents
        .iter()
        .zip(runs)
        .enumerate()
        .map(|(i, (document, run))| match run {
            Ok(run) => Ok(SolveResult::new(&document.problem, &run)),
            Err(error) => {
                let error = solve_error(py, &error);
                let note = format!("problem {i} of the batch");
                error.add_note(py, note)?;
                Err(error)
            }
        })
        .collect()
}

/// Checks a plan of ``problem`` (``offsets``, one per buffer: a NumPy array or a sequence) with
/// memplan's independent validator, as ``memplan check`` does: returns a ``SolveResult`` with
/// ``stopped`` = ``Stopped.GIVEN`` (or ``LOWER_BOUND`` when the plan meets the bound), ``valid``
/// and ``violations`` (overlaps, misaligned or moved buffers, a capacity it passes).
#[pyfunction]
#[pyo3(signature = (problem, offsets, capacity = None))]
pub fn validate(
    py: Python<'_>,
    problem: &Problem,
    offsets: &Bound<'_, PyAny>,
    capacity: Option<u64>,
) -> PyResult<SolveResult> {
    let offsets = column(py, "offsets", offsets)?;
    let document = problem.document.clone();
    Ok(py.detach(move || {
        let run = run::given(&document.problem, offsets, capacity);
        SolveResult::new(&document.problem, &run)
    }))
}

/// Every solver as a dict (``name``, ``description``, ``capabilities``, ``parameters``), in the
/// order ``memplan solvers`` lists them. ``greedy-<order>-<fit>`` combinations are solvers too.
#[pyfunction]
pub fn solvers(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let text = serde_json::to_string(&registry::infos()).map_err(|e| request_error(py, e.to_string()))?;
    Ok(py.import("json")?.call_method1("loads", (text,))?.cast_into::<PyList>()?)
}
