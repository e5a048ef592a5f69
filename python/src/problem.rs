//! `memplan.Problem`: an instance read by the core's parsers (CSV, JSON) or built from columns
//! (NumPy arrays or sequences), held as the core's [`Document`] so that it writes back the way it
//! was read.

use std::sync::Arc;

use memplan::format::{self, Document, Format, Offsets, ReadOptions};
use memplan::{Buffer, Semantics};
use numpy::{PyArray1, PyArrayMethods};
use pyo3::prelude::*;

use crate::errors::{input_error, input_errors, io_error, request_error};

/// A memory planning instance: buffers with a size and a lifetime ``[start, end)`` (in the
/// problem's time unit), optionally an alignment, a pinned offset and a capacity.
///
/// Make one with ``Problem.from_csv``, ``Problem.from_json``, ``Problem.from_text`` or
/// ``Problem.from_arrays``; importers (``memplan.import_tflite``, ``memplan.import_xla``) make
/// them from models. A problem is immutable.
#[pyclass(frozen, module = "memplan")]
pub struct Problem {
    pub document: Arc<Document>,
}

impl Problem {
    pub fn new(document: Document) -> Problem {
        Problem { document: Arc::new(document) }
    }

    pub fn problem(&self) -> &memplan::Problem {
        &self.document.problem
    }
}

fn semantics(py: Python<'_>, name: &str) -> PyResult<Semantics> {
    Semantics::parse(name)
        .ok_or_else(|| request_error(py, format!("semantics '{name}' is not one of half-open, inclusive, exclusive")))
}

/// What `__reduce__` returns to pickle: the callable that rebuilds the object and its arguments.
pub type Reduced<'py, Args> = (Bound<'py, PyAny>, Args);

/// Parses `text` as the CLI and the page do; `file` names the input in errors.
fn read(
    py: Python<'_>,
    text: &str,
    format: Option<Format>,
    semantics: Semantics,
    file: Option<&str>,
) -> PyResult<Problem> {
    let options = ReadOptions { format, semantics, offsets: Offsets::Pinned };
    // Parsing a large file takes a while: other Python threads may run meanwhile.
    let read = py.detach(|| format::read(text, &options));
    match read {
        Ok(document) => Ok(Problem::new(document)),
        Err(errors) => Err(input_errors(
            py,
            &match file {
                Some(file) => errors.in_file(file),
                None => errors,
            },
        )),
    }
}

fn read_file(py: Python<'_>, path: &str, format: Format, semantics_name: &str) -> PyResult<Problem> {
    let semantics = semantics(py, semantics_name)?;
    let bytes = py.detach(|| std::fs::read(path)).map_err(|e| io_error(std::path::Path::new(path), &e))?;
    // Not text (not UTF-8, or a model file): an InputError at the place, like any bad input.
    let text = format::text_of(&bytes, Some(path)).map_err(|errors| input_errors(py, &errors.in_file(path)))?;
    read(py, text, Some(format), semantics, Some(path))
}

/// A column of non-negative integers from a NumPy array (any integer dtype) or a sequence of
/// Python ints; `name` names it in errors (with the index of a bad value).
pub fn column(py: Python<'_>, name: &str, values: &Bound<'_, PyAny>) -> PyResult<Vec<u64>> {
    if let Ok(array) = values.cast::<PyArray1<u64>>() {
        return Ok(array.readonly().as_array().to_vec());
    }
    if let Ok(array) = values.cast::<PyArray1<i64>>() {
        return unsigned(py, name, &array.readonly().as_array().to_vec());
    }
    // A sequence of Python ints, exactly (NumPy would turn ints past 2^63 into floats).
    if !values.hasattr("__array_interface__")?
        && let Ok(ints) = values.extract::<Vec<u64>>()
    {
        return Ok(ints);
    }
    // Anything else through numpy.asarray: other integer dtypes, negative or non-integer values
    // (found and named below).
    let array = py.import("numpy")?.call_method1("asarray", (values,))?;
    let ndim: usize = array.getattr("ndim")?.extract()?;
    if ndim != 1 {
        return Err(input_error(py, format!("{name}: a one-dimensional array is expected, not {ndim} dimensions")));
    }
    if array.len()? == 0 {
        return Ok(Vec::new());
    }
    let dtype = array.getattr("dtype")?;
    let kind: String = dtype.getattr("kind")?.extract()?;
    match kind.as_str() {
        "u" => {
            Ok(array.call_method1("astype", ("uint64",))?.cast_into::<PyArray1<u64>>()?.readonly().as_array().to_vec())
        }
        "i" => {
            let signed = array.call_method1("astype", ("int64",))?.cast_into::<PyArray1<i64>>()?;
            unsigned(py, name, &signed.readonly().as_array().to_vec())
        }
        // Python ints too large for int64 (sizes near 2^64) arrive as objects.
        "O" => array
            .try_iter()?
            .enumerate()
            .map(|(i, item)| {
                item?
                    .extract::<u64>()
                    .map_err(|_| input_error(py, format!("{name}[{i}]: an integer from 0 to 2^64 - 1 is expected")))
            })
            .collect(),
        _ => Err(input_error(py, format!("{name}: integers are expected, not {}", dtype.str()?))),
    }
}

