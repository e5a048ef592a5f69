//! One heap simulator trace as the instance XLA's heap algorithm solved
//! (`GlobalDecreasingSizeBestFitHeap` behind `HeapSimulator`, `peers.md` A2 in words):
//!
//! - **Time**: a clock that ticks once per event of a buffer of nonzero size (events of empty
//!   buffers are skipped, as the simulator does). A value lives from its ALLOC or SHARE_WITH tick
//!   to its FREE tick, both included: the half-open `[alloc, free + 1)`. A value never freed lives
//!   to the end of the trace.
//! - **Sharing**: a SHARE_WITH value takes the canonical value's memory: the group (the canonical
//!   value and every value that shares with it) is one buffer, numbered after the canonical
//!   value's logical buffer id and named after its defining instruction, as large as its largest
//!   member. Its members may be alive in disjoint stretches (while-loop state): [`Group::pieces`]
//!   keeps them, and the buffer has a gap (MiniMalloc's `gaps`) between each two, so a solver
//!   that honours gaps may reuse that memory as XLA's own later passes can; the others see the
//!   hull.
//! - **Sizes** come from `logical_buffers`, every offset aligned to the importer's alignment (64,
//!   XLA:CPU's).

use std::collections::HashMap;

use super::ImportError;
use super::decode::{BufferAssignment, EventKind, HeapSimulatorTrace};
use crate::model::{Buffer, Category, Gap, Problem};

/// One value (logical buffer) of the trace.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Value {
    /// The logical buffer id.
    pub id: i64,
    pub name: String,
    pub size: u64,
    /// Half-open `[start, end)` in trace ticks.
    pub start: u64,
    pub end: u64,
    /// Index of its group in [`Simulation::groups`] (= the instance's buffer index).
    pub group: usize,
}

/// A canonical value and the values that share its memory: one buffer of the instance.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Group {
    /// The canonical value's logical buffer id.
    pub canonical: i64,
    /// Indices into [`Simulation::values`], the canonical value first.
    pub members: Vec<usize>,
    /// The stretches of time some member is alive, half-open, sorted, disjoint and not touching:
    /// one piece unless the members leave a gap.
    pub pieces: Vec<(u64, u64)>,
    pub size: u64,
}

impl Group {
    /// True when the members leave the buffer unused for a while inside its hull.
    pub fn has_gaps(&self) -> bool {
        self.pieces.len() > 1
    }
}

/// The trace replayed: every value with a lifetime, grouped by shared memory.
#[derive(Clone, Debug)]
pub struct Simulation {
    pub values: Vec<Value>,
    /// Sorted by canonical id (the heap's tie-break after size and duration).
    pub groups: Vec<Group>,
    /// Ticks of the clock: every lifetime ends by this time.
    pub ticks: u64,
}

/// Replays `trace`; `names` gives each logical buffer's name.
pub(crate) fn simulate(
    assignment: &BufferAssignment,
    trace: &HeapSimulatorTrace,
    names: &HashMap<i64, String>,
) -> Result<Simulation, ImportError> {
    let sizes: HashMap<i64, i64> = assignment.logical_buffers.iter().map(|b| (b.id, b.size)).collect();
    let mut values: Vec<Value> = Vec::new();
    let mut index_of: HashMap<i64, usize> = HashMap::new();
    // Per value: the canonical value's index (itself for ALLOC), and whether it was freed.
    let mut canonical_of: Vec<usize> = Vec::new();
    let mut freed: Vec<bool> = Vec::new();
    let mut tick: u64 = 0;
    for (e, event) in trace.events.iter().enumerate() {
        let malformed = |what: String| {
            ImportError::Malformed(crate::import::ModelKind::Xla, format!("heap simulator trace, event {e}: {what}"))
        };
        let kind = event.kind().ok_or_else(|| malformed(format!("unknown event kind {}", event.kind)))?;
        let size = *sizes.get(&event.buffer_id).ok_or_else(|| {
            malformed(format!("buffer {} is not a logical buffer of the assignment", event.buffer_id))
        })?;
        let size = u64::try_from(size).map_err(|_| malformed(format!("buffer {} has size {size}", event.buffer_id)))?;
        if size == 0 {
            continue;
        }
        match kind {
            EventKind::Alloc | EventKind::ShareWith => {
                if index_of.contains_key(&event.buffer_id) {
                    return Err(malformed(format!("buffer {} is allocated twice", event.buffer_id)));
                }
                let index = values.len();
                let canonical = if kind == EventKind::Alloc {
                    index
                } else {
                    let canonical = *index_of.get(&event.share_with_canonical_id).ok_or_else(|| {
                        malformed(format!(
                            "buffer {} shares with buffer {}, which the trace has not allocated",
                            event.buffer_id, event.share_with_canonical_id
                        ))
                    })?;
                    canonical_of[canonical]
                };
                index_of.insert(event.buffer_id, index);
                canonical_of.push(canonical);
                freed.push(false);
                let name = names.get(&event.buffer_id).cloned().unwrap_or_default();
                values.push(Value { id: event.buffer_id, name, size, start: tick, end: 0, group: 0 });
            }
            EventKind::Free => {
                let index = *index_of
                    .get(&event.buffer_id)
                    .ok_or_else(|| malformed(format!("buffer {} is freed before it is allocated", event.buffer_id)))?;
                if freed[index] {
                    return Err(malformed(format!("buffer {} is freed twice", event.buffer_id)));
                }
                freed[index] = true;
                values[index].end = tick + 1;
            }
        }
        tick += 1;
    }
    for (value, freed) in values.iter_mut().zip(&freed) {
        if !freed {
            value.end = tick;
        }
    }
    let mut roots: Vec<usize> = (0..values.len()).filter(|&i| canonical_of[i] == i).collect();
    roots.sort_by_key(|&i| values[i].id);
    let mut group_of_root = vec![usize::MAX; values.len()];
    for (g, &root) in roots.iter().enumerate() {
        group_of_root[root] = g;
    }
    let mut groups: Vec<Group> = roots
        .iter()
        .map(|&root| Group { canonical: values[root].id, members: Vec::new(), pieces: Vec::new(), size: 0 })
        .collect();
    for i in 0..values.len() {
        let g = group_of_root[canonical_of[i]];
        values[i].group = g;
        groups[g].members.push(i);
        groups[g].size = groups[g].size.max(values[i].size);
    }
    for group in &mut groups {
        let mut lifetimes: Vec<(u64, u64)> = group.members.iter().map(|&i| (values[i].start, values[i].end)).collect();
        lifetimes.sort_unstable();
        for (start, end) in lifetimes {
            match group.pieces.last_mut() {
                Some(last) if start <= last.1 => last.1 = last.1.max(end),
                _ => group.pieces.push((start, end)),
            }
        }
    }
    Ok(Simulation { values, groups, ticks: tick })
}

