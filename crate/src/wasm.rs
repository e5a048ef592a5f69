//! The browser facade: a thin layer over the library for the playground's Web Worker. Text in,
//! handles and plain objects out, errors mapped here once. Values that may pass 2^53 (sizes, times,
//! offsets) cross as `BigUint64Array`s or decimal strings, never as JS numbers.
//!
//! Solving runs as a [`Job`]: in the threaded build it is spawned on the rayon pool and the worker
//! polls it, so the worker stays free to receive a cancel; the single-threaded build has no pool
//! to spawn on, so the job runs inside `start` and the page cancels by ending the worker.

use std::sync::{Arc, Mutex};

use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::format::{self, Document, Format, Offsets, ReadOptions};
use crate::model::{Problem, Semantics, Solution};
use crate::options::{CancelFlag, Effort, Params, Progress, SolveError, SolveOptions, time_limit_from_secs};
use crate::solvers::{self, greedy};
use crate::{generate, metrics, run, size, validate};

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
    // Objects as plain JS objects (not Maps); u64 fields are sent as strings by the callers.
    let serializer = serde_wasm_bindgen::Serializer::new().serialize_maps_as_objects(true);
    value.serialize(&serializer).unwrap_or(JsValue::NULL)
}

fn error(message: impl Into<String>) -> JsValue {
    to_js(&serde_json::json!({ "errors": [{ "line": null, "column": null, "message": message.into() }] }))
}

/// The solvers, their descriptions and what the controls may offer, all from the core.
#[wasm_bindgen(js_name = listSolvers)]
pub fn list_solvers() -> JsValue {
    let orders: Vec<_> = greedy::Order::ALL.iter().map(|o| (o.name(), o.describe())).collect();
    let fits: Vec<_> = greedy::Fit::ALL.iter().map(|f| (f.name(), f.describe())).collect();
    to_js(&serde_json::json!({
        "solvers": solvers::infos(),
        "orders": orders,
        "fits": fits,
        "combinations": greedy::describe_combinations(),
        "efforts": ["low", "normal", "high"],
        "semantics": Semantics::ALL.iter().map(|s| s.name()).collect::<Vec<_>>(),
    }))
}

/// A seeded random trace as MiniMalloc CSV, for the page's generator.
#[wasm_bindgen(js_name = generateTrace)]
pub fn generate_trace(buffers: usize, seed: u64) -> String {
    let problem = generate::trace(generate::TraceSpec::new(buffers, seed));
    let document = Document { problem, plan: None, format: Format::Csv, csv_layout: None };
    format::write(&document, &[], Format::Csv)
}

/// Parses a size such as `1MiB`; the error says why not.
#[wasm_bindgen(js_name = parseSize)]
pub fn parse_size(text: &str) -> Result<String, JsValue> {
    size::parse_size(text).map(|v| v.to_string()).map_err(|e| JsValue::from_str(&e))
}

/// A parsed instance.
#[wasm_bindgen]
pub struct Instance {
    document: Arc<Document>,
}

#[wasm_bindgen]
impl Instance {
    /// Parses `text` as `format` ("csv", "json" or "" to sniff) in `semantics`. Throws
    /// `{errors: [{line, column, message}]}` listing every problem; nothing half-loads.
    #[wasm_bindgen(constructor)]
    pub fn parse(text: &str, format: &str, semantics: &str) -> Result<Instance, JsValue> {
        let format = match format {
            "csv" => Some(Format::Csv),
            "json" => Some(Format::Json),
            "" => None,
            other => return Err(error(format!("unknown format '{other}'"))),
        };
        let semantics = Semantics::parse(semantics).ok_or_else(|| error(format!("unknown semantics '{semantics}'")))?;
        let options = ReadOptions { format, semantics, offsets: Offsets::Pinned };
        let document = format::read(text, &options).map_err(|errors| to_js(&errors))?;
        Ok(Instance { document: Arc::new(document) })
    }

    fn problem(&self) -> &Problem {
        &self.document.problem
    }

    #[wasm_bindgen(getter)]
    pub fn length(&self) -> usize {
        self.problem().len()
    }

