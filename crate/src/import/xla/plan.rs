//! XLA's own answer for a trace: the offsets its buffer assignment gives the trace's values
//! (`buffer_allocations[].assigned`), as a plan of the imported instance.
//!
//! The trace's `buffer_allocation_index` cannot be trusted to name the allocation: XLA renumbers
//! allocations after the heap simulation (with jax 0.10.2 it names a 4-byte thread-local
//! allocation in every fixture), so the allocation is the one that holds the trace's values.
//! The allocation may also hold values the trace never saw (tuple index tables, a few dozen
//! bytes, on the fixtures with loops): XLA puts them above the heap, from its top aligned up,
//! so the allocation's size is the heap's, aligned, plus their bytes.

use std::collections::HashMap;

use super::ImportError;
use super::decode::BufferAllocation;
use super::trace::Simulation;
use crate::alignment::align_up;

/// A value of the allocation outside the trace.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Outside {
    pub id: i64,
    pub offset: u64,
    pub size: u64,
}

/// XLA's plan of one trace.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct CompilerPlan {
    /// The allocation's `index`.
    pub allocation: i64,
    /// The allocation's size in bytes: what XLA reserves for the trace's values and the others.
    pub allocation_size: u64,
    /// One offset per buffer of the instance (group), from XLA's assignment.
    pub offsets: Vec<u64>,
    /// The heap the trace needs under XLA's offsets: the highest end of its values.
    pub heap_size: u64,
    /// The allocation's values outside the trace.
    pub outside: Vec<Outside>,
    /// The bytes above the aligned heap that the outside values take.
    pub outside_bytes: u64,
    /// The alignment the heap top is rounded up to before the outside values.
    pub alignment: u64,
}

impl CompilerPlan {
    /// The allocation size XLA would reserve if the trace's heap were `heap_size` bytes (for a
    /// plan of memplan's): the outside values stay above it.
    pub fn allocation_size_for(&self, heap_size: u64) -> u64 {
        if self.outside.is_empty() {
            return heap_size;
        }
        align_up(heap_size, self.alignment).unwrap_or(u64::MAX).saturating_add(self.outside_bytes)
    }
}

fn nonnegative(value: i64, what: impl FnOnce() -> String) -> Result<u64, ImportError> {
    u64::try_from(value)
        .map_err(|_| ImportError::Malformed(crate::import::ModelKind::Xla, format!("{} is {value}", what())))
}

/// XLA's offsets for `simulation`'s groups, from the allocation that holds its values.
pub(crate) fn compiler_plan(
    allocations: &[BufferAllocation],
    simulation: &Simulation,
    alignment: u64,
) -> Result<CompilerPlan, ImportError> {
    let Some(first) = simulation.values.first() else {
        return Err(ImportError::Request("the trace places no buffer: there is no plan to read".into()));
    };
    let allocation =
        allocations.iter().find(|a| a.assigned.iter().any(|x| x.logical_buffer_id == first.id)).ok_or_else(|| {
            ImportError::Malformed(
                crate::import::ModelKind::Xla,
                format!("no allocation holds buffer {} of the trace", first.id),
            )
        })?;
    let mut offset_of: HashMap<i64, u64> = HashMap::with_capacity(allocation.assigned.len());
    for assigned in &allocation.assigned {
        let offset = nonnegative(assigned.offset, || format!("buffer {}'s offset", assigned.logical_buffer_id))?;
        offset_of.insert(assigned.logical_buffer_id, offset);
    }
    let mut offsets = Vec::with_capacity(simulation.groups.len());
    for group in &simulation.groups {
        let mut offset = None;
        for &member in &group.members {
            let value = &simulation.values[member];
            let found = *offset_of.get(&value.id).ok_or_else(|| {
                ImportError::Unsupported(format!(
                    "buffer {} of the trace is not in allocation {}, which holds buffer {}: the trace spans allocations",
                    value.id, allocation.index, first.id
                ))
            })?;
            match offset {
                None => offset = Some(found),
                Some(o) if o != found => {
                    return Err(ImportError::Unsupported(format!(
                        "buffer {} shares buffer {}'s memory in the trace but XLA placed it at {found}, not {o}",
                        value.id, group.canonical
                    )));
                }
                Some(_) => {}
            }
        }
        // Every group has a member: the canonical value.
        offsets.push(offset.unwrap_or(0));
    }
    let in_trace: std::collections::HashSet<i64> = simulation.values.iter().map(|v| v.id).collect();
    let mut outside = Vec::new();
    for assigned in allocation.assigned.iter().filter(|a| !in_trace.contains(&a.logical_buffer_id)) {
        let size = nonnegative(assigned.size, || format!("buffer {}'s assigned size", assigned.logical_buffer_id))?;
        outside.push(Outside { id: assigned.logical_buffer_id, offset: offset_of[&assigned.logical_buffer_id], size });
    }
    let heap_size = simulation
        .groups
        .iter()
        .zip(&offsets)
        .map(|(group, offset)| offset.saturating_add(group.size))
        .max()
        .unwrap_or(0);
    let allocation_size = nonnegative(allocation.size, || format!("allocation {}'s size", allocation.index))?;
    let aligned = align_up(heap_size, alignment).unwrap_or(u64::MAX);
    let outside_bytes = if outside.is_empty() { 0 } else { allocation_size.saturating_sub(aligned) };
    Ok(CompilerPlan {
        allocation: allocation.index,
        allocation_size,
        offsets,
        heap_size,
        outside,
        outside_bytes,
        alignment,
    })
}
