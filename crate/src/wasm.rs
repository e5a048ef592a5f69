//! The browser facade: a thin layer over the library for the playground's Web Worker. Text in,
//! handles and the types of [`crate::protocol`] out (their TypeScript twins are generated), and
//! every refusal thrown as a [`Refusal`]. Values that may pass 2^53 (sizes, times,
//! offsets) cross as `BigUint64Array`s or decimal strings, never as JS numbers.
//!
//! Solving runs as a [`Job`]: in the threaded build it is spawned on the rayon pool and the worker
//! polls it, so the worker stays free to receive a cancel; the single-threaded build has no pool
//! to spawn on, so the job runs inside `start` and the page cancels by ending the worker.

use std::sync::{Arc, Mutex};

use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::format::{self, Document, Format, Offsets, ReadOptions};
use crate::model::{Category, InputError, Problem, Semantics};
use crate::options::{CancelFlag, Effort, Progress, SolveError};
use crate::protocol::{Catalogue, Choice, JobStatus, ParsedSummary, Refusal, SolveRequest};
use crate::run::{Capacity, registry};
use crate::solvers::greedy;
use crate::{generate, metrics, run, size};

#[cfg(target_feature = "atomics")]
pub use wasm_bindgen_rayon::init_thread_pool;

/// The single-threaded build's stand-in, so that both builds export the same API.
#[cfg(not(target_feature = "atomics"))]
#[wasm_bindgen(js_name = initThreadPool)]
pub fn init_thread_pool(_threads: usize) -> js_sys::Promise {
    js_sys::Promise::resolve(&JsValue::UNDEFINED)
}

#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}

/// "threads" or "single": which build this is.
#[wasm_bindgen(js_name = buildKind)]
pub fn build_kind() -> String {
    if cfg!(target_feature = "atomics") { "threads".into() } else { "single".into() }
}

/// Worker threads in the pool (1 in the single-threaded build).
#[wasm_bindgen(js_name = numThreads)]
pub fn num_threads() -> usize {
    rayon::current_num_threads()
}

fn to_js<T: Serialize>(value: &T) -> JsValue {
    // Objects as plain JS objects (not Maps); `None` as `null`, as the generated TypeScript types
    // say (serde-wasm-bindgen's default is `undefined`); integers past 2^53 - 1 arrive as decimal
    // strings (the wire rule), so none is ever rounded.
    let serializer =
        serde_wasm_bindgen::Serializer::new().serialize_maps_as_objects(true).serialize_missing_as_null(true);
    value.serialize(&serializer).unwrap_or(JsValue::NULL)
}

/// A refusal as the value a facade function throws.
fn refuse(refusal: Refusal) -> JsValue {
    to_js(&refusal)
}

fn request_error(message: impl Into<String>) -> JsValue {
    refuse(Refusal::request(message))
}

/// The solvers, their descriptions and what the controls may offer, all from the core.
#[wasm_bindgen(js_name = listSolvers)]
pub fn list_solvers() -> JsValue {
    let choice = |name: &str, description: &str| Choice { name: name.into(), description: description.into() };
    to_js(&Catalogue {
        solvers: registry::infos(),
        orders: greedy::Order::ALL.iter().map(|o| choice(o.name(), o.describe())).collect(),
        fits: greedy::Fit::ALL.iter().map(|f| choice(f.name(), f.describe())).collect(),
        combinations: greedy::describe_combinations(),
        efforts: Effort::ALL.to_vec(),
        semantics: Semantics::ALL.to_vec(),
        max_threads: crate::options::MAX_THREADS,
    })
}

/// The names of the category codes of [`Instance::categories`], code 1 first (input, output,
/// weight, variable, temporary), so that the page never hard-codes the order.
#[wasm_bindgen(js_name = categoryNames)]
pub fn category_names() -> Vec<String> {
    Category::ALL.iter().map(|category| category.name().to_string()).collect()
}

/// A seeded random trace as MiniMalloc CSV, for the page's generator.
#[wasm_bindgen(js_name = generateTrace)]
pub fn generate_trace(buffers: usize, seed: u64) -> String {
    let problem = generate::trace(generate::TraceSpec::new(buffers, seed));
    let document = Document::new(problem, Format::Csv);
    format::write(&document, &[], Format::Csv)
}

