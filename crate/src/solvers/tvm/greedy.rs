//! TVM's greedy planners (`tir/usmp/algo/greedy.cc`): sort the buffers, then place each one on
//! top of the highest of its conflicts placed so far. Not the lowest gap: TVM never looks below
//! that highest conflict, which is what makes its plans differ from a first fit.

use std::cmp::Reverse;

use super::conflicts::Conflicts;
use crate::alignment::align_up;
use crate::model::Buffer;
use crate::options::{Deadline, Halt};

/// TVM's two sort orders. Both break the last tie by name, descending (TVM compares `name_hint`
/// strings byte by byte; memplan's unique `id` stands for it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Priority {
    /// `greedy_by_size` (TVM's default, and the hill climb's first order): size descending, then
    /// the number of conflicts descending, then name descending.
    Size,
    /// `greedy_by_conflicts`: the number of conflicts descending, then size descending, then name
    /// descending.
    Conflicts,
}

impl Priority {
    /// `among` in this priority's order.
    pub(crate) fn arrange(self, buffers: &[Buffer], conflicts: &impl Conflicts, among: &[usize]) -> Vec<usize> {
        let mut order = among.to_vec();
        // Names are unique, so the order is total and an unstable sort gives TVM's order.
        match self {
            Priority::Size => order.sort_unstable_by(|&a, &b| {
                let key = |i: usize| {
                    (Reverse(buffers[i].size), Reverse(conflicts.degree(i)), Reverse(buffers[i].id.as_str()))
                };
                key(a).cmp(&key(b))
            }),
            Priority::Conflicts => order.sort_unstable_by(|&a, &b| {
                let key = |i: usize| {
                    (Reverse(conflicts.degree(i)), Reverse(buffers[i].size), Reverse(buffers[i].id.as_str()))
                };
                key(a).cmp(&key(b))
            }),
        }
        order
    }
}

/// Where a conflicting buffer may start above `buffer` at `offset`: its top rounded up to its own
/// alignment (TVM rounds to the placed buffer's alignment). Saturates: a buffer that would have to
/// start there overflows anyway.
pub(super) fn reach(buffer: &Buffer, offset: u64) -> u64 {
    offset.checked_add(buffer.size).and_then(|top| align_up(top, buffer.alignment())).unwrap_or(u64::MAX)
}

/// Places the buffers of `order` on top of their highest placed conflict (TVM's
/// `PostSortAllocation`, one pool), rounded up to their own alignment as memplan requires (TVM's
/// buffers share one alignment, where this changes nothing). `Overflow` when an offset passes u64.
pub(crate) fn place_on_top(
    buffers: &[Buffer],
    order: &[usize],
    conflicts: &mut impl Conflicts,
    offsets: &mut [u64],
    deadline: &Deadline,
) -> Result<(), Halt> {
    for (step, &i) in order.iter().enumerate() {
        deadline.poll(step)?;
        let buffer = &buffers[i];
        let overflow = || Halt::Overflow { buffer: buffer.id.to_string(), offset: u64::MAX, size: buffer.size };
        let offset = align_up(conflicts.highest(i), buffer.alignment()).ok_or_else(overflow)?;
        offset.checked_add(buffer.size).ok_or_else(overflow)?;
        offsets[i] = offset;
        conflicts.place(i, reach(buffer, offset));
    }
    Ok(())
}
