//! `SolveResult`: a run's [`Summary`] with its plan, as Python reads it (pyo3 getters over the
//! core's summary, so every field means what the CLI's JSON line says).

use memplan::StatValue;
use memplan::Stopped;
use memplan::run::{Run, Summary};
use numpy::PyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::problem::{Reduced, offsets_array};

/// The answer of one run: the plan (``offsets``) and what is known about it. Every plan has
/// passed memplan's independent validator (``valid``; ``violations`` lists what it found).
#[pyclass(frozen, module = "memplan")]
pub struct SolveResult {
    summary: Summary,
    offsets: Option<Vec<u64>>,
    placement_order: Vec<usize>,
}

impl SolveResult {
    pub fn new(problem: &memplan::Problem, run: &Run) -> SolveResult {
        SolveResult {
            summary: run.summary(problem),
            offsets: run.outcome.plan.as_ref().map(|plan| plan.offsets.clone()),
            placement_order: run.outcome.plan.as_ref().map(|plan| plan.placement_order.clone()).unwrap_or_default(),
        }
    }
}

/// A pickled [`SolveResult`]: the summary as the CLI's JSON line, the offsets, the placement order.
type PickledResult = (String, Option<Vec<u64>>, Vec<usize>);

/// A pickled [`SolveResult`] back (see its `__reduce__`).
#[pyfunction]
pub fn _restore_result(summary: &str, offsets: Option<Vec<u64>>, placement_order: Vec<usize>) -> PyResult<SolveResult> {
    let summary: Summary = serde_json::from_str(summary).map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(SolveResult { summary, offsets, placement_order })
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

    /// Pickling (a process pool sends results back this way): the CLI's JSON line and the plan.
    /// Floats keep the six significant digits the JSON line gives them.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Reduced<'py, PickledResult>> {
        let this = slf.get();
        let text = serde_json::to_string(&this.summary).map_err(|e| PyValueError::new_err(e.to_string()))?;
        let restore = slf.py().import("memplan._memplan")?.getattr("_restore_result")?;
        Ok((restore, (text, this.offsets.clone(), this.placement_order.clone())))
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