    /// Buffers, max load, sizes, span, conflicts; u64 values as decimal strings.
    pub fn summary(&self) -> JsValue {
        let s = metrics::summary(self.problem().buffers());
        to_js(&serde_json::json!({
            "buffers": s.buffers,
            "max_load": s.max_load.to_string(),
            "total_size": s.total_size.to_string(),
            "min_size": s.min_size.to_string(),
            "max_size": s.max_size.to_string(),
            "first_start": s.first_start.to_string(),
            "last_end": s.last_end.to_string(),
            "conflicts": s.conflicts.to_string(),
            "pinned": s.pinned,
            "aligned": s.aligned,
            "capacity": self.problem().capacity().map(|c| c.to_string()),
            "semantics": self.problem().semantics().name(),
            "format": self.document.format,
        }))
    }

    pub fn ids(&self) -> Vec<String> {
        self.problem().buffers().iter().map(|b| b.id.clone()).collect()
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
        self.problem().buffers().iter().map(|b| b.alignment).collect()
    }

    /// The 1-based input line of each buffer (0 when unknown).
    pub fn lines(&self) -> Vec<u32> {
        self.problem().buffers().iter().map(|b| b.line.unwrap_or(0) as u32).collect()
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
        (0..buffers.len()).filter(|&j| j != index && buffers[j].overlaps_in_time(chosen)).map(|j| j as u32).collect()
    }

    /// Checks offsets with the core's validator: `{valid, makespan, violations}`.
    pub fn validate(&self, offsets: Vec<u64>, capacity: Option<String>) -> Result<JsValue, JsValue> {
        let capacity = parse_capacity(capacity.as_deref())?;
        let report = validate::validate(self.problem(), &offsets, capacity.or(self.problem().capacity()));
        Ok(to_js(&serde_json::json!({
            "valid": report.is_valid(),
            "makespan": report.makespan.to_string(),
            "violations": report.violations.iter().map(|v| v.describe(self.problem())).collect::<Vec<_>>(),
        })))
    }

    /// The instance with `offsets` as MiniMalloc CSV (the input's columns plus `offset`) or JSON.
    pub fn export(&self, offsets: Vec<u64>, format: &str) -> Result<String, JsValue> {
        let format = match format {
            "csv" => Format::Csv,
            "json" => Format::Json,
            other => return Err(JsValue::from_str(&format!("unknown format '{other}'"))),
        };
        Ok(format::write(&self.document, &offsets, format))
    }
}

fn parse_capacity(text: Option<&str>) -> Result<Option<u64>, JsValue> {
    match text.map(str::trim) {
        None | Some("") => Ok(None),
        Some(text) => size::parse_size(text).map(Some).map_err(|e| JsValue::from_str(&format!("capacity: {e}"))),
    }
}

/// What the page asks of a solve.
#[derive(serde::Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct JobOptions {
    solver: String,
    capacity: Option<String>,
    /// Seconds.
    time_limit: Option<f64>,
    /// A decimal string, so that any u64 seed survives JS.
    seed: Option<String>,
    effort: Option<String>,
    /// Solver-specific settings by name (see `listSolvers`), as text.
    params: std::collections::BTreeMap<String, String>,
}

/// Shared between a job's solving thread and the worker that polls it.
#[derive(Default)]
struct JobState {
    cancel: CancelFlag,
    progress: Mutex<Option<Progress>>,
    outcome: Mutex<Option<Result<Solution, SolveError>>>,
}

/// One solve, started on the pool and polled.
#[wasm_bindgen]
pub struct Job {
    state: Arc<JobState>,
    document: Arc<Document>,
    capacity: Option<u64>,
}

