//! The squeeze (§4, §5.5, §5.7): first fit in increasing loose offset, which closes the gaps that
//! rounding and half-empty boxes left, honours alignment, and gives up as soon as a buffer would
//! reach the best makespan so far.
//!
//! First fit asks the greedy engine's occupancy index for the lowest free offset among the placed
//! buffers alive during a lifetime, so no pairwise conflict list is ever built (the reference
//! implementation's interference graph holds every overlapping pair twice, §5.7).

use std::sync::Mutex;

use crate::model::Problem;
use crate::options::{Deadline, SolveError};
use crate::solvers::greedy::occupancy::{Occupancy, Query, Span};
use crate::solvers::greedy::poll;

/// What one squeeze ended with.
#[derive(Debug, PartialEq, Eq)]
pub enum Squeezed {
    /// Every buffer placed below the bound: offsets and the order they were placed in.
    Placed { offsets: Vec<u64>, order: Vec<usize>, makespan: u64 },
    /// Some buffer would have reached the bound (§5.5's early stop).
    Exceeded,
}

/// Where the arena begins and which buffers are fixed, shared by every squeeze of a solve.
pub struct Arena<'a> {
    pub problem: &'a Problem,
    /// Nothing movable goes below this address (§5.1's start address); alignment applies to the
    /// addresses themselves.
    pub start_address: u64,
    /// Buffers with a pinned offset: placed first, where they are.
    pub pinned: Vec<usize>,
    /// Each buffer's lifetime as leaves of the index, found once for every squeeze.
    spans: Vec<Span>,
    /// Indexes of finished squeezes, cleared and reused: building one allocates a set per tree
    /// node, which would otherwise happen in every iteration.
    spare: Mutex<Vec<Occupancy>>,
}

impl<'a> Arena<'a> {
    pub fn new(problem: &'a Problem, start_address: u64) -> Self {
        let buffers = problem.buffers();
        let pinned = (0..problem.len()).filter(|&i| buffers[i].pinned.is_some()).collect();
        // Only the buffers' own lifetimes: the space below the start address is a floor of first
        // fit, not a placement over the whole span (which would keep the sets of the top nodes up
        // to date at every insertion).
        let occupancy = Occupancy::new(buffers.iter().map(|b| (b.start, b.end)));
        let spans = buffers.iter().map(|b| occupancy.span(b.start, b.end)).collect();
        Arena { problem, start_address, pinned, spans, spare: Mutex::new(vec![occupancy]) }
    }

