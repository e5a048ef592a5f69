//! The parts of XLA's `HloProto` the importer reads, as `prost` messages: only the fields it
//! needs, with the field numbers of the public `xla/service/hlo.proto` (protobuf skips every
//! other field). Decoding is `prost`'s, which returns an error on malformed or truncated bytes.

use prost::Message;

/// `HloProto`: the optimized module and its buffer assignment.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct HloProto {
    #[prost(message, optional, tag = "1")]
    pub hlo_module: Option<HloModule>,
    #[prost(message, optional, tag = "3")]
    pub buffer_assignment: Option<BufferAssignment>,
}

/// `HloModuleProto`, for its name and the names of its instructions.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct HloModule {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(message, repeated, tag = "3")]
    pub computations: Vec<HloComputation>,
}

/// `HloComputationProto`.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct HloComputation {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(message, repeated, tag = "2")]
    pub instructions: Vec<HloInstruction>,
}

/// `HloInstructionProto`: a name for the id that a logical buffer's `defined_at` gives.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct HloInstruction {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(string, tag = "2")]
    pub opcode: String,
    #[prost(int64, tag = "35")]
    pub id: i64,
}

/// `BufferAssignmentProto`.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct BufferAssignment {
    #[prost(message, repeated, tag = "1")]
    pub logical_buffers: Vec<LogicalBuffer>,
    #[prost(message, repeated, tag = "3")]
    pub buffer_allocations: Vec<BufferAllocation>,
    #[prost(message, repeated, tag = "4")]
    pub heap_simulator_traces: Vec<HeapSimulatorTrace>,
}

/// `LogicalBufferProto`: one value's bytes, and where it is defined.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct LogicalBuffer {
    #[prost(int64, tag = "1")]
    pub id: i64,
    #[prost(int64, tag = "2")]
    pub size: i64,
    #[prost(message, optional, tag = "3")]
    pub defined_at: Option<Location>,
    #[prost(int64, tag = "4")]
    pub color: i64,
}

/// `LogicalBufferProto.Location`.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct Location {
    #[prost(string, tag = "2")]
    pub instruction_name: String,
    #[prost(int64, repeated, tag = "3")]
    pub shape_index: Vec<i64>,
    #[prost(int64, tag = "4")]
    pub instruction_id: i64,
}

/// `BufferAllocationProto`: one contiguous allocation and the offsets of the buffers in it.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct BufferAllocation {
    #[prost(int64, tag = "1")]
    pub index: i64,
    #[prost(int64, tag = "2")]
    pub size: i64,
    #[prost(bool, tag = "3")]
    pub is_thread_local: bool,
    #[prost(bool, tag = "5")]
    pub is_entry_computation_parameter: bool,
    #[prost(bool, tag = "7")]
    pub maybe_live_out: bool,
    #[prost(int64, tag = "8")]
    pub color: i64,
    #[prost(message, repeated, tag = "9")]
    pub assigned: Vec<Assigned>,
    #[prost(bool, tag = "11")]
    pub is_tuple: bool,
    #[prost(bool, tag = "12")]
    pub is_constant: bool,
}

/// `BufferAllocationProto.Assigned`: a logical buffer's place in its allocation.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct Assigned {
    #[prost(int64, tag = "1")]
    pub logical_buffer_id: i64,
    #[prost(int64, tag = "2")]
    pub offset: i64,
    #[prost(int64, tag = "3")]
    pub size: i64,
}

/// `HeapSimulatorTrace`: the events the heap simulator saw, in order, for one allocation.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct HeapSimulatorTrace {
    #[prost(message, repeated, tag = "1")]
    pub events: Vec<Event>,
    #[prost(bool, tag = "2")]
    pub whole_module_simulation: bool,
    #[prost(int64, tag = "3")]
    pub buffer_allocation_index: i64,
}

/// `HeapSimulatorTrace.Event`.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct Event {
    /// ALLOC 0, FREE 1, SHARE_WITH 2 (see [`EventKind`]).
    #[prost(int32, tag = "1")]
    pub kind: i32,
    #[prost(int64, tag = "2")]
    pub buffer_id: i64,
    #[prost(string, tag = "3")]
    pub computation_name: String,
    #[prost(string, tag = "4")]
    pub instruction_name: String,
    #[prost(int64, tag = "5")]
    pub share_with_canonical_id: i64,
}

/// `HeapSimulatorTrace.Event.Kind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EventKind {
    Alloc,
    Free,
    /// The buffer takes the canonical buffer's memory (`share_with_canonical_id`).
    ShareWith,
}

impl Event {
    pub(crate) fn kind(&self) -> Option<EventKind> {
        match self.kind {
            0 => Some(EventKind::Alloc),
            1 => Some(EventKind::Free),
            2 => Some(EventKind::ShareWith),
            _ => None,
        }
    }
}

impl LogicalBuffer {
    /// The defining instruction's name, with the shape index when the value is an element of a
    /// tuple (`while.1{1}`), as XLA prints values. `instruction_name` is deprecated and left
    /// empty by jax 0.10.2's XLA; `names` maps instruction ids to the module's names instead.
    pub(crate) fn name(&self, names: &std::collections::HashMap<i64, &str>) -> String {
        let Some(at) = &self.defined_at else { return String::new() };
        let instruction = if at.instruction_name.is_empty() {
            names.get(&at.instruction_id).copied().unwrap_or_default()
        } else {
            at.instruction_name.as_str()
        };
        if at.shape_index.is_empty() {
            return instruction.to_string();
        }
        let index: Vec<String> = at.shape_index.iter().map(i64::to_string).collect();
        format!("{instruction}{{{}}}", index.join(","))
    }
}

impl HloProto {
    /// Instruction id → name over every computation of the module.
    pub(crate) fn instruction_names(&self) -> std::collections::HashMap<i64, &str> {
        let computations = self.hlo_module.iter().flat_map(|m| &m.computations);
        computations.flat_map(|c| &c.instructions).map(|i| (i.id, i.name.as_str())).collect()
    }
}

/// Decodes the bytes of a `*.hlo.pb` dump.
pub(crate) fn decode(bytes: &[u8]) -> Result<HloProto, String> {
    HloProto::decode(bytes).map_err(|e| e.to_string())
}