#[wasm_bindgen]
impl Job {
    /// Starts solving `instance` with `options` ({solver, capacity, timeLimit, seed, effort}).
    pub fn start(instance: &Instance, options: JsValue) -> Result<Job, JsValue> {
        let asked: JobOptions =
            serde_wasm_bindgen::from_value(options).map_err(|e| JsValue::from_str(&e.to_string()))?;
        let capacity = parse_capacity(asked.capacity.as_deref())?;
        let seed = match asked.seed.as_deref().map(str::trim) {
            None | Some("") => 0,
            Some(text) => text.parse::<u64>().map_err(|_| JsValue::from_str(&format!("seed '{text}' is not a u64")))?,
        };
        let effort = match asked.effort.as_deref() {
            None | Some("") => Effort::Normal,
            Some(text) => Effort::parse(text).ok_or_else(|| JsValue::from_str(&format!("unknown effort '{text}'")))?,
        };
        let time_limit = match asked.time_limit {
            Some(secs) => time_limit_from_secs(secs).map_err(|e| JsValue::from_str(&e.to_string()))?,
            None => None,
        };
        solvers::by_name(&asked.solver).map_err(|e| JsValue::from_str(&e.to_string()))?;
        let state = Arc::new(JobState::default());
        let progress_state = state.clone();
        let options = SolveOptions {
            capacity,
            time_limit,
            seed,
            threads: None,
            effort,
            cancel: state.cancel.clone(),
            progress: Some(Arc::new(move |p: &Progress| {
                if let Ok(mut slot) = progress_state.progress.lock() {
                    *slot = Some(p.clone());
                }
            })),
            params: asked.params.iter().fold(Params::new(), |params, (name, value)| params.with(name, value)),
        };
        let job = Job { state: state.clone(), document: instance.document.clone(), capacity };
        let document = instance.document.clone();
        let solver = asked.solver;
        let work = move || {
            let outcome = run::solve(&document.problem, &solver, &options);
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

    pub fn cancel(&self) {
        self.state.cancel.cancel();
    }

    /// `{state: "running", progress}` while solving; then `{state: "done", result}` (the
    /// solution, validated by the core) or `{state: "error", message}`.
    pub fn poll(&self) -> JsValue {
        let outcome = self.state.outcome.lock().ok().and_then(|slot| slot.clone());
        match outcome {
            None => {
                let progress = self.state.progress.lock().ok().and_then(|p| p.clone());
                to_js(&serde_json::json!({
                    "state": "running",
                    "progress": progress.map(|p| serde_json::json!({
                        "solver": p.solver,
                        "best_makespan": p.best_makespan.map(|m| m.to_string()),
                        "lower_bound": p.lower_bound.to_string(),
                        "nodes": p.nodes.to_string(),
                    })),
                }))
            }
            Some(Err(error)) => to_js(&serde_json::json!({ "state": "error", "message": error.to_string() })),
            Some(Ok(solution)) => to_js(&serde_json::json!({ "state": "done", "result": self.describe(&solution) })),
        }
    }

    /// The plan's offsets, once done (empty before).
    pub fn offsets(&self) -> Vec<u64> {
        self.solution().map(|s| s.plan.offsets).unwrap_or_default()
    }

    /// Buffer indices in the order the solver placed them, once done.
    #[wasm_bindgen(js_name = placementOrder)]
    pub fn placement_order(&self) -> Vec<u32> {
        self.solution().map(|s| s.placement_order.iter().map(|&i| i as u32).collect()).unwrap_or_default()
    }

    fn solution(&self) -> Option<Solution> {
        match self.state.outcome.lock().ok()?.as_ref()? {
            Ok(solution) => Some(solution.clone()),
            Err(_) => None,
        }
    }

    fn describe(&self, solution: &Solution) -> serde_json::Value {
        let problem = &self.document.problem;
        let capacity = self.capacity.or(problem.capacity());
        let report = validate::validate_solution(problem, solution, capacity.filter(|_| solution.feasible));
        serde_json::json!({
            "solver": solution.solver,
            "winner": solution.stats.get("winner"),
            "makespan": solution.makespan.to_string(),
            "max_load": solution.max_load.to_string(),
            "lower_bound": solution.lower_bound.to_string(),
            "fragmentation": solution.fragmentation().to_string(),
            "fragmentation_pct": solution.fragmentation_pct(),
            "optimal": solution.optimal,
            "feasible": solution.feasible,
            "capacity": capacity.map(|c| c.to_string()),
            "elapsed_ms": solution.elapsed.as_secs_f64() * 1000.0,
            "seed": solution.seed.to_string(),
            "stats": solution.stats.iter().map(|(k, v)| (k.clone(), match v {
                crate::model::StatValue::Count(c) => serde_json::Value::String(c.to_string()),
                other => serde_json::to_value(other).unwrap_or_default(),
            })).collect::<serde_json::Map<_, _>>(),
            "valid": report.is_valid(),
            "violations": report.violations.iter().map(|v| v.describe(problem)).collect::<Vec<_>>(),
        })
    }
}
