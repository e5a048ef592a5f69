//! `import_tflite`, `import_pte` and `import_xla`: the core's importers on a model file, as `memplan import`
//! runs them, with the compiler's own plan beside the instance.

use memplan::format::{Document, Format};
use memplan::import::{ImportError, pte, tflite, xla};
use numpy::PyArray1;
use pyo3::prelude::*;

use crate::errors::model_error;
use crate::problem::{Problem, offsets_array};

/// A model's instance with the plan its compiler (or runtime) makes for it.
#[pyclass(frozen, module = "memplan")]
pub struct ImportedModel {
    problem: Py<Problem>,
    compiler_plan: Option<Vec<u64>>,
    compiler: String,
    summary: String,
}

#[pymethods]
impl ImportedModel {
    /// The instance: one buffer per planned tensor (TFLite; id = the tensor's index) or per
    /// group of shared values (XLA; id = the canonical logical buffer id).
    #[getter]
    fn problem(&self, py: Python<'_>) -> Py<Problem> {
        self.problem.clone_ref(py)
    }

    /// The compiler's own offsets for the instance's buffers (NumPy ``uint64``), or ``None``
    /// when the model does not hold them (an XLA dump whose assignment cannot be read as one).
    #[getter]
    fn compiler_plan<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyArray1<u64>>> {
        self.compiler_plan.as_deref().map(|offsets| offsets_array(py, offsets))
    }

    /// Whose plan ``compiler_plan`` is, in words.
    #[getter]
    fn compiler(&self) -> String {
        self.compiler.clone()
    }

    /// The import at a glance, the JSON line ``memplan import`` prints (operators, tensors,
    /// traces, ...) as a dict.
    #[getter]
    fn summary<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        py.import("json")?.call_method1("loads", (&self.summary,))
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        let buffers = self.problem.get().problem().len();
        let _ = py;
        format!("<memplan.ImportedModel buffers={buffers} compiler={:?}>", self.compiler)
    }
}

fn read(py: Python<'_>, path: &std::path::Path) -> PyResult<Vec<u8>> {
    py.detach(|| std::fs::read(path)).map_err(|e| crate::errors::io_error(path, &e))
}

/// Imports subgraph ``subgraph`` of a TFLite (LiteRT) model as the instance LiteRT's arena
/// planner solves (``runtime="litert"``), or TFLite Micro's (``runtime="micro"``), with
/// LiteRT's own offsets (``compiler_plan``, LiteRT only). ``dynamic_dim`` is the size of ``-1``
/// dimensions; every offset is aligned to ``alignment``.
///
/// Raises ``memplan.ModelError`` (a ``ValueError``) saying what is wrong with the file.
#[pyfunction]
#[pyo3(signature = (path, subgraph = 0, runtime = "litert", alignment = 64, dynamic_dim = 1))]
pub fn import_tflite(
    py: Python<'_>,
    path: std::path::PathBuf,
    subgraph: usize,
    runtime: &str,
    alignment: u64,
    dynamic_dim: u64,
) -> PyResult<ImportedModel> {
    let name = path.to_string_lossy().into_owned();
    let runtime = tflite::Runtime::parse(runtime)
        .ok_or_else(|| model_error(py, &name, "request", format!("runtime '{runtime}' is not one of litert, micro")))?;
    let bytes = read(py, &path)?;
    let options = tflite::ImportOptions { dynamic_dim, alignment, runtime };
    let refuse = |error: ImportError| refused(py, &name, error);
    let instance = py.detach(|| tflite::import(&bytes, subgraph, &options)).map_err(refuse)?;
    let compiler_plan = (runtime == tflite::Runtime::Litert).then(|| py.detach(|| tflite::compiler_plan(&instance)));
    let mut summary = serde_json::to_value(instance.summary()).map_err(|e| model_error(py, &name, "malformed", e))?;
    summary["subgraphs"] = tflite::read(&bytes).map(|m| m.subgraphs.len()).unwrap_or(0).into();
    let problem = Problem::new(Document::new(instance.problem, Format::Csv));
    Ok(ImportedModel {
        problem: Py::new(py, problem)?,
        compiler_plan,
        compiler: "LiteRT's arena planner (the tflite preset)".into(),
        summary: summary.to_string(),
    })
}

