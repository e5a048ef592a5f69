//! ExecuTorch's default memory planner, `greedy` (`exir/memory_planning.py` of the executorch
//! package, read as facts; memplan's own code), so that a plan memplan imports from a `.pte` can
//! be set beside the planner that made it.
//!
//! The buffers go in by size, largest first, into "shared objects": the first object none of
//! whose buffers is alive with the new one takes it at the object's bottom; failing that, the
//! first object where it fits on top of the highest of its buffers alive with the new one (below
//! the object's size, which never grows); failing that, a new object of the buffer's size. The
//! objects are then laid out one after another in the order they were made.
//!
//! What the file cannot say: ExecuTorch sorts a Python `set` of tensor specs, whose order among
//! buffers of one size is that of the objects' addresses in memory; memplan takes equal sizes in
//! reverse index order (the last listed first, as ExecuTorch's sort-then-reverse does for a set
//! read in index order). Plans then agree where sizes are distinct, and the arena where ties do not
//! change it. Alignment: ExecuTorch rounds sizes up to its alignment, so offsets stay aligned;
//! memplan rounds each offset up to the buffer's alignment, the same when sizes are multiples.

use super::{Capabilities, Solver, finish};
use crate::model::{Buffer, Outcome, Problem, Stats};
use crate::options::{Halt, SolveOptions};

/// `executorch-greedy`.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ExecutorchGreedy;

impl Solver for ExecutorchGreedy {
    fn name(&self) -> &str {
        "executorch-greedy"
    }

    fn description(&self) -> String {
        "ExecuTorch's greedy (its default MemoryPlanningPass): largest first into shared objects (at the bottom of \
         one whose buffers are all dead, else on top of the live ones where the object has room), objects stacked"
            .into()
    }

    fn capabilities(&self) -> Capabilities {
        // ExecuTorch plans no fixed offsets: its objects are laid out after the plan is made.
        Capabilities { pinned: false, ..Capabilities::planner() }
    }

    fn run(&self, problem: &Problem, options: &SolveOptions) -> Result<Outcome, Halt> {
        if problem.has_pinned() {
            return Err(Halt::Unsupported(
                "executorch-greedy plans no pinned buffers (ExecuTorch lays its objects out after planning)".into(),
            ));
        }
        let buffers = problem.buffers();
        let mut order: Vec<usize> = (0..buffers.len()).collect();
        order.sort_by(|&a, &b| buffers[b].size.cmp(&buffers[a].size).then(b.cmp(&a)));
        let deadline = options.deadline();
        let mut objects: Vec<SharedObject> = Vec::new();
        // Each buffer's object and offset inside it.
        let mut placed: Vec<(usize, u64)> = vec![(0, 0); buffers.len()];
        for (step, &i) in order.iter().enumerate() {
            if step % 1024 == 0
                && let Some(halt) = deadline.expired()
            {
                return Err(halt);
            }
            let buffer = &buffers[i];
            let free =
                objects.iter().position(|object| object.members.iter().all(|&j| !alive_together(buffer, &buffers[j])));
            let (object, offset) = match free {
                Some(o) => (o, 0),
                None => {
                    let on_top = objects.iter().enumerate().find_map(|(o, object)| {
                        let top = object
                            .members
                            .iter()
                            .filter(|&&j| alive_together(buffer, &buffers[j]))
                            .map(|&j| placed[j].1 + buffers[j].size)
                            .max()
                            .unwrap_or(0);
                        let offset = crate::alignment::align_up(top, buffer.alignment())?;
                        (top > 0 && offset.checked_add(buffer.size)? <= object.size).then_some((o, offset))
                    });
                    on_top.unwrap_or_else(|| {
                        objects.push(SharedObject { size: buffer.size, members: Vec::new() });
                        (objects.len() - 1, 0)
                    })
                }
            };
            objects[object].members.push(i);
            placed[i] = (object, offset);
        }
        // The objects one after another, each starting at a multiple of its members' alignments.
        let mut bases = Vec::with_capacity(objects.len());
        let mut top = 0u64;
        for object in &objects {
            let first = &buffers[object.members[0]];
            let overflow = || Halt::Overflow { buffer: first.id.to_string(), offset: top, size: object.size };
            let alignment =
                object.members.iter().try_fold(1u64, |a, &j| crate::alignment::lcm(a, buffers[j].alignment()));
            let base = alignment.and_then(|a| crate::alignment::align_up(top, a)).ok_or_else(overflow)?;
            bases.push(base);
            top = base.checked_add(object.size).ok_or_else(overflow)?;
        }
        let offsets: Vec<u64> = placed.iter().map(|&(object, offset)| bases[object] + offset).collect();
        let mut stats = Stats::new();
        stats.insert("shared_objects".into(), objects.len().into());
        Ok(finish(self.name(), problem, options, offsets, order, stats))
    }
}

/// A stretch of the arena that buffers share: its size is its first (largest) buffer's.
struct SharedObject {
    size: u64,
    members: Vec<usize>,
}

/// Alive at one time, lifetimes as ExecuTorch compares them (gaps are planned as hulls).
fn alive_together(a: &Buffer, b: &Buffer) -> bool {
    a.start < b.end && b.start < a.end
}
