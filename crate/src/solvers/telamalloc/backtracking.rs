//! Decision points and TelaMalloc's smart backtracking (§5.4).
//!
//! A minor backtrack tries the next candidate of the same decision point. A major backtrack, when
//! every candidate of a decision point failed, jumps to the deepest earlier placement named in the
//! explanations of those failures ("the second-to-last conflicting placement": the last one is the
//! failed candidate itself), and prepends the failed candidates to that point's own, since blocks
//! that caused failures matter. A count of backtracks since the search last left a subtree jumps
//! out of a subtree where the search is stuck.

use std::collections::VecDeque;

/// One decision point of the search tree: the state with every shallower placement made.
#[derive(Debug, Default)]
pub(super) struct Level {
    /// The buffer placed here now, if any.
    pub placed: Option<u32>,
    /// Candidates not tried yet, in order.
    pub pending: VecDeque<u32>,
    /// Candidates that failed here, immediately or after their subtree.
    pub failed: Vec<u32>,
    /// Decision levels (shallower than this one) of placements that explain the failures here.
    pub conflict: Vec<u32>,
    /// Where the propagator's trail stood before this level's placement.
    pub mark: usize,
}

impl Level {
    /// The deepest decision level below `depth` named by this level's conflicts.
    pub(super) fn jump_target(&self, depth: usize) -> Option<usize> {
        self.conflict.iter().map(|&l| l as usize).filter(|&l| l < depth).max()
    }

    /// Puts the candidates that failed deeper in front of this level's pending ones. A complete
    /// search only reorders (`limit` None: every pending candidate stays); the heuristic search
    /// also adds new ones and keeps at most `limit`.
    pub(super) fn prepend(&mut self, failed_deeper: &[u32], limit: Option<usize>) {
        let mut merged: VecDeque<u32> = VecDeque::with_capacity(failed_deeper.len() + self.pending.len());
        for &j in failed_deeper {
            let known = limit.is_some() || self.pending.contains(&j);
            if known && !self.failed.contains(&j) && !merged.contains(&j) {
                merged.push_back(j);
            }
        }
        for &j in &self.pending {
            if !merged.contains(&j) {
                merged.push_back(j);
            }
        }
        if let Some(limit) = limit {
            merged.truncate(limit.max(1));
        }
        self.pending = merged;
    }
}

/// The backtracks since the search last jumped out of a subtree, and the shallowest decision
/// level they returned to: all of them happened inside the subtree of that level.
#[derive(Clone, Copy, Debug)]
pub(super) struct Episode {
    pub backtracks: u64,
    pub shallowest: usize,
}

impl Default for Episode {
    fn default() -> Self {
        Episode { backtracks: 0, shallowest: usize::MAX }
    }
}

impl Episode {
    pub(super) fn record(&mut self, level: usize) {
        self.backtracks += 1;
        self.shallowest = self.shallowest.min(level);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prepending_puts_failures_first_and_bounds_the_list() {
        let mut level = Level { pending: VecDeque::from(vec![5, 6, 7]), failed: vec![9], ..Level::default() };
        level.prepend(&[7, 8, 9], Some(3));
        assert_eq!(level.pending, VecDeque::from(vec![7, 8, 5]), "9 already failed here; bounded to 3");
        let mut complete = Level { pending: VecDeque::from(vec![5, 6, 7]), ..Level::default() };
        complete.prepend(&[7, 8], None);
        assert_eq!(complete.pending, VecDeque::from(vec![7, 5, 6]), "a complete search only reorders");
    }

    #[test]
    fn the_jump_goes_to_the_deepest_earlier_conflict() {
        let level = Level { conflict: vec![1, 4, 2, 7], ..Level::default() };
        assert_eq!(level.jump_target(5), Some(4));
        assert_eq!(level.jump_target(1), None);
    }
}
