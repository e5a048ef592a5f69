//! Fewest moves: after a solve from a caller's plan (a compiler's), every buffer that can go back
//! to its offset in that plan without touching another buffer and without raising the new plan's
//! peak goes back. A solver is free to shuffle buffers that did not need to move; the caller asked
//! what memplan changes, so a buffer that moved for nothing is noise in the answer (and work for a
//! compiler that writes the plan back).

use crate::model::{Piece, Problem};

/// `offsets` (a valid plan of `problem`) with as many buffers as this greedy pass finds back at
/// their offset in `start` (another valid plan of `problem`): a buffer returns when its offset in
/// `start` meets no other buffer at its current offset and keeps it under the plan's makespan, so
/// the plan stays valid and its makespan (and so any capacity it met) does not grow. Larger
/// buffers are tried first (the bytes that stay put matter most to a reader); the pass repeats
/// while a return frees the place another one needed. Buffers that traded places stay traded (each
/// blocks the other's return): undoing a swap takes a search, not this pass. Returns how many
/// buffers went back.
pub(crate) fn return_to_start(problem: &Problem, start: &[u64], offsets: &mut [u64]) -> usize {
    return_within(problem, start, offsets, PAIR_BUDGET)
}

/// How many pairs of buffers the pass may look at, all passes together: a return is checked
/// against every buffer that starts before the returning one ends, which on a long program with
/// most buffers moved is quadratic. Past the budget the pass stops where it is (the plan is
/// valid at every step; only fewer buffers went back), so a run ends within about a second.
const PAIR_BUDGET: u64 = 200_000_000;

