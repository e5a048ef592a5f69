//! `memplan._memplan`, the native half of the Python package `memplan`: a thin facade over the
//! core (`crate/`), the third beside the CLI and the wasm facade. Like them it parses with the
//! core's readers, solves through the core's front door ([`memplan::run::Request`]: the solver by
//! name, the checked request, the independent validator) and reports the run's summary; nothing is
//! decided here that the other edges would decide differently. The Python package
//! (`python/memplan/`) adds the enum `Stopped` and the exception classes.

mod cancel;
mod errors;
mod import;
mod problem;
mod result;
mod solve;

use pyo3::prelude::*;

/// Every reason a run can stop, by the core's name, so that the Python enum `memplan.Stopped`
/// is checked against the core (the package's tests).
fn stopped_names() -> Vec<String> {
    memplan::Stopped::ALL.iter().map(|&s| result::stopped_name(s)).collect()
}

/// The group of every reason by the core's names (`"proven"`, `"heuristic"`, `"interrupted"`,
/// `"infeasible"`), and the reasons that prove a plan optimal: `memplan.Stopped` reads both
/// rather than keeping its own copy of the rule.
fn stopped_groups() -> Vec<(String, &'static str, bool)> {
    memplan::Stopped::ALL.iter().map(|&s| (result::stopped_name(s), s.group().name(), s.is_optimal())).collect()
}

/// memplan's native module; use the package ``memplan``, which re-exports everything here.
#[pymodule]
fn _memplan(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("STOPPED_NAMES", stopped_names())?;
    m.add("STOPPED_GROUPS", stopped_groups())?;
    m.add_class::<problem::Problem>()?;
    m.add_class::<result::SolveResult>()?;
    m.add_class::<cancel::CancelToken>()?;
    m.add_class::<import::ImportedModel>()?;
    m.add_function(wrap_pyfunction!(solve::solve, m)?)?;
    m.add_function(wrap_pyfunction!(solve::solve_many, m)?)?;
    m.add_function(wrap_pyfunction!(solve::validate, m)?)?;
    m.add_function(wrap_pyfunction!(solve::solvers, m)?)?;
    m.add_function(wrap_pyfunction!(result::_restore_result, m)?)?;
    m.add_function(wrap_pyfunction!(import::import_tflite, m)?)?;
    m.add_function(wrap_pyfunction!(import::import_pte, m)?)?;
    m.add_function(wrap_pyfunction!(import::import_xla, m)?)?;
    Ok(())
}
