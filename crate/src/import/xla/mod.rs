//! XLA (`*.hlo.pb`, an `HloProto` dumped with `--xla_dump_hlo_as_proto`) in: the bytes of an
//! optimized module with its buffer assignment; out, one instance per heap simulator trace, the
//! one XLA's heap algorithm solved (the source's `trace` module has the rules), and XLA's own offsets for it
//! ([`compiler_plan`], from the buffer assignment; memplan's `xla` preset reproduces them).
//!
//! The reader is `prost` on memplan's own messages (the `decode` module: only the fields used, field
//! numbers from the public `xla/service/hlo.proto`), so that a malformed or truncated file is an
//! error that says what is wrong, never a panic.

pub(crate) mod decode;
pub(crate) mod plan;
mod roles;
pub(crate) mod trace;

use std::collections::HashMap;

pub use plan::{CompilerPlan, Outside};
pub use trace::{Group, Simulation, Value};

use crate::model::Problem;

/// Why a model could not be imported or written: one type for every importer.
pub use crate::import::ImportError;

/// How to turn a dump into an instance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportOptions {
    /// The alignment of every offset: XLA:CPU aligns its buffers to 64 bytes.
    pub alignment: u64,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions { alignment: 64 }
    }
}

/// One heap simulator trace as an instance.
#[derive(Clone, Debug)]
pub struct Imported {
    /// The module's name.
    pub module: String,
    /// The trace's index in `heap_simulator_traces`.
    pub trace: usize,
    /// One buffer per group of shared values, ordered by canonical logical buffer id; id = that
    /// id, name = its defining value (`instruction{shape index}`).
    pub problem: Problem,
    pub simulation: Simulation,
    /// XLA's offsets for the instance, when the dump's assignment holds them.
    pub compiler: Result<CompilerPlan, ImportError>,
}

/// What a trace holds, for listing them.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct TraceSummary {
    pub trace: usize,
    pub events: usize,
    /// Values of nonzero size.
    pub values: usize,
    /// Buffers of the instance: groups of values that share memory.
    pub buffers: usize,
    /// Groups whose members leave a gap in time (kept as the hull).
    pub buffers_with_gaps: usize,
    pub whole_module: bool,
}

/// What an import found, for the edges to print.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Summary {
    pub module: String,
    pub trace: usize,
    pub traces: usize,
    pub values: usize,
    pub buffers: usize,
    /// Values that share another value's memory (SHARE_WITH).
    pub shared: usize,
    pub buffers_with_gaps: usize,
    #[serde(serialize_with = "crate::model::wire::serialize_u64")]
    pub max_load: u64,
}

fn read(bytes: &[u8]) -> Result<decode::HloProto, ImportError> {
    let proto = decode::decode(bytes).map_err(|e| ImportError::Malformed(crate::import::ModelKind::Xla, e))?;
    if proto.buffer_assignment.is_none() {
        return Err(ImportError::Malformed(
            crate::import::ModelKind::Xla,
            "no buffer_assignment: dump the module after optimizations (`*.cpu_after_optimizations.hlo.pb` \
             from XLA_FLAGS=--xla_dump_to=DIR --xla_dump_hlo_as_proto)"
                .into(),
        ));
    }
    Ok(proto)
}

fn names(proto: &decode::HloProto) -> HashMap<i64, String> {
    let instructions = proto.instruction_names();
    let assignment = proto.buffer_assignment.as_ref();
    assignment.iter().flat_map(|a| &a.logical_buffers).map(|b| (b.id, b.name(&instructions))).collect()
}

/// Every trace of the dump, in order.
pub fn traces(bytes: &[u8]) -> Result<Vec<TraceSummary>, ImportError> {
    let proto = read(bytes)?;
    let assignment = proto.buffer_assignment.as_ref().expect("read() checks the assignment is there");
    let names = HashMap::new();
    assignment
        .heap_simulator_traces
        .iter()
        .enumerate()
        .map(|(index, trace)| {
            let simulation = trace::simulate(assignment, trace, &names)?;
            Ok(TraceSummary {
                trace: index,
                events: trace.events.len(),
                values: simulation.values.len(),
                buffers: simulation.groups.len(),
                buffers_with_gaps: simulation.groups.iter().filter(|g| g.has_gaps()).count(),
                whole_module: trace.whole_module_simulation,
            })
        })
        .collect()
}

/// The instance of trace `trace`, or of the trace with the most values when `None`.
pub fn import(bytes: &[u8], trace: Option<usize>, options: &ImportOptions) -> Result<Imported, ImportError> {
    if !options.alignment.is_power_of_two() {
        return Err(ImportError::Request(format!("alignment {} is not a power of two", options.alignment)));
    }
    let proto = read(bytes)?;
    let assignment = proto.buffer_assignment.as_ref().expect("read() checks the assignment is there");
    let traces = &assignment.heap_simulator_traces;
    if traces.is_empty() {
        return Err(ImportError::Unsupported("the buffer assignment has no heap simulator trace".into()));
    }
    let names = names(&proto);
    let index = match trace {
        Some(index) if index < traces.len() => index,
        Some(index) => {
            return Err(ImportError::Request(format!("trace {index}: the dump has {} traces", traces.len())));
        }
        // Ties go to the first: the order is XLA's.
        None => (0..traces.len()).rev().max_by_key(|&i| traces[i].events.len()).unwrap_or(0),
    };
    let simulation = trace::simulate(assignment, &traces[index], &names)?;
    if simulation.values.is_empty() {
        return Err(ImportError::Unsupported(format!("trace {index} allocates no buffer of nonzero size")));
    }
    let categories = roles::categories(&assignment.buffer_allocations, &simulation);
    let problem = simulation.problem(options.alignment, &categories)?;
    let compiler = plan::compiler_plan(&assignment.buffer_allocations, &simulation, options.alignment);
    let module = proto.hlo_module.as_ref().map(|m| m.name.clone()).unwrap_or_default();
    Ok(Imported { module, trace: index, problem, simulation, compiler })
}

impl Imported {
    pub fn summary(&self, traces: usize) -> Summary {
        Summary {
            module: self.module.clone(),
            trace: self.trace,
            traces,
            values: self.simulation.values.len(),
            buffers: self.problem.len(),
            shared: self.simulation.values.len() - self.simulation.groups.len(),
            buffers_with_gaps: self.simulation.groups.iter().filter(|g| g.has_gaps()).count(),
            max_load: self.problem.max_load(),
        }
    }
}

/// XLA's own offsets for the instance (its buffer assignment).
pub fn compiler_plan(instance: &Imported) -> Result<&CompilerPlan, ImportError> {
    instance.compiler.as_ref().map_err(Clone::clone)
}