    /// An index holding the pinned buffers; two pinned buffers that collide make the problem
    /// infeasible.
    fn occupancy(&self) -> Result<Occupancy, SolveError> {
        let buffers = self.problem.buffers();
        let spare = self.spare.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).pop();
        let mut occupancy = match spare {
            Some(mut occupancy) => {
                occupancy.clear();
                occupancy
            }
            None => Occupancy::new(buffers.iter().map(|b| (b.start, b.end))),
        };
        let mut query = Query::default();
        for (k, &i) in self.pinned.iter().enumerate() {
            let buffer = &buffers[i];
            let offset = buffer.pinned.unwrap_or(0); // listed because pinned
            let top = offset + buffer.size; // no overflow: checked in Problem::new
            occupancy.query_into(buffer.start, buffer.end, &mut query);
            if occupancy.is_taken(&query, offset, top) {
                let other = self.pinned[..k].iter().map(|&j| &buffers[j]).find(|b| {
                    let low = b.pinned.unwrap_or(0);
                    b.overlaps_in_time(buffer) && low < top && offset < low + b.size
                });
                let other = other.map_or_else(String::new, |b| format!(" and {}", b.id));
                return Err(SolveError::Infeasible(format!("pinned buffers {}{other} overlap", buffer.id)));
            }
            occupancy.insert(buffer.start, buffer.end, offset, top);
        }
        Ok(occupancy)
    }

    /// First fit of the movable buffers in `order` (the pinned ones are skipped), stopping as soon
    /// as a buffer's top would reach `bound`. Fails on a deadline, on colliding pinned buffers, or
    /// when an offset would pass u64.
    pub fn squeeze(&self, order: &[usize], bound: Option<u64>, deadline: &Deadline) -> Result<Squeezed, SolveError> {
        let mut occupancy = self.occupancy()?;
        let result = self.first_fit(&mut occupancy, order, bound, deadline);
        self.spare.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).push(occupancy);
        result
    }

    fn first_fit(
        &self,
        occupancy: &mut Occupancy,
        order: &[usize],
        bound: Option<u64>,
        deadline: &Deadline,
    ) -> Result<Squeezed, SolveError> {
        let buffers = self.problem.buffers();
        let mut offsets = vec![0u64; buffers.len()];
        let mut placed = Vec::with_capacity(buffers.len());
        let mut makespan = 0u64;
        for &i in &self.pinned {
            offsets[i] = buffers[i].pinned.unwrap_or(0);
            makespan = makespan.max(offsets[i] + buffers[i].size);
            placed.push(i);
        }
        if bound.is_some_and(|bound| makespan >= bound) {
            return Ok(Squeezed::Exceeded);
        }
        let mut query = Query::default();
        for (step, &i) in order.iter().enumerate() {
            let buffer = &buffers[i];
            if buffer.pinned.is_some() {
                continue;
            }
            poll(step, deadline)?;
            occupancy.query_span(self.spans[i], &mut query);
            let overflow = || SolveError::Overflow { buffer: buffer.id.clone(), offset: u64::MAX, size: buffer.size };
            let offset = occupancy
                .lowest_fit_from(&query, buffer.size, buffer.alignment, self.start_address)
                .ok_or_else(overflow)?;
            let top = offset.checked_add(buffer.size).ok_or_else(overflow)?;
            if bound.is_some_and(|bound| top >= bound) {
                return Ok(Squeezed::Exceeded);
            }
            occupancy.insert_queried(&query, offset, top);
            offsets[i] = offset;
            makespan = makespan.max(top);
            placed.push(i);
        }
        Ok(Squeezed::Placed { offsets, order: placed, makespan })
    }
}

/// The squeeze order: by loose offset, ties by larger size first, then by index.
pub fn loose_order(loose: &[u64], problem: &Problem) -> Vec<usize> {
    let buffers = problem.buffers();
    let mut order: Vec<usize> = (0..buffers.len()).filter(|&i| buffers[i].pinned.is_none()).collect();
    order.sort_unstable_by_key(|&i| (loose[i], std::cmp::Reverse(buffers[i].size), i));
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Buffer;

    fn problem() -> Problem {
        Problem::new(
            vec![
                Buffer::new("a", 0, 4, 8),
                Buffer::new("b", 2, 6, 4).with_alignment(16),
                Buffer::new("c", 5, 9, 8),
                Buffer::new("p", 0, 9, 4).pinned_at(32),
            ],
            None,
        )
        .unwrap()
    }

    #[test]
    fn first_fit_in_loose_order_honours_alignment_pins_and_start_address() {
        let problem = problem();
        let arena = Arena::new(&problem, 0);
        let order = loose_order(&[0, 8, 0, 0], &problem);
        assert_eq!(order, vec![0, 2, 1]);
        let Squeezed::Placed { offsets, makespan, .. } = arena.squeeze(&order, None, &Deadline::none()).unwrap() else {
            panic!("unbounded squeeze exceeded")
        };
        assert_eq!(offsets, vec![0, 16, 0, 32]);
        assert_eq!(makespan, 36);
        let shifted = Arena::new(&problem, 3);
        let Squeezed::Placed { offsets, .. } = shifted.squeeze(&order, None, &Deadline::none()).unwrap() else {
            panic!("unbounded squeeze exceeded")
        };
        assert_eq!(offsets, vec![3, 16, 3, 32]);
    }

    #[test]
    fn a_squeeze_that_reaches_the_bound_stops() {
        let problem = problem();
        let arena = Arena::new(&problem, 0);
        let order = loose_order(&[0, 8, 0, 0], &problem);
        assert_eq!(arena.squeeze(&order, Some(36), &Deadline::none()).unwrap(), Squeezed::Exceeded);
        assert!(matches!(arena.squeeze(&order, Some(37), &Deadline::none()).unwrap(), Squeezed::Placed { .. }));
    }
}