fn unsigned(py: Python<'_>, name: &str, values: &[i64]) -> PyResult<Vec<u64>> {
    values
        .iter()
        .enumerate()
        .map(|(i, &v)| u64::try_from(v).map_err(|_| input_error(py, format!("{name}[{i}]: {v} is negative"))))
        .collect()
}

/// The offsets of a plan, as NumPy's `uint64`.
pub fn offsets_array<'py>(py: Python<'py>, offsets: &[u64]) -> Bound<'py, PyArray1<u64>> {
    PyArray1::from_slice(py, offsets)
}

#[pymethods]
impl Problem {
    /// Reads a MiniMalloc CSV file (columns ``id,lower,upper,size`` and optionally ``alignment``,
    /// ``offset``, ``name``, ...). ``semantics`` says what the lifetimes mean: ``half-open``
    /// (``[lower, upper)``, MiniMalloc's), ``inclusive`` or ``exclusive``.
    ///
    /// Raises ``memplan.InputError`` listing every problem with its line and column, and
    /// ``OSError`` when the file cannot be read.
    #[staticmethod]
    #[pyo3(signature = (path, semantics = "half-open"))]
    fn from_csv(py: Python<'_>, path: std::path::PathBuf, semantics: &str) -> PyResult<Problem> {
        read_file(py, &path.to_string_lossy(), Format::Csv, semantics)
    }

    /// Reads a JSON instance (``{"buffers": [{"id", "start", "end", "size", ...}], ...}``, as
    /// ``memplan`` writes it). Raises ``memplan.InputError`` with the line and column of each problem.
    #[staticmethod]
    #[pyo3(signature = (path, semantics = "half-open"))]
    fn from_json(py: Python<'_>, path: std::path::PathBuf, semantics: &str) -> PyResult<Problem> {
        read_file(py, &path.to_string_lossy(), Format::Json, semantics)
    }

    /// Parses an instance held in a string: ``format`` is ``"csv"``, ``"json"`` or ``None`` to tell
    /// from the text (JSON starts with ``{``).
    #[staticmethod]
    #[pyo3(signature = (text, format = None, semantics = "half-open"))]
    fn from_text(py: Python<'_>, text: &str, format: Option<&str>, semantics: &str) -> PyResult<Problem> {
        let format = match format {
            None => None,
            Some("csv") => Some(Format::Csv),
            Some("json") => Some(Format::Json),
            Some(other) => return Err(request_error(py, format!("format '{other}' is not one of csv, json"))),
        };
        let semantics = self::semantics(py, semantics)?;
        read(py, text, format, semantics, None)
    }

    /// Builds an instance from columns: buffer ``i`` lives in ``[starts[i], ends[i])`` and takes
    /// ``sizes[i]`` bytes. Each column is a one-dimensional NumPy array of any integer dtype or a
    /// sequence of ints. ``alignment`` is one int for every buffer or a column; ``offsets``
    /// pins every buffer at an offset (a plan to check with ``memplan.validate``, or fixed
    /// buffers the planner must keep); ``capacity`` is the memory available. Buffer ids are
    /// the indices ``"0"``, ``"1"``, ...
    ///
    /// Raises ``memplan.InputError`` naming the column and index of a bad value (a negative
    /// number, ``end <= start``, an alignment of 0, a pinned offset off its alignment, columns of different
    /// lengths).
    #[staticmethod]
    #[pyo3(signature = (starts, ends, sizes, alignment = None, offsets = None, capacity = None))]
    fn from_arrays(
        py: Python<'_>,
        starts: &Bound<'_, PyAny>,
        ends: &Bound<'_, PyAny>,
        sizes: &Bound<'_, PyAny>,
        alignment: Option<&Bound<'_, PyAny>>,
        offsets: Option<&Bound<'_, PyAny>>,
        capacity: Option<u64>,
    ) -> PyResult<Problem> {
        let starts = column(py, "starts", starts)?;
        let ends = column(py, "ends", ends)?;
        let sizes = column(py, "sizes", sizes)?;
        let n = starts.len();
        let same_length = |name: &str, values: &[u64]| {
            if values.len() == n {
                Ok(())
            } else {
                Err(input_error(py, format!("{name} has {} values and starts {n}", values.len())))
            }
        };
        same_length("ends", &ends)?;
        same_length("sizes", &sizes)?;
        let alignments = match alignment {
            None => vec![1; n],
            Some(value) => match value.extract::<u64>() {
                Ok(one) => vec![one; n],
                Err(_) => column(py, "alignment", value)?,
            },
        };
        same_length("alignment", &alignments)?;
        let pinned = offsets.map(|values| column(py, "offsets", values)).transpose()?;
        if let Some(pinned) = &pinned {
            same_length("offsets", pinned)?;
        }
        let buffers: Vec<Buffer> = (0..n)
            .map(|i| {
                let buffer = Buffer::new(i.to_string(), starts[i], ends[i], sizes[i]).with_alignment(alignments[i]);
                match &pinned {
                    Some(pinned) => buffer.pinned_at(pinned[i]),
                    None => buffer,
                }
            })
            .collect();
        let problem = py.detach(|| memplan::Problem::new(buffers, capacity));
        match problem {
            Ok(problem) => Ok(Problem::new(Document::new(problem, Format::Csv))),
            Err(errors) => Err(input_errors(py, &errors)),
        }
    }