impl Simulation {
    /// The instance: one buffer per group from its first piece to its last with a gap between each
    /// two pieces, id = the canonical logical buffer id, name = its defining value, every offset a
    /// multiple of `alignment`, category = `categories[group]` (none where it is missing).
    pub fn problem(&self, alignment: u64, categories: &[Option<Category>]) -> Result<Problem, ImportError> {
        let buffers = self
            .groups
            .iter()
            .enumerate()
            .map(|(index, group)| {
                let canonical = &self.values[group.members[0]];
                let start = group.pieces.first().map_or(0, |p| p.0);
                let end = group.pieces.last().map_or(0, |p| p.1);
                let gaps = group.pieces.windows(2).map(|pair| Gap::new(pair[0].1, pair[1].0)).collect();
                let buffer = Buffer::new(group.canonical.to_string(), start, end, group.size)
                    .with_alignment(alignment)
                    .named(canonical.name.clone())
                    .with_gaps(gaps);
                match categories.get(index).copied().flatten() {
                    Some(category) => buffer.with_category(category),
                    None => buffer,
                }
            })
            .collect();
        Problem::new(buffers, None)
            .map_err(|errors| ImportError::Malformed(crate::import::ModelKind::Xla, errors.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::xla::decode::{Event, LogicalBuffer};

    fn event(kind: i32, buffer_id: i64, share_with_canonical_id: i64) -> Event {
        Event { kind, buffer_id, share_with_canonical_id, ..Event::default() }
    }

    fn assignment(sizes: &[(i64, i64)]) -> BufferAssignment {
        let logical_buffers =
            sizes.iter().map(|&(id, size)| LogicalBuffer { id, size, ..Default::default() }).collect();
        BufferAssignment { logical_buffers, ..Default::default() }
    }

    /// Ticks skip empty buffers; lifetimes include the FREE tick; a shared value joins its
    /// canonical value's group, and a group idle between members keeps two pieces.
    #[test]
    fn events_become_lifetimes_and_groups() {
        let assignment = assignment(&[(1, 64), (2, 64), (3, 0), (4, 32), (5, 64)]);
        let events = vec![
            event(0, 1, 0), // tick 0
            event(0, 3, 0), // empty: no tick
            event(2, 2, 1), // tick 1
            event(1, 1, 0), // tick 2
            event(1, 2, 0), // tick 3
            event(0, 4, 0), // tick 4
            event(2, 5, 1), // tick 5: buffer 1's group again, after a gap at tick 4
            event(1, 4, 0), // tick 6
        ];
        let trace = HeapSimulatorTrace { events, ..Default::default() };
        let simulation = simulate(&assignment, &trace, &HashMap::new()).unwrap();
        assert_eq!(simulation.ticks, 7);
        let lifetimes: Vec<_> = simulation.values.iter().map(|v| (v.id, v.start, v.end)).collect();
        // Buffer 5 is never freed: it lives to the end.
        assert_eq!(lifetimes, vec![(1, 0, 3), (2, 1, 4), (4, 4, 7), (5, 5, 7)]);
        assert_eq!(simulation.groups.len(), 2);
        assert_eq!(simulation.groups[0].canonical, 1);
        assert_eq!(simulation.groups[0].pieces, vec![(0, 4), (5, 7)]);
        assert!(simulation.groups[0].has_gaps());
        let problem = simulation.problem(64, &[]).unwrap();
        let hulls: Vec<_> = problem.buffers().iter().map(|b| (b.id.as_str(), b.start, b.end, b.size)).collect();
        assert_eq!(hulls, vec![("1", 0, 7, 64), ("4", 4, 7, 32)]);
        assert_eq!(problem.buffers()[0].gaps, vec![Gap::new(4, 5)]);
        assert!(problem.buffers()[1].gaps.is_empty());
    }

    #[test]
    fn inconsistent_traces_are_malformed() {
        let assignment = assignment(&[(1, 64), (2, 64)]);
        let cases: [(Vec<Event>, &str); 5] = [
            (vec![event(0, 1, 0), event(0, 1, 0)], "allocated twice"),
            (vec![event(1, 1, 0)], "freed before it is allocated"),
            (vec![event(0, 1, 0), event(1, 1, 0), event(1, 1, 0)], "freed twice"),
            (vec![event(2, 2, 1)], "which the trace has not allocated"),
            (vec![event(0, 9, 0)], "not a logical buffer"),
        ];
        for (events, message) in cases {
            let trace = HeapSimulatorTrace { events, ..Default::default() };
            let error = simulate(&assignment, &trace, &HashMap::new()).unwrap_err();
            assert!(error.to_string().contains(message), "{error}");
        }
    }
}
