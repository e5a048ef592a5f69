//! Solving from Python: `solve`, `solve_many` and `validate` over the core's runs
//! ([`memplan::run`]), exactly as the CLI and the wasm facade call them. The solve runs on a
//! thread of its own with the GIL released ([`run_detached`]).

use std::sync::Arc;

use memplan::format::Document;
use memplan::run::{self, Capacity, Request, Run, registry};
use memplan::{CancelFlag, Effort, Params, SolveError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use rayon::prelude::*;

use crate::cancel::{CancelToken, run_detached};
use crate::errors::{request_error, solve_error};
use crate::problem::{Problem, column};
use crate::result::SolveResult;

/// The Python arguments as the core's request: a translation only (Python's types into Rust's);
/// every value is read and checked by [`Request::prepare`], as for the CLI and the page.
#[allow(clippy::too_many_arguments)]
fn request(
    py: Python<'_>,
    solver: &str,
    capacity: Option<&Bound<'_, PyAny>>,
    time_limit: Option<f64>,
    seed: u64,
    effort: &str,
    threads: Option<usize>,
    params: Option<&Bound<'_, PyDict>>,
    cancel: Option<&CancelToken>,
) -> PyResult<Request> {
    let capacity = match capacity {
        None => None,
        Some(value) => Some(match (value.extract::<u64>(), value.extract::<String>()) {
            (Ok(bytes), _) => Capacity::Bytes(bytes),
            (_, Ok(text)) => Capacity::Text(text),
            _ => {
                return Err(request_error(py, "capacity: a number of bytes (0 to 2^64 - 1) or a size such as '1MiB'"));
            }
        }),
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
    Ok(Request {
        capacity,
        time_limit,
        seed,
        effort,
        threads,
        params: parameters,
        cancel: cancel.map_or_else(CancelFlag::new, |token| token.flag().clone()),
        ..Request::new(solver)
    })
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
    let mut request = request(py, solver, capacity, time_limit, seed, effort, threads, params, cancel)?;
    if let Some(warm) = warm {
        request.warm_start = Some(column(py, "warm", warm)?);
    }
    let prepared = request.prepare().map_err(|e| solve_error(py, &e))?;
    let document = problem.document.clone();
    let (document, run) = run_detached(py, &request.cancel, move || {
        let run = prepared.run(&document.problem);
        (document, run)
    })?;
    let run = run.map_err(|e| solve_error(py, &e))?;
    Ok(SolveResult::new(&document.problem, &run))
}

/// Solves many problems at once, in parallel on all cores (rayon, the GIL released), with the
/// same arguments as ``memplan.solve`` for each (the same seed too); returns their results in
/// order. ``warm``, when given, has one entry per problem: a plan to start from (offsets) or
/// ``None``. ``cancel`` and Ctrl-C stop every solve still running. For many processes or
/// machines, call ``memplan.solve`` from a process pool or a cluster framework instead (problems
/// and results pickle).
#[pyfunction]
#[pyo3(signature = (problems, solver = "auto", capacity = None, time_limit = None, seed = 0, effort = "normal", warm = None, threads = None, params = None, cancel = None))]
#[allow(clippy::too_many_arguments)]
pub fn solve_many(
    py: Python<'_>,
    problems: &Bound<'_, PyAny>,
    solver: &str,
    capacity: Option<&Bound<'_, PyAny>>,
    time_limit: Option<f64>,
    seed: u64,
    effort: &str,
    warm: Option<&Bound<'_, PyAny>>,
    threads: Option<usize>,
    params: Option<&Bound<'_, PyDict>>,
    cancel: Option<&CancelToken>,
) -> PyResult<Vec<SolveResult>> {
    let request = request(py, solver, capacity, time_limit, seed, effort, threads, params, cancel)?;
    // Checked once for the whole batch; each problem is resolved in its own run.
    let prepared = request.prepare().map_err(|e| solve_error(py, &e))?;
    let documents: Vec<Arc<Document>> = problems
        .try_iter()?
        .map(|item| Ok(item?.cast::<Problem>()?.get().document.clone()))
        .collect::<PyResult<_>>()?;
    let starts: Vec<Option<Vec<u64>>> = match warm {
        None => vec![None; documents.len()],
        Some(warm) => {
            let plans: Vec<Bound<'_, PyAny>> = warm.try_iter()?.collect::<PyResult<_>>()?;
            if plans.len() != documents.len() {
                return Err(request_error(
                    py,
                    format!(
                        "warm has {} entries for {} problems (one plan or None each)",
                        plans.len(),
                        documents.len()
                    ),
                ));
            }
            plans
                .iter()
                .enumerate()
                .map(|(i, plan)| match plan.is_none() {
                    true => Ok(None),
                    false => column(py, &format!("warm[{i}]"), plan).map(Some),
                })
                .collect::<PyResult<_>>()?
        }
    };
    let (documents, runs) = run_detached(py, &request.cancel, move || {
        let runs: Vec<Result<Run, SolveError>> = documents
            .par_iter()
            .zip(starts)
            .map(|(document, start)| prepared.run_from(&document.problem, start.as_deref().map(|o| (o, &[][..]))))
            .collect();
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
/// ``stopped`` = ``Stopped.GIVEN``, ``valid`` and ``violations`` (overlaps, misaligned or moved
/// buffers, a capacity it passes). ``optimal`` when the plan is valid and meets the instance's
/// lower bound; an invalid plan proves nothing (no ``offsets`` or ``makespan``, not ``feasible``,
/// ``lower_bound`` the instance's own).
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