/// Parses a size such as `1MiB` into a decimal string; throws a [`Refusal`] saying why not.
#[wasm_bindgen(js_name = parseSize)]
pub fn parse_size(text: &str) -> Result<String, JsValue> {
    size::parse_size(text)
        .map(|v| v.to_string())
        .map_err(|e| refuse(Refusal::input(e.clone(), vec![InputError::new(e)])))
}

/// A parsed instance.
#[wasm_bindgen]
pub struct Instance {
    document: Arc<Document>,
}

#[wasm_bindgen]
impl Instance {
    /// Parses `text` as `format` ("csv", "json" or "" to sniff) in `semantics`. Throws a
    /// [`Refusal`] listing every problem with its line and column; nothing half-loads.
    #[wasm_bindgen(constructor)]
    pub fn parse(text: &str, format: &str, semantics: &str) -> Result<Instance, JsValue> {
        let format = match format {
            "csv" => Some(Format::Csv),
            "json" => Some(Format::Json),
            "" => None,
            other => return Err(request_error(format!("unknown format '{other}'"))),
        };
        let semantics =
            Semantics::parse(semantics).ok_or_else(|| request_error(format!("unknown semantics '{semantics}'")))?;
        let options = ReadOptions { format, semantics, offsets: Offsets::Pinned };
        let document = format::read(text, &options).map_err(|errors| {
            let count = errors.errors.len();
            let message = format!("{count} error{} in the input", if count == 1 { "" } else { "s" });
            refuse(Refusal::input(message, errors.errors))
        })?;
        Ok(Instance { document: Arc::new(document) })
    }

    fn problem(&self) -> &Problem {
        &self.document.problem
    }

    #[wasm_bindgen(getter)]
    pub fn length(&self) -> usize {
        self.problem().len()
    }

    /// The instance at a glance ([`ParsedSummary`]).
    pub fn summary(&self) -> JsValue {
        to_js(&ParsedSummary {
            instance: metrics::summary(self.problem()),
            format: self.document.format,
            notes: self.document.notes.clone(),
        })
    }

    pub fn ids(&self) -> Vec<String> {
        self.problem().buffers().iter().map(|b| b.id.to_string()).collect()
    }

    /// The names the compiler gave the buffers (a `name` column or field, a tensor's or an HLO
    /// value's name), `""` for a buffer without one; empty when no buffer has a name.
    pub fn names(&self) -> Vec<String> {
        let buffers = self.problem().buffers();
        if buffers.iter().all(|b| b.name.is_none()) {
            return Vec::new();
        }
        buffers.iter().map(|b| b.name.clone().unwrap_or_default()).collect()
    }

    /// What each buffer holds as a code, 0 for unknown, else an index + 1 into
    /// [`category_names`] (a Uint8Array, one byte a buffer); empty when no buffer has a category.
    pub fn categories(&self) -> Vec<u8> {
        let buffers = self.problem().buffers();
        if buffers.iter().all(|b| b.category.is_none()) {
            return Vec::new();
        }
        buffers.iter().map(|b| b.category.map_or(0, Category::code)).collect()
    }

    pub fn starts(&self) -> Vec<u64> {
        self.problem().buffers().iter().map(|b| b.start).collect()
    }

    pub fn ends(&self) -> Vec<u64> {
        self.problem().buffers().iter().map(|b| b.end).collect()
    }

    pub fn sizes(&self) -> Vec<u64> {
        self.problem().buffers().iter().map(|b| b.size).collect()
    }

    pub fn alignments(&self) -> Vec<u64> {
        self.problem().buffers().iter().map(|b| b.alignment()).collect()
    }

    /// The live pieces of the buffers that have gaps, flat: `index, start, end, lower, upper` per
    /// piece (bytes relative to the buffer's offset), by buffer and time; empty without gaps.
    pub fn pieces(&self) -> Vec<u64> {
        let buffers = self.problem().buffers();
        let mut flat = Vec::new();
        for (index, buffer) in buffers.iter().enumerate().filter(|(_, b)| b.has_gaps()) {
            for piece in buffer.pieces() {
                flat.extend([index as u64, piece.start, piece.end, piece.lower, piece.upper]);
            }
        }
        flat
    }

    /// The 1-based input line of each buffer (0 when unknown).
    pub fn lines(&self) -> Vec<u32> {
        self.problem().buffers().iter().map(|b| b.line().unwrap_or(0)).collect()
    }