/// Imports an ExecuTorch program (``.pte``): the instance of planned memory ``memory_id`` (1,
/// ExecuTorch's arena, by default) of its first method, one buffer per storage (id = the value
/// index of its first tensor; a view shares its base's), times = instructions, with ExecuTorch's
/// own offsets (``compiler_plan``). Sizes and offsets are aligned to ``alignment`` (ExecuTorch's
/// planner: 16).
///
/// Raises ``memplan.ModelError`` (a ``ValueError``) saying what is wrong with the file.
#[pyfunction]
#[pyo3(signature = (path, memory_id = 1, alignment = 16))]
pub fn import_pte(py: Python<'_>, path: std::path::PathBuf, memory_id: u32, alignment: u64) -> PyResult<ImportedModel> {
    let name = path.to_string_lossy().into_owned();
    let bytes = read(py, &path)?;
    let refuse = |error: ImportError| refused(py, &name, error);
    let options = pte::ImportOptions { memory_id, alignment };
    let instance = py.detach(|| pte::import(&bytes, &options)).map_err(refuse)?;
    let summary = serde_json::to_value(instance.summary()).map_err(|e| model_error(py, &name, "malformed", e))?;
    let compiler_plan = Some(instance.compiler_plan.clone());
    let problem = Problem::new(Document::new(instance.problem, Format::Csv));
    Ok(ImportedModel {
        problem: Py::new(py, problem)?,
        compiler_plan,
        compiler: "ExecuTorch's memory planner (the program's own offsets)".into(),
        summary: summary.to_string(),
    })
}

/// Imports an XLA dump (an ``HloProto`` with its buffer assignment, ``*.hlo.pb``): the instance
/// of heap simulator trace ``trace`` (the one with the most events by default) and XLA's own
/// offsets for it (``compiler_plan``). Every offset is aligned to ``alignment``.
///
/// Raises ``memplan.ModelError`` (a ``ValueError``) saying what is wrong with the file.
#[pyfunction]
#[pyo3(signature = (path, trace = None, alignment = 64))]
pub fn import_xla(
    py: Python<'_>,
    path: std::path::PathBuf,
    trace: Option<usize>,
    alignment: u64,
) -> PyResult<ImportedModel> {
    let name = path.to_string_lossy().into_owned();
    let bytes = read(py, &path)?;
    let refuse = |error: ImportError| refused(py, &name, error);
    let traces = xla::traces(&bytes).map_err(refuse)?;
    let options = xla::ImportOptions { alignment };
    let instance = py.detach(|| xla::import(&bytes, trace, &options)).map_err(refuse)?;
    let mut summary =
        serde_json::to_value(instance.summary(traces.len())).map_err(|e| model_error(py, &name, "malformed", e))?;
    let compiler_plan = match xla::compiler_plan(&instance) {
        Ok(plan) => {
            summary["compiler_makespan"] = plan.heap_size.into();
            Some(plan.offsets.clone())
        }
        Err(error) => {
            summary["compiler_plan_error"] = error.to_string().into();
            None
        }
    };
    let problem = Problem::new(Document::new(instance.problem, Format::Csv));
    Ok(ImportedModel {
        problem: Py::new(py, problem)?,
        compiler_plan,
        compiler: "XLA's buffer assignment".into(),
        summary: summary.to_string(),
    })
}

/// An importer's refusal as a `ModelError` whose `kind` says which kind of refusal it is.
fn refused(py: Python<'_>, name: &str, error: ImportError) -> PyErr {
    let kind = match error {
        ImportError::Malformed(..) | ImportError::NotAModel(_) => "malformed",
        ImportError::Unsupported(_) => "unsupported",
        ImportError::Request(_) => "request",
    };
    model_error(py, name, kind, error)
}