    fn __len__(&self) -> usize {
        self.problem().len()
    }

    fn __repr__(&self) -> String {
        let problem = self.problem();
        let capacity = problem.capacity().map_or_else(String::new, |c| format!(", capacity={c}"));
        format!("<memplan.Problem buffers={} max_load={}{capacity}>", problem.len(), problem.max_load())
    }

    /// Buffer ids, in order (strings: a CSV's ``id`` column, a tensor's index, ...).
    #[getter]
    fn ids(&self) -> Vec<String> {
        self.problem().buffers().iter().map(|b| b.id.to_string()).collect()
    }

    /// The names the compiler gave the buffers (``None`` for a buffer without one).
    #[getter]
    fn names(&self) -> Vec<Option<String>> {
        self.problem().buffers().iter().map(|b| b.name.clone()).collect()
    }

    /// Lifetime starts (half-open ``[start, end)``), as NumPy ``uint64``.
    #[getter]
    fn starts<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u64>> {
        PyArray1::from_iter(py, self.problem().buffers().iter().map(|b| b.start))
    }

    /// Lifetime ends (exclusive), as NumPy ``uint64``.
    #[getter]
    fn ends<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u64>> {
        PyArray1::from_iter(py, self.problem().buffers().iter().map(|b| b.end))
    }

    /// Sizes in bytes, as NumPy ``uint64``.
    #[getter]
    fn sizes<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u64>> {
        PyArray1::from_iter(py, self.problem().buffers().iter().map(|b| b.size))
    }

    /// Alignments (every offset a multiple of it; 1 when none was given), as NumPy ``uint64``.
    #[getter]
    fn alignments<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u64>> {
        PyArray1::from_iter(py, self.problem().buffers().iter().map(|b| b.alignment()))
    }

    /// The offsets written in the input when every buffer has one (a plan file, or
    /// ``from_arrays(..., offsets=...)``), else ``None``.
    #[getter]
    fn offsets<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyArray1<u64>>> {
        let pinned: Option<Vec<u64>> = self.problem().buffers().iter().map(|b| b.pinned).collect();
        pinned.map(|offsets| offsets_array(py, &offsets))
    }

    /// The most bytes alive at once (L): every plan's makespan is at least this.
    #[getter]
    fn max_load(&self) -> u64 {
        self.problem().max_load()
    }

    /// The instance's own lower bound on the makespan (L, a pinned buffer's top, what
    /// alignment forces).
    #[getter]
    fn lower_bound(&self) -> u64 {
        self.problem().lower_bound()
    }

    /// The capacity the input gives, if any (``memplan.solve(capacity=...)`` overrides it).
    #[getter]
    fn capacity(&self) -> Option<u64> {
        self.problem().capacity()
    }

    /// What the reader did that is no error (an ignored column, shifted times), a line each.
    #[getter]
    fn notes(&self) -> Vec<String> {
        self.document.notes.iter().map(ToString::to_string).collect()
    }

    /// The instance as MiniMalloc CSV (the input's columns), with an ``offset`` column when
    /// ``offsets`` (a plan) is given.
    #[pyo3(signature = (offsets = None))]
    fn to_csv(&self, py: Python<'_>, offsets: Option<&Bound<'_, PyAny>>) -> PyResult<String> {
        self.write(py, offsets, Format::Csv)
    }

    /// Pickling (a process pool sends problems this way): the instance as its JSON text, read back
    /// by ``Problem.from_text``, which gives the same buffers, pinned offsets, capacity and
    /// semantics. The CSV column order of the input is not kept.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Reduced<'py, (String, &'static str, &'static str)>> {
        let this = slf.get();
        let text = format::write(&this.document, &[], Format::Json);
        let semantics = this.problem().semantics().name();
        Ok((slf.get_type().getattr("from_text")?, (text, "json", semantics)))
    }

    /// The instance as JSON, with an ``offset`` on every buffer when ``offsets`` is given.
    #[pyo3(signature = (offsets = None))]
    fn to_json(&self, py: Python<'_>, offsets: Option<&Bound<'_, PyAny>>) -> PyResult<String> {
        self.write(py, offsets, Format::Json)
    }
}

impl Problem {
    fn write(&self, py: Python<'_>, offsets: Option<&Bound<'_, PyAny>>, format: Format) -> PyResult<String> {
        let offsets = offsets.map(|o| column(py, "offsets", o)).transpose()?.unwrap_or_default();
        if !offsets.is_empty() && offsets.len() != self.problem().len() {
            return Err(input_error(
                py,
                format!("offsets has {} values for {} buffers", offsets.len(), self.problem().len()),
            ));
        }
        Ok(format::write(&self.document, &offsets, format))
    }
}
