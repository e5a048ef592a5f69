//! The core's refusals as the typed Python exceptions of `memplan.errors` (all `ValueError`s), so
//! that a caller catches a kind of error, never matches a message. The classes live in Python,
//! where their attributes and docstrings are plain to read; this module only fills them in.

use memplan::{InputError, InputErrors, SolveError};
use pyo3::call::PyCallArgs;
use pyo3::prelude::*;

/// An instance of the exception class `name` of `memplan.errors`, made with `args`.
fn raise<'py>(py: Python<'py>, name: &str, args: impl PyCallArgs<'py>) -> PyErr {
    let made = py.import("memplan.errors").and_then(|module| module.getattr(name)).and_then(|class| class.call1(args));
    match made {
        Ok(error) => PyErr::from_value(error),
        Err(error) => error,
    }
}

/// Every problem of an input, each with its line and column when the input has lines, as an
/// `InputError` (the first problem's place is the exception's `line` and `column`).
pub fn input_errors(py: Python<'_>, errors: &InputErrors) -> PyErr {
    let located: Vec<(Option<usize>, Option<usize>, String)> =
        errors.errors.iter().map(|e| (e.line, e.column, e.message.clone())).collect();
    raise(py, "InputError", (errors.to_string(), located, errors.file.clone()))
}

/// One problem of an input that has no lines (arrays, an option's value).
pub fn input_error(py: Python<'_>, message: impl Into<String>) -> PyErr {
    input_errors(py, &InputErrors::single(InputError::new(message)))
}

/// A solve request the core refuses: an unknown solver, a parameter or value it cannot use, a warm
/// start plan that is not a plan of the instance.
pub fn solve_error(py: Python<'_>, error: &SolveError) -> PyErr {
    let class = match error {
        SolveError::UnknownSolver(_) => "UnknownSolverError",
        SolveError::InvalidStart(_) => "InvalidWarmStartError",
        // Every other kind is a value or setting the solver cannot use.
        _ => "RequestError",
    };
    raise(py, class, (error.to_string(),))
}

/// A request the facade refuses before the core sees it (an unknown effort or semantics name).
pub fn request_error(py: Python<'_>, message: impl Into<String>) -> PyErr {
    raise(py, "RequestError", (message.into(),))
}

/// A model file an importer refuses: `kind` is `malformed`, `unsupported` or `request`.
pub fn model_error(py: Python<'_>, path: &str, kind: &str, message: impl std::fmt::Display) -> PyErr {
    raise(py, "ModelError", (format!("{path}: {message}"), kind.to_string(), path.to_string()))
}

/// A file that could not be read, as the `OSError` Python itself raises for it (`OSError(errno,
/// strerror, filename)` picks the subclass, e.g. `FileNotFoundError`): its text names the reason
/// and the path. An error without an OS code is an `OSError` with the path and the reason.
pub fn io_error(path: &std::path::Path, error: &std::io::Error) -> PyErr {
    let shown = path.display().to_string();
    match error.raw_os_error() {
        Some(code) => {
            // The reason without Rust's " (os error N)" tail, which the errno already gives.
            let reason = std::io::Error::from_raw_os_error(code).to_string();
            let reason = reason.split(" (os error").next().unwrap_or(&reason).to_string();
            pyo3::exceptions::PyOSError::new_err((code, reason, shown))
        }
        None => pyo3::exceptions::PyOSError::new_err(format!("{shown}: {error}")),
    }
}
