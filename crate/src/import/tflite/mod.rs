//! TFLite (`.tflite`, LiteRT) models in: the bytes of a model, one instance per subgraph out, as
//! LiteRT's arena planner sees it (the rules, and how they were checked, are in the source's
//! `arena` module); the offsets LiteRT's own planner would choose ([`compiler_plan`], memplan's
//! `tflite` preset); and a better plan written back as TFLite Micro's offline plan
//! ([`with_offline_plan`]).
//!
//! The reader is memplan's own (a flatbuffer reader and the `schema` module): field numbers from
//! the public `schema.fbs`, every read bounds-checked, so that a malformed or truncated file is an
//! error that says what is wrong, never a panic.

pub(crate) mod arena;
mod names;
pub(crate) mod offline;
pub(crate) mod schema;

pub use arena::{Imported, Summary, TensorRole, builtin_name};
pub use offline::OfflinePlan;
pub use schema::Model;

use crate::options::SolveOptions;

/// Why a model could not be imported or written: one type for every importer.
pub use crate::import::ImportError;

/// How to turn a model into instances.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportOptions {
    /// The size given to each dynamic dimension (`-1` in `shape_signature`).
    pub dynamic_dim: u64,
    /// The alignment of every offset: LiteRT's arena aligns to 64.
    pub alignment: u64,
    /// Whose arena the instance describes: LiteRT's (the default) or TFLite Micro's.
    pub runtime: Runtime,
}

/// The runtime whose arena an instance describes; they plan the same file differently.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Runtime {
    /// LiteRT (TensorFlow Lite): in-place kernels share memory, DEQUANTIZE and DENSIFY of
    /// constants run at prepare time, graph inputs stay alive to the end.
    #[default]
    Litert,
    /// TFLite Micro, which reads offline plans: every tensor its own buffer, no prepare-time
    /// results, graph inputs freed after their last reader (checked with the `tflite-micro`
    /// package: its head section equals the offline plan's makespan).
    Micro,
}

impl Runtime {
    pub fn parse(text: &str) -> Option<Runtime> {
        match text {
            "litert" | "tflite" => Some(Runtime::Litert),
            "micro" | "tflm" => Some(Runtime::Micro),
            _ => None,
        }
    }
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions { dynamic_dim: 1, alignment: 64, runtime: Runtime::Litert }
    }
}

impl ImportOptions {
    /// Checks the values: an alignment must be a power of two.
    pub fn check(&self) -> Result<(), ImportError> {
        if !self.alignment.is_power_of_two() {
            return Err(ImportError::Request(format!("alignment {} is not a power of two", self.alignment)));
        }
        Ok(())
    }
}

/// Reads the model's tables (no instance yet): how many subgraphs, tensors and operators.
pub fn read(bytes: &[u8]) -> Result<Model, ImportError> {
    Model::read(bytes).map_err(|e| ImportError::Malformed(crate::import::ModelKind::Tflite, e))
}

/// The instance of subgraph `subgraph`.
pub fn import(bytes: &[u8], subgraph: usize, options: &ImportOptions) -> Result<Imported, ImportError> {
    options.check()?;
    arena::instance(&read(bytes)?, subgraph, options)
}

/// The instances of every subgraph, in order.
pub fn import_all(bytes: &[u8], options: &ImportOptions) -> Result<Vec<Imported>, ImportError> {
    options.check()?;
    let model = read(bytes)?;
    (0..model.subgraphs.len()).map(|index| arena::instance(&model, index, options)).collect()
}

/// The offsets LiteRT's arena planner chooses for the instance: memplan's `tflite` preset (whole-run
/// tensors first, then by size, best fit), which reproduces it; `crate/tests/import_tflite.rs`
/// checks it against the runtime's addresses.
pub fn compiler_plan(instance: &Imported) -> Vec<u64> {
    let run = crate::run::solve(&instance.problem, "tflite", &SolveOptions::default())
        // The preset exists and takes no parameters, and with no capacity it always has a plan.
        .expect("the tflite preset is registered");
    run.outcome.plan.map(|plan| plan.offsets).expect("a greedy pass without a capacity always places every buffer")
}

/// The model with `offsets` (one per buffer of `instance`, e.g. from [`crate::diff::plan_for`]) as TFLite
/// Micro's `OfflineMemoryAllocation` metadata: every tensor of the instance's subgraph that is in
/// the arena gets its buffer's offset, every other tensor `-1` (constants and variables, which the runtime places itself around the fixed ones).
/// Import the instance for [`Runtime::Micro`], whose lifetimes TFLite Micro plans the rest
/// against; an instance that shares memory in place (LiteRT's) is refused. TFLite Micro wants one offset per tensor of every subgraph together; models of
/// several subgraphs are refused (see the error).
pub fn with_offline_plan(bytes: &[u8], instance: &Imported, offsets: &[u64]) -> Result<Vec<u8>, ImportError> {
    let model = read(bytes)?;
    if model.subgraphs.len() > 1 {
        return Err(ImportError::Unsupported(format!(
            "the model has {} subgraphs: TFLite Micro plans the tensors of all of them in one arena, with \
             lifetimes across them, while memplan plans one subgraph at a time; a plan for one subgraph \
             alone can make TFLite Micro's arena larger, so the offline plan is written for models of \
             one subgraph only",
            model.subgraphs.len()
        )));
    }
    if let Some(t) = instance.tensors.iter().position(|r| matches!(r, TensorRole::Shared { .. })) {
        return Err(ImportError::Request(format!(
            "tensor {t} shares its input's memory in place, as LiteRT does; TFLite Micro gives every \
             tensor its own memory and its kernels are not written for a shared one: import the model \
             --for micro and plan that instance"
        )));
    }
    let mut words = Vec::new();
    for (index, subgraph) in model.subgraphs.iter().enumerate() {
        if index != instance.subgraph {
            words.extend(std::iter::repeat_n(offline::ONLINE, subgraph.tensors.len()));
            continue;
        }
        for (t, offset) in instance.tensor_offsets(offsets).into_iter().enumerate() {
            words.push(match offset {
                None => offline::ONLINE,
                Some(offset) => i32::try_from(offset).map_err(|_| {
                    ImportError::Unsupported(format!(
                        "tensor {t}'s offset {offset} does not fit the metadata's 32 bits"
                    ))
                })?,
            });
        }
    }
    offline::write(bytes, &model, &words)
}

/// The model's offline plan, if it has one.
pub fn offline_plan(bytes: &[u8]) -> Result<Option<OfflinePlan>, ImportError> {
    offline::read(bytes, &read(bytes)?)
}