/// [`return_to_start`] that stops once it has looked at `budget` pairs of buffers.
fn return_within(problem: &Problem, start: &[u64], offsets: &mut [u64], budget: u64) -> usize {
    let buffers = problem.buffers();
    if start.len() != buffers.len() || offsets.len() != buffers.len() {
        return 0;
    }
    let makespan = crate::model::load::makespan(buffers, offsets);
    let pieces: Vec<Vec<Piece>> = buffers.iter().map(|b| b.pieces()).collect();
    // Neighbours in time by a sweep over start times: only buffers whose lifetimes meet can
    // conflict, and most pairs of a long program never do.
    let mut by_start: Vec<usize> = (0..buffers.len()).collect();
    by_start.sort_by_key(|&i| buffers[i].start);
    let mut moved: Vec<usize> = (0..buffers.len()).filter(|&i| offsets[i] != start[i]).collect();
    moved.sort_by_key(|&i| std::cmp::Reverse(buffers[i].size));
    let looked_at = std::cell::Cell::new(0u64);
    let fits = |i: usize, offsets: &[u64]| -> bool {
        let buffer = &buffers[i];
        if start[i].checked_add(buffer.size).is_none_or(|top| top > makespan) {
            return false;
        }
        // Only buffers that start before this one ends can share a time with it.
        let before_end = by_start.partition_point(|&j| buffers[j].start < buffer.end);
        looked_at.set(looked_at.get() + before_end as u64);
        if looked_at.get() > budget {
            return false;
        }
        by_start[..before_end].iter().all(|&j| {
            j == i
                || buffers[j].end <= buffer.start
                || !pieces[i].iter().any(|p| pieces[j].iter().any(|q| p.meets(start[i], q, offsets[j])))
        })
    };
    let mut returned = 0;
    loop {
        let before = returned;
        moved.retain(|&i| {
            if fits(i, offsets) {
                offsets[i] = start[i];
                returned += 1;
                false
            } else {
                true
            }
        });
        if returned == before || moved.is_empty() || looked_at.get() > budget {
            return returned;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Buffer, Gap};
    use crate::validate;

    fn problem(buffers: Vec<Buffer>) -> Problem {
        Problem::new(buffers, None).unwrap()
    }

    #[test]
    fn buffers_that_moved_for_nothing_go_back_even_when_one_waits_for_another() {
        // c's way home is blocked by a until a has gone home: the pass repeats.
        let p = problem(vec![Buffer::new("a", 0, 2, 4), Buffer::new("c", 0, 4, 8)]);
        let start = [0, 4];
        let mut plan = [8, 12];
        assert_eq!(return_to_start(&p, &start, &mut plan), 2);
        assert_eq!(plan, start);
    }

    #[test]
    fn only_what_saves_bytes_stays_moved() {
        // The start wastes bytes: b sits above a gap it could use. The new plan lowers b (the
        // saving) and also moves c for nothing; c goes back, b stays where it saves bytes.
        let p = problem(vec![Buffer::new("a", 0, 4, 4), Buffer::new("b", 0, 4, 4), Buffer::new("c", 4, 8, 4)]);
        let start = [0, 8, 0];
        let mut plan = [0, 4, 4];
        assert!(validate::validate(&p, &plan, None).is_valid());
        assert_eq!(return_to_start(&p, &start, &mut plan), 1);
        assert_eq!(plan, [0, 4, 0]);
        assert!(validate::validate(&p, &plan, None).is_valid());
    }

    #[test]
    fn past_its_budget_the_pass_stops_with_a_valid_plan() {
        let p = problem(vec![Buffer::new("a", 0, 2, 4), Buffer::new("c", 0, 4, 8)]);
        let mut plan = [8, 12];
        assert_eq!(return_within(&p, &[0, 4], &mut plan, 0), 0);
        assert_eq!(plan, [8, 12]);
        // Enough for the first pass (c refused, a back) but not the second.
        assert_eq!(return_within(&p, &[0, 4], &mut plan, 4), 1);
        assert_eq!(plan, [0, 12]);
        assert!(validate::validate(&p, &plan, None).is_valid());
    }

    #[test]
    fn a_swap_stays_each_blocks_the_others_return() {
        let p = problem(vec![Buffer::new("a", 0, 4, 4), Buffer::new("b", 0, 4, 4)]);
        let mut plan = [4, 0];
        assert_eq!(return_to_start(&p, &[0, 4], &mut plan), 0);
        assert_eq!(plan, [4, 0]);
    }

    #[test]
    fn a_return_that_would_raise_the_peak_or_meet_a_buffer_is_not_made() {
        let p = problem(vec![Buffer::new("a", 0, 4, 4), Buffer::new("b", 0, 4, 4)]);
        // b's start offset is above the new plan's peak.
        let mut plan = [4, 0];
        assert_eq!(return_to_start(&p, &[0, 8], &mut plan), 0);
        assert_eq!(plan, [4, 0]);
    }

    #[test]
    fn gaps_and_windows_count_as_the_validator_counts_them() {
        // a has a gap over [2, 4): b, alive only then, may go back into a's bytes.
        let p = problem(vec![
            Buffer::new("a", 0, 6, 4).with_gaps(vec![Gap::new(2, 4)]),
            Buffer::new("b", 2, 4, 4),
            Buffer::new("c", 0, 6, 2),
        ]);
        let (start, mut plan) = ([0, 0, 4], [0, 4, 8]);
        assert!(validate::validate(&p, &start, None).is_valid() && validate::validate(&p, &plan, None).is_valid());
        assert_eq!(return_to_start(&p, &start, &mut plan), 2);
        assert_eq!(plan, start);
        // x holds only its byte 0 over [1, 3): y, alive then, may go back to byte 1.
        let p = problem(vec![
            Buffer::new("x", 0, 4, 4).with_gaps(vec![Gap::windowed(1, 3, 0, 1)]),
            Buffer::new("y", 1, 3, 2),
        ]);
        let (start, mut plan) = ([0, 1], [0, 2]);
        assert!(validate::validate(&p, &start, None).is_valid() && validate::validate(&p, &plan, None).is_valid());
        assert_eq!(return_to_start(&p, &start, &mut plan), 1);
        assert_eq!(plan, start);
    }

    #[test]
    fn a_run_from_a_start_moves_only_what_its_saving_needs() {
        // The start wastes 4 bytes (b above the gap); the run saves them: b must move, and of the
        // rest only what the solver's plan cannot give back.
        let p = problem(vec![
            Buffer::new("a", 0, 4, 4),
            Buffer::new("b", 0, 4, 4),
            Buffer::new("c", 4, 8, 4),
            Buffer::new("d", 4, 8, 4),
        ]);
        let start = vec![0, 8, 0, 4];
        let run = crate::run::Request::new("auto").warm_start(start.clone()).run(&p).unwrap();
        assert!(run.is_valid(), "{:?}", run.violations);
        let mut offsets = run.outcome.offsets().to_vec();
        assert_eq!(crate::model::load::makespan(p.buffers(), &offsets), 8);
        assert_ne!(offsets[1], 8);
        assert!(offsets.iter().zip(&start).filter(|(a, b)| a != b).count() < 4, "{offsets:?}");
        // Nothing is left that could still go back.
        assert_eq!(return_to_start(&p, &start, &mut offsets), 0);

        // A start no run beats is kept whole.
        let at_bound = vec![0, 4, 0, 4];
        let run = crate::run::Request::new("auto").warm_start(at_bound.clone()).run(&p).unwrap();
        assert_eq!(run.outcome.offsets(), &at_bound[..]);
    }
}