    /// The offsets written in the input when every buffer has one (the input is a plan to show and
    /// check, e.g. a solver's output), else empty.
    #[wasm_bindgen(js_name = inputPlan)]
    pub fn input_plan(&self) -> Vec<u64> {
        self.problem().buffers().iter().map(|b| b.pinned).collect::<Option<Vec<u64>>>().unwrap_or_default()
    }

    /// The load over time as steps: `times[i]` starts a step of `loads[i]` bytes.
    #[wasm_bindgen(js_name = loadProfile)]
    pub fn load_profile(&self) -> JsValue {
        let profile = metrics::load_profile(self.problem().buffers());
        let times: Vec<u64> = profile.iter().map(|&(t, _)| t).collect();
        let loads: Vec<u64> = profile.iter().map(|&(_, l)| l).collect();
        let object = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&object, &"times".into(), &js_sys::BigUint64Array::from(&times[..]));
        let _ = js_sys::Reflect::set(&object, &"loads".into(), &js_sys::BigUint64Array::from(&loads[..]));
        object.into()
    }

    /// Indices of the buffers alive at some time during buffer `index`'s lifetime.
    #[wasm_bindgen(js_name = conflictsOf)]
    pub fn conflicts_of(&self, index: usize) -> Vec<u32> {
        let buffers = self.problem().buffers();
        let Some(chosen) = buffers.get(index) else { return Vec::new() };
        (0..buffers.len()).filter(|&j| j != index && buffers[j].alive_together(chosen)).map(|j| j as u32).collect()
    }

    /// The offsets written in the input, as a plan checked by the core's validator against
    /// `capacity` (or the instance's): the [`crate::run::Summary`] of a run that found that plan.
    /// Throws a [`Refusal`] when the input has no offset for every buffer or the capacity is bad.
    #[wasm_bindgen(js_name = checkInputPlan)]
    pub fn check_input_plan(&self, capacity: Option<String>) -> Result<JsValue, JsValue> {
        let offsets = self.input_plan();
        if offsets.len() != self.problem().len() {
            return Err(request_error("the input has no offset for every buffer"));
        }
        let capacity = Capacity::resolve(capacity.map(Capacity::Text).as_ref()).map_err(|e| refuse(e.into()))?;
        let checked = run::given(self.problem(), offsets, capacity);
        Ok(to_js(&checked.summary(self.problem())))
    }

    /// `offsets` (a plan of this instance, e.g. a compiler's) checked by the core's validator: the
    /// [`crate::run::Summary`] of a run that found that plan (no capacity).
    #[wasm_bindgen(js_name = checkPlan)]
    pub fn check_plan(&self, offsets: Vec<u64>) -> JsValue {
        to_js(&run::given(self.problem(), offsets, None).summary(self.problem()))
    }

    /// What plan `b` changes from plan `a` ([`crate::diff::PlanDiff`]: the peaks, the bytes
    /// saved, the buffers moved). Throws a [`Refusal`] naming the problem when either is not a
    /// valid plan of the instance.
    pub fn diff(&self, a: Vec<u64>, b: Vec<u64>) -> Result<JsValue, JsValue> {
        for (which, plan) in [("A", &a), ("B", &b)] {
            crate::diff::check(self.problem(), plan).map_err(|e| request_error(format!("plan {which}: {e}")))?;
        }
        Ok(to_js(&crate::diff::PlanDiff::new(self.problem(), &a, &b)))
    }

    /// The instance with `offsets` as MiniMalloc CSV (the input's columns plus `offset`) or JSON.
    pub fn export(&self, offsets: Vec<u64>, format: &str) -> Result<String, JsValue> {
        let format = match format {
            "csv" => Format::Csv,
            "json" => Format::Json,
            other => return Err(request_error(format!("unknown format '{other}'"))),
        };
        Ok(format::write(&self.document, &offsets, format))
    }
}

/// An imported model: its instance and the compiler's own plan.
#[wasm_bindgen]
pub struct Model {
    document: Arc<Document>,
    info: crate::import::ModelInfo,
    compiler_plan: Vec<u64>,
}

