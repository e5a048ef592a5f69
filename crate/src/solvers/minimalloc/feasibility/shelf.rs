//! Searches left without an answer, kept so that asking the same capacity again resumes them.
//!
//! A timed minimisation returns to a few capacities again and again: the lower bound every round,
//! and the capacities just below the best plan, which its descent asks each round with a longer
//! time slice. A search started afresh at each ask throws away what the earlier slices explored
//! (challenging D at 994 units of 1,024 bytes: asked three times for 1.9, 1.9 and 3.7 s, each from
//! nothing, while one search of about 1.6 s finds a plan). Searches hold their refuted-state memos,
//! so only a few are kept: the lowest capacity (the bound) and the highest ones.

use super::Decider;

/// How many searches a shelf keeps.
const KEPT: usize = 3;

/// Unanswered searches by capacity, the lowest and the highest kept.
#[derive(Default)]
pub(crate) struct Shelf<'p> {
    /// By capacity, ascending; no two at one capacity.
    searches: Vec<Decider<'p>>,
}

impl<'p> Shelf<'p> {
    /// The search kept at `capacity`, taken off the shelf.
    pub(crate) fn take(&mut self, capacity: u64) -> Option<Decider<'p>> {
        let at = self.searches.iter().position(|decider| decider.capacity() == capacity)?;
        Some(self.searches.remove(at))
    }

    /// Keeps an unanswered search; past [`KEPT`], the second lowest goes (the lowest is the bound,
    /// asked every round; the highest are those the descent asks next).
    pub(crate) fn keep(&mut self, decider: Decider<'p>) {
        if decider.decided() {
            return;
        }
        let capacity = decider.capacity();
        self.searches.retain(|kept| kept.capacity() != capacity);
        let at = self.searches.partition_point(|kept| kept.capacity() < capacity);
        self.searches.insert(at, decider);
        if self.searches.len() > KEPT {
            self.searches.remove(1);
        }
    }

    /// Drops the searches at or above `makespan`: a plan that low answers them.
    pub(crate) fn settle_from(&mut self, makespan: u64) {
        self.searches.retain(|kept| kept.capacity() < makespan);
    }

    /// Drops the searches below `bound`: nothing fits there.
    pub(crate) fn refute_below(&mut self, bound: u64) {
        self.searches.retain(|kept| kept.capacity() >= bound);
    }

    /// The capacities kept, ascending.
    #[cfg(test)]
    pub(crate) fn capacities(&self) -> Vec<u64> {
        self.searches.iter().map(Decider::capacity).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Buffer, Problem};
    use crate::options::SolveOptions;
    use crate::solvers::minimalloc::{Prepared, Settings};

    /// Four buffers alive together (L = 10): every capacity from 10 up fits, so a search at 10 or
    /// more that has not run is unanswered.
    fn problem() -> Problem {
        let sizes = [1, 2, 3, 4];
        Problem::new(sizes.iter().enumerate().map(|(i, &s)| Buffer::new(format!("b{i}"), 0, 2, s)).collect(), None)
            .unwrap()
    }

    #[test]
    fn keeps_the_lowest_and_the_highest_and_resumes_by_capacity() {
        let problem = problem();
        let settings = Settings::default();
        let prepared = Prepared::new(&problem, &settings).unwrap();
        let mut shelf = Shelf::default();
        for capacity in [10, 14, 12, 13] {
            shelf.keep(Decider::new(&problem, &prepared, capacity, &settings));
        }
        assert_eq!(shelf.capacities(), vec![10, 13, 14], "the second lowest goes");
        let resumed = shelf.take(13).expect("kept at 13");
        assert_eq!(resumed.capacity(), 13);
        assert!(shelf.take(12).is_none());
        assert_eq!(shelf.capacities(), vec![10, 14]);
        shelf.keep(resumed);
        shelf.settle_from(13);
        assert_eq!(shelf.capacities(), vec![10], "a plan at 13 answers 13 and 14");
        shelf.refute_below(11);
        assert!(shelf.capacities().is_empty());
    }

    #[test]
    fn an_answered_search_is_not_kept() {
        let problem = problem();
        let settings = Settings::default();
        let prepared = Prepared::new(&problem, &settings).unwrap();
        let mut decider = Decider::new(&problem, &prepared, 10, &settings);
        decider.advance(u64::MAX, &SolveOptions::default().deadline());
        assert!(decider.decided());
        let mut shelf = Shelf::default();
        shelf.keep(decider);
        assert!(shelf.capacities().is_empty());
    }
}
