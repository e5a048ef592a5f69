//! The independent parts of a problem (§5.3: time points no lifetime crosses split it) and the
//! best plan known for each. Parts are solved one at a time, and a plan for every part is a plan
//! for the whole, whose peak is the highest part's. Storage is flat (one offset per buffer, part
//! bounds into one member list), so a trace of many short-lived buffers costs no allocation per part.

use super::propagation::Failure;
use super::search::{Ending, Limits, Search, Settings};
use super::timeline::Timeline;
use super::{phases, report::Report};
use crate::model::Problem;
use crate::options::Halt;

/// Parts with more (buffer, section) pairs than this are not searched: the per-section layout
/// would need too much memory. Their plan is a greedy one.
const SEARCH_LIMIT: u64 = 4_000_000;
/// Parts with more pairs than this are searched without cross-section reasoning, whose checks
/// visit every buffer alive in every touched section.
const CROSS_SECTION_LIMIT: u64 = 1_000_000;
/// Complete attempts list every candidate at every level: O(n²) memory.
const COMPLETE_LIMIT: usize = 4_000;

/// What searching a part gave.
pub(super) enum Searched {
    /// A plan within the capacity, now kept.
    Found,
    /// The limits stopped it (`None`: the step budget).
    Stopped(Option<Halt>),
    /// Proof that no plan fits, with the reason.
    Infeasible(String),
}

pub(super) struct Parts {
    /// Part `k` is `members[bounds[k]..bounds[k + 1]]`.
    members: Vec<usize>,
    bounds: Vec<usize>,
    /// Per part: the peak of its best plan (`None`: no plan yet; a plan may peak at u64::MAX, so
    /// no value can stand for "none") and a proven lower bound.
    pub makespan: Vec<Option<u64>>,
    pub proven_lower: Vec<u64>,
    incidences: Vec<u64>,
    /// Per buffer: its offset in its part's best plan.
    offsets: Vec<u64>,
    /// Per buffer: its position in the placement order of the plan its offset came from.
    rank: Vec<usize>,
    /// Per part: the order a search placed its buffers in, when a search made its plan.
    searched_order: Vec<Option<Vec<usize>>>,
}

impl Parts {
    pub(super) fn split(problem: &Problem) -> Parts {
        let buffers = problem.buffers();
        let (members, bounds) = phases::independent_parts(buffers);
        let count = bounds.len() - 1;
        let mut parts = Parts {
            members,
            bounds,
            makespan: vec![None; count],
            proven_lower: vec![0; count],
            incidences: vec![1; count],
            offsets: vec![0; buffers.len()],
            rank: vec![0; buffers.len()],
            searched_order: vec![None; count],
        };
        for k in 0..count {
            let members = parts.members(k);
            let pinned_top = members.iter().filter_map(|&i| buffers[i].pinned.map(|p| p + buffers[i].size)).max();
            let lower = max_load(buffers, members).max(pinned_top.unwrap_or(0));
            if members.len() > 1 {
                parts.incidences[k] = Timeline::incidences(buffers, members);
            }
            parts.proven_lower[k] = lower;
        }
        parts
    }

    pub(super) fn len(&self) -> usize {
        self.makespan.len()
    }

    pub(super) fn members(&self, k: usize) -> &[usize] {
        &self.members[self.bounds[k]..self.bounds[k + 1]]
    }

    /// A part of one buffer is solved: its pinned offset or 0.
    pub(super) fn place_singles(&mut self, problem: &Problem) {
        for k in 0..self.len() {
            if let &[i] = self.members(k) {
                let buffer = &problem.buffers()[i];
                self.offsets[i] = buffer.pinned.unwrap_or(0);
                self.makespan[k] = Some(self.offsets[i] + buffer.size); // fits: checked when the problem was built
            }
        }
    }

    /// Takes, for every part where `wanted(k)` and where it is better, what a whole-problem plan
    /// gives.
    pub(super) fn adopt(
        &mut self,
        problem: &Problem,
        offsets: &[u64],
        order: &[usize],
        wanted: impl Fn(usize) -> bool,
    ) {
        let buffers = problem.buffers();
        let mut position = vec![0usize; buffers.len()];
        for (p, &i) in order.iter().enumerate() {
            position[i] = p;
        }
        for k in (0..self.len()).filter(|&k| wanted(k)) {
            let range = self.bounds[k]..self.bounds[k + 1];
            let peak = self.members[range.clone()].iter().map(|&i| offsets[i] + buffers[i].size).max().unwrap_or(0);
            if self.makespan[k].is_none_or(|best| peak < best) {
                self.makespan[k] = Some(peak);
                for &i in &self.members[range] {
                    self.offsets[i] = offsets[i];
                    self.rank[i] = position[i];
                }
                self.searched_order[k] = None;
            }
        }
    }