/// Imports a model file of any kind memplan reads, told by its content (`name` is the file's
/// name): TFLite, ExecuTorch or XLA (see [`crate::import::ModelKind`]). Throws a [`Refusal`] saying why not.
#[wasm_bindgen(js_name = importModel)]
pub fn import_model(bytes: &[u8], name: &str) -> Result<Model, JsValue> {
    let model = crate::import::import_model(bytes, name).map_err(|e| {
        let message = e.to_string();
        refuse(Refusal::input(message.clone(), vec![InputError::new(message)]))
    })?;
    let document = Document::new(model.problem, Format::Csv);
    Ok(Model { document: Arc::new(document), info: model.info, compiler_plan: model.compiler_plan })
}

#[wasm_bindgen]
impl Model {
    /// The model's instance (ids are the compiler's: a TFLite tensor's index).
    pub fn instance(&self) -> Instance {
        Instance { document: self.document.clone() }
    }

    /// The model at a glance ([`crate::import::ModelInfo`]).
    pub fn info(&self) -> JsValue {
        to_js(&self.info)
    }

    /// The compiler's own offsets, one per buffer of the instance.
    #[wasm_bindgen(js_name = compilerPlan)]
    pub fn compiler_plan(&self) -> Vec<u64> {
        self.compiler_plan.clone()
    }
}

/// Shared between a job's solving thread and the worker that polls it.
#[derive(Default)]
struct JobState {
    cancel: CancelFlag,
    progress: Mutex<Option<Progress>>,
    outcome: Mutex<Option<Result<run::Run, SolveError>>>,
}

/// One solve, started on the pool and polled.
#[wasm_bindgen]
pub struct Job {
    state: Arc<JobState>,
    document: Arc<Document>,
}

#[wasm_bindgen]
impl Job {
    /// Starts solving `instance` as `request` asks ([`SolveRequest`]). Throws a [`Refusal`] when
    /// the request cannot be served.
    pub fn start(instance: &Instance, request: JsValue) -> Result<Job, JsValue> {
        let asked: SolveRequest =
            serde_wasm_bindgen::from_value(request).map_err(|e| request_error(format!("bad request: {e}")))?;
        let state = Arc::new(JobState::default());
        let progress_state = state.clone();
        let request = asked.into_request().map_err(refuse)?.cancel(state.cancel.clone()).progress(Arc::new(
            move |p: &Progress| {
                if let Ok(mut slot) = progress_state.progress.lock() {
                    *slot = Some(p.clone());
                }
            },
        ));
        let prepared = request.prepare().map_err(|e| refuse(e.into()))?;
        let job = Job { state: state.clone(), document: instance.document.clone() };
        let document = instance.document.clone();
        let work = move || {
            let outcome = prepared.run(&document.problem);
            if let Ok(mut slot) = state.outcome.lock() {
                *slot = Some(outcome);
            }
        };
        if cfg!(target_feature = "atomics") {
            rayon::spawn(work);
        } else {
            work();
        }
        Ok(job)
    }

    /// Asks the solve to stop; it ends soon after with its best plan so far (`stopped` =
    /// `cancelled`).
    pub fn cancel(&self) {
        self.state.cancel.cancel();
    }

    /// The job's state ([`JobStatus`]): running with the latest progress, or done with the run's
    /// summary. Throws a [`Refusal`] when the solve could not run at all.
    pub fn poll(&self) -> Result<JsValue, JsValue> {
        let finished = self.state.outcome.lock().ok().and_then(|slot| slot.clone());
        let status = match finished {
            None => JobStatus::Running { progress: self.state.progress.lock().ok().and_then(|p| p.clone()) },
            Some(Err(error)) => return Err(refuse(error.into())),
            Some(Ok(run)) => JobStatus::Done { summary: Box::new(run.summary(&self.document.problem)) },
        };
        Ok(to_js(&status))
    }

    /// The plan's offsets, once done (empty before, or without a plan).
    pub fn offsets(&self) -> Vec<u64> {
        self.run().map(|run| run.outcome.offsets().to_vec()).unwrap_or_default()
    }

    /// Buffer indices in the order the solver placed them, once done.
    #[wasm_bindgen(js_name = placementOrder)]
    pub fn placement_order(&self) -> Vec<u32> {
        self.run()
            .and_then(|run| run.outcome.plan)
            .map(|plan| plan.placement_order.iter().map(|&i| i as u32).collect())
            .unwrap_or_default()
    }

    fn run(&self) -> Option<run::Run> {
        match self.state.outcome.lock().ok()?.as_ref()? {
            Ok(run) => Some(run.clone()),
            Err(_) => None,
        }
    }
}
