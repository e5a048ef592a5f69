//! What the search did, over all parts and probes, for the solution's statistics: the paper's
//! steps and minor/major backtracks, and the propagation's work.

use super::propagation::PropagationStats;
use super::search::SearchStats;
use crate::model::{StatValue, Stats};

#[derive(Default)]
pub(super) struct Report {
    pub search: SearchStats,
    pub wipe_outs: u64,
    pub section_failures: u64,
    pub work: u64,
    pub parts: u64,
    pub searched: u64,
    pub by_baseline: u64,
    pub too_large: u64,
}

impl Report {
    pub(super) fn absorb(&mut self, search: &SearchStats, propagation: &PropagationStats) {
        self.search.add(search);
        self.wipe_outs += propagation.wipe_outs;
        self.section_failures += propagation.section_failures;
        self.work += propagation.work;
        self.searched += 1;
    }

    pub(super) fn write(&self, stats: &mut Stats) {
        let s = &self.search;
        for (name, value) in [
            ("steps", s.steps),
            ("minor_backtracks", s.minor_backtracks),
            ("major_backtracks", s.major_backtracks),
            ("subtree_jumps", s.subtree_jumps),
            ("restarts", s.restarts),
            ("splits", s.splits),
            ("memo_hits", s.memo_hits),
            ("wipe_outs", self.wipe_outs),
            ("section_failures", self.section_failures),
            ("propagation_work", self.work),
            ("parts", self.parts),
            ("parts_searched", self.searched),
            ("parts_by_baseline", self.by_baseline),
            ("parts_too_large", self.too_large),
        ] {
            stats.insert(name.into(), StatValue::Count(value));
        }
    }
}