    /// Whether part `k` has a plan within `capacity`.
    pub(super) fn fits(&self, k: usize, capacity: u64) -> bool {
        self.makespan[k].is_some_and(|peak| peak <= capacity)
    }

    pub(super) fn searchable(&self, k: usize) -> bool {
        self.incidences[k] <= SEARCH_LIMIT
    }

    /// Searches part `k` at `capacity`, keeping the plan it finds.
    pub(super) fn search(
        &mut self,
        k: usize,
        problem: &Problem,
        settings: &Settings,
        capacity: u64,
        limits: &Limits,
        report: &mut Report,
    ) -> Searched {
        let timeline = Timeline::new(problem.buffers(), self.members(k));
        let mut settings = settings.clone();
        settings.cross_section &= self.incidences[k] <= CROSS_SECTION_LIMIT;
        if timeline.len() > COMPLETE_LIMIT {
            settings.restarts_before_complete = u32::MAX;
        }
        let mut search = match Search::new(&timeline, capacity, settings) {
            Ok(search) => search,
            Err(failure) => {
                self.refuted(k, capacity);
                return Searched::Infeasible(explain(problem, &timeline, failure, capacity));
            }
        };
        let outcome = search.run(limits);
        report.absorb(&search.search_stats(), &search.propagation());
        match outcome {
            Ending::Found { offsets, order } => {
                let buffers = problem.buffers();
                let mut peak = 0;
                for (j, &i) in timeline.global.iter().enumerate() {
                    self.offsets[i] = offsets[j];
                    peak = peak.max(offsets[j] + buffers[i].size);
                }
                self.makespan[k] = Some(peak);
                self.searched_order[k] = Some(order.iter().map(|&j| timeline.global[j as usize]).collect());
                Searched::Found
            }
            Ending::Infeasible(failure) => {
                self.refuted(k, capacity);
                Searched::Infeasible(match failure {
                    Some(failure) => explain(problem, &timeline, failure, capacity),
                    None => format!("a complete search found no plan within {capacity} bytes"),
                })
            }
            Ending::Stopped(why) => Searched::Stopped(why),
        }
    }

    /// Records a proof that no plan of part `k` fits in `capacity`. At u64::MAX that means no plan
    /// at all; the bound saturates there, which stays true (if weaker).
    fn refuted(&mut self, k: usize, capacity: u64) {
        self.proven_lower[k] = self.proven_lower[k].max(capacity.saturating_add(1));
    }

    /// The whole plan from the parts' plans (every part must have one), and a placement order:
    /// each part's search order, or the order of the plan its offsets came from.
    pub(super) fn assemble(&self) -> (Vec<u64>, Vec<usize>) {
        let mut order = Vec::with_capacity(self.offsets.len());
        for k in 0..self.len() {
            match &self.searched_order[k] {
                Some(searched) => order.extend_from_slice(searched),
                None => {
                    let from = order.len();
                    order.extend_from_slice(self.members(k));
                    order[from..].sort_unstable_by_key(|&i| self.rank[i]);
                }
            }
        }
        (self.offsets.clone(), order)
    }
}

/// The most bytes alive at once among `members`.
fn max_load(buffers: &[crate::Buffer], members: &[usize]) -> u64 {
    match members {
        [only] => buffers[*only].size,
        // At most the problem's max load, which fits in u64.
        _ => crate::metrics::max_load_wide(members.iter().map(|&i| &buffers[i])) as u64,
    }
}

/// The reason for an infeasibility proof, with the buffers' own ids.
fn explain(problem: &Problem, timeline: &Timeline, failure: Failure, capacity: u64) -> String {
    let id = |j: u32| &problem.buffers()[timeline.global[j as usize]].id;
    match failure {
        Failure::WipeOut(j) => {
            format!("buffer {} fits nowhere within {capacity} bytes around the pinned buffers", id(j))
        }
        Failure::Section(t) => {
            let with = timeline.alive(t).first().map(|&j| id(j).clone()).unwrap_or_default();
            format!("around the pinned buffers, the buffers alive together with {with} cannot share {capacity} bytes")
        }
        Failure::Pinned(j) => {
            format!("pinned buffer {} overlaps another pinned buffer or ends above {capacity}", id(j))
        }
    }
}
