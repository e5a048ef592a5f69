//! Deciding whether a problem fits a capacity: the quick refutations first, then the canonical
//! search under each pre-ordering in turn with a node limit that doubles every round.
//!
//! The orderings of one round run in parallel (rayon, in slices that keep every thread busy:
//! [`round`]) and the answer is the one of the first ordering, by position, that decided. An
//! ordering is told to give up only once an ordering before it has decided, so the answer does
//! not depend on the thread count or on timing.

use super::orderings::{self, ORDERINGS};
use super::piecewise::{self, Piecewise};
use super::search::{Allowance, Counters, Ending, Rules, Search};
use super::sections::{Layout, MAX_PAIRS, RankedBuffers};
use super::spanning::Spanning;
use crate::metrics;
use crate::model::{Buffer, Problem};
use crate::options::{Deadline, Halt};
use crate::solvers::tiling::{self, Tiling};

/// How the search runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    pub rules: Rules,
    /// The node limit of each ordering in the first round; it doubles every round.
    pub first_limit: u64,
    /// How many pre-orderings rotate (1..=6).
    pub orderings: usize,
    /// A total node budget over all rounds and orderings (`u64::MAX`: none). Unlike a time limit
    /// it keeps the answer reproducible.
    pub budget: u64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings { rules: Rules::default(), first_limit: 2048, orderings: 3, budget: u64::MAX }
    }
}

/// What a feasibility search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Decision {
    Feasible {
        offsets: Vec<u64>,
        placement_order: Vec<usize>,
    },
    Infeasible(String),
    /// Stopped by the deadline, the cancel flag or the node budget.
    Unknown,
}

/// The decision with what it cost.
#[derive(Clone, Debug)]
pub(crate) struct Report {
    pub decision: Decision,
    pub counters: Counters,
    pub rounds: u64,
    /// The name of the ordering that decided, if one did.
    pub ordering: Option<String>,
    /// The buffers stacked below the search's before it ran ([`Spanning`]).
    pub stacked: usize,
    /// When infeasible: no plan fits any capacity below this either (at least the capacity + 1;
    /// see [`Search::refuted_below`]).
    pub refuted_below: u64,
    /// Every node searched, by every ordering and the tiling search (tiling nodes as charged),
    /// including the orderings abandoned once another decided: the work the threads did, which
    /// `counters` (the budget's count, the same whatever the threads) leaves out.
    pub explored: u64,
}

impl Report {
    /// Nothing decided and nothing spent yet.
    pub(crate) fn undecided() -> Self {
        Report {
            decision: Decision::Unknown,
            counters: Counters::default(),
            rounds: 0,
            ordering: None,
            stacked: 0,
            refuted_below: 0,
            explored: 0,
        }
    }
}

/// A reason why no plan fits `capacity`, found without searching: a buffer or a pinned buffer
/// above it, pinned buffers on top of each other, or more bytes alive at once than it holds.
pub(crate) fn quick_refutation(problem: &Problem, capacity: Option<u64>) -> Option<String> {
    let buffers = problem.buffers();
    if let Some(reason) = pinned_overlap(problem) {
        return Some(reason);
    }
    let capacity = capacity?;
    if let Some(b) = buffers.iter().find(|b| b.size > capacity) {
        return Some(format!("buffer {} needs {} bytes, more than the capacity {capacity}", b.id, b.size));
    }
    if let Some(b) = buffers.iter().find(|b| b.pinned.is_some_and(|offset| offset + b.size > capacity)) {
        let offset = b.pinned.unwrap_or(0); // found by is_some_and
        return Some(format!(
            "pinned buffer {} ends at {}, above the capacity {capacity}",
            b.id,
            offset + b.size // no overflow: checked by Problem::new
        ));
    }
    if problem.max_load() > capacity {
        let when = metrics::peak_time(buffers).map(|t| format!(" at time {t}")).unwrap_or_default();
        return Some(format!(
            "{} bytes are alive at once{when}, more than the capacity {capacity}",
            problem.max_load()
        ));
    }
    None
}

/// Two pinned buffers whose live pieces meet: alive at one time in common bytes (a buffer in a
/// windowed gap occupies only its window then; hulls that overlap prove nothing).
fn pinned_overlap(problem: &Problem) -> Option<String> {
    let buffers = problem.buffers();
    let mut pinned: Vec<usize> = (0..buffers.len()).filter(|&i| buffers[i].pinned.is_some()).collect();
    pinned.sort_unstable_by_key(|&i| (buffers[i].start, i));
    let mut alive: Vec<usize> = Vec::new();
    for &i in &pinned {
        let b = &buffers[i];
        alive.retain(|&j| buffers[j].end > b.start);
        let low = b.pinned.unwrap_or(0); // filtered above
        for &j in &alive {
            let other = buffers[j].pinned.unwrap_or(0); // filtered above
            if other < low + b.size && low < other + buffers[j].size && pieces_meet(b, low, &buffers[j], other) {
                return Some(format!("pinned buffers {} and {} overlap", buffers[j].id, b.id));
            }
        }
        alive.push(i);
    }
    None
}

/// Whether some live piece of `a` at `offset` meets one of `b` at `other_offset`.
fn pieces_meet(a: &Buffer, offset: u64, b: &Buffer, other_offset: u64) -> bool {
    let theirs = b.pieces();
    a.pieces().iter().any(|p| theirs.iter().any(|q| p.meets(offset, q, other_offset)))
}

/// How many tiling nodes cost about as much as one node of the canonical search, and are
/// charged as one to the node budget: a tiling node walks the sections once, a canonical node
/// its buffers and their sections several times (perfect packings of 1,000 buffers: about 5 µs
/// against 20 µs).
const TILING_NODES_PER_NODE: u64 = 4;

/// One ordering's outcome in a round, with the plan when it solved.
type OrderingResult = (Ending, Counters, Option<(Vec<u64>, Vec<usize>)>);

/// The search's view of a problem under each pre-ordering, built once and reused by every probe
/// of a minimisation: with its spanning buffers stacked at the bottom ([`Spanning`], when the
/// rule is on and there are any), of the rest.
pub(crate) struct Prepared {
    instances: Vec<(String, RankedBuffers)>,
    spanning: Option<Spanning>,
    /// With windowed gaps, the search that honours them ([`piecewise`]) instead of the orderings'.
    piecewise: Option<piecewise::Model>,
}

impl Prepared {
    /// Refuses problems with too many overlapping pairs (see [`MAX_PAIRS`]), counted without the
    /// stacked buffers.
    pub(crate) fn new(problem: &Problem, settings: &Settings) -> Result<Prepared, Halt> {
        let spanning = if settings.rules.spanning { Spanning::new(problem) } else { None };
        let problem = spanning.as_ref().map_or(problem, |reduced| &reduced.rest);
        if piecewise::applies(problem) {
            let model = piecewise::Model::new(problem).ok_or_else(|| {
                Halt::Unsupported(
                    "too many buffers, or alignments with too large a common multiple, for the exact search of windows"
                        .into(),
                )
            })?;
            return Ok(Prepared { instances: Vec::new(), spanning, piecewise: Some(model) });
        }
        let layout = Layout::new(problem);
        if layout.overlapping_pairs() > MAX_PAIRS {
            return Err(Halt::Unsupported(format!(
                "more than {MAX_PAIRS} pairs of buffers overlap in time: too large for the exact search"
            )));
        }
        let keys = layout.keys(problem);
        let count = settings.orderings.clamp(1, ORDERINGS.len());
        let instances = ORDERINGS[..count]
            .iter()
            .map(|ordering| {
                let order = orderings::arrange(&layout, &keys, ordering);
                let mut instance = layout.instance(problem, &order);
                (instance.preorder_key, instance.total_key) = orderings::preorder_keys(&keys, ordering, &order);
                (orderings::name(ordering), instance)
            })
            .collect();
        Ok(Prepared { instances, spanning, piecewise: None })
    }

    /// The buffers the search places: `problem`'s, less the stacked ones.
    fn searched<'p>(&'p self, problem: &'p Problem) -> &'p Problem {
        self.spanning.as_ref().map_or(problem, |reduced| &reduced.rest)
    }

    /// How many buffers are stacked below the search's (see [`Spanning`]).
    pub(crate) fn stacked(&self) -> usize {
        self.spanning.as_ref().map_or(0, |reduced| reduced.stack.len())
    }

    /// The whole problem's offsets and placement order from a plan of the searched buffers.
    fn lift(&self, offsets: Vec<u64>, order: Vec<usize>) -> (Vec<u64>, Vec<usize>) {
        match &self.spanning {
            Some(reduced) => reduced.lift(&offsets, &order),
            None => (offsets, order),
        }
    }

    /// The stack's height (0 without one): the searched buffers go on top of it.
    fn height(&self) -> u64 {
        self.spanning.as_ref().map_or(0, |reduced| reduced.height)
    }
}

/// Decides whether `problem` fits `capacity`.
pub(crate) fn decide(
    problem: &Problem,
    capacity: u64,
    settings: &Settings,
    deadline: &Deadline,
) -> Result<Report, Halt> {
    if let Some(reason) = quick_refutation(problem, Some(capacity)) {
        let mut report = Report::undecided();
        report.decision = Decision::Infeasible(reason);
        report.refuted_below = capacity.saturating_add(1);
        return Ok(report);
    }
    let prepared = Prepared::new(problem, settings)?;
    Ok(decide_prepared(problem, &prepared, capacity, settings, deadline))
}

/// [`decide`] on a prepared problem.
pub(crate) fn decide_prepared(
    problem: &Problem,
    prepared: &Prepared,
    capacity: u64,
    settings: &Settings,
    deadline: &Deadline,
) -> Report {
    let mut decider = Decider::new(problem, prepared, capacity, settings);
    decider.advance(settings.budget, deadline);
    decider.report
}

/// A feasibility search at one capacity that can be resumed: [`Decider::advance`] spends more
/// nodes where the last call stopped, so that asking the same question again with a larger budget
/// (a minimisation that returns to its lower bound every round) wastes nothing.
pub(crate) struct Decider<'p> {
    /// The searched buffers ([`Prepared::searched`]), and the capacity asked about.
    problem: &'p Problem,
    prepared: &'p Prepared,
    capacity: u64,
    /// One search per ordering, each kept from round to round.
    searches: Vec<Search<'p>>,
    /// At a tight capacity, the tiling search, which goes first in every round.
    tiling: Option<Tiling>,
    /// With windowed gaps, the one search that runs ([`piecewise`]).
    piecewise: Option<Piecewise<'p>>,
    /// The cumulative node limit of each ordering in the current round.
    limit: u64,
    /// What has been decided and counted so far (nodes of every call).
    pub report: Report,
}

impl<'p> Decider<'p> {
    pub(crate) fn new(problem: &'p Problem, prepared: &'p Prepared, capacity: u64, settings: &Settings) -> Self {
        let mut report = Report { stacked: prepared.stacked(), ..Report::undecided() };
        let mut tiling = None;
        let mut windowed = None;
        let searched = prepared.searched(problem);
        // The searched buffers go on the stack: what is left of the capacity for them. The
        // refutations are the whole problem's (so are their reasons); past them, the stack fits.
        let (refuted, left) = match quick_refutation(problem, Some(capacity)) {
            Some(reason) => (Some(reason), 0),
            None => match prepared.spanning.as_ref().map_or(Some(capacity), |reduced| reduced.capacity(capacity)) {
                Some(left) => (quick_refutation(searched, Some(left)), left),
                None => (Some(format!("the buffers alive throughout need more than {capacity} bytes")), 0),
            },
        };
        let searches = match refuted {
            Some(reason) => {
                report.decision = Decision::Infeasible(reason);
                report.refuted_below = capacity.saturating_add(1);
                Vec::new()
            }
            None => {
                if let Some(model) = &prepared.piecewise {
                    windowed = Some(Piecewise::new(model, left, settings.rules.canonical, settings.rules.memo));
                } else if settings.rules.tiling {
                    tiling = Tiling::new(searched, left);
                }
                prepared.instances.iter().map(|(_, instance)| Search::new(instance, left, settings.rules)).collect()
            }
        };
        Decider {
            problem: searched,
            prepared,
            capacity,
            searches,
            tiling,
            piecewise: windowed,
            limit: settings.first_limit.max(1),
            report,
        }
    }

    /// The capacity asked about.
    pub(crate) fn capacity(&self) -> u64 {
        self.capacity
    }

    /// Whether the question is answered (a plan or a proof).
    pub(crate) fn decided(&self) -> bool {
        self.report.decision != Decision::Unknown
    }

    /// Searches on for at most about `nodes` more nodes (each ordering of a round may spend what
    /// is left), or until `deadline`. Returns the nodes counted by this call.
    pub(crate) fn advance(&mut self, nodes: u64, deadline: &Deadline) -> u64 {
        let instances = &self.prepared.instances;
        let mut spent = 0u64;
        while !self.decided() {
            if deadline.expired().is_some() || spent >= nodes {
                break;
            }
            self.report.rounds += 1;
            if self.piecewise.is_some() {
                self.advance_piecewise(nodes - spent, &mut spent, deadline);
                continue;
            }
            if self.advance_tiling(nodes - spent, &mut spent, deadline) {
                break;
            }
            if deadline.expired().is_some() || spent >= nodes {
                break;
            }
            // Each ordering may spend its share of what is left, so that the nodes counted stay
            // within the budget; the cumulative limit doubles, within that share.
            let share = (nodes - spent).div_ceil(self.searches.len() as u64);
            let limit = self.limit;
            let before: Vec<Counters> = self.searches.iter().map(|search| search.counters).collect();
            let to: Vec<u64> = before.iter().map(|counters| limit.min(counters.nodes.saturating_add(share))).collect();
            let endings = round::run(&mut self.searches, &to, deadline);
            let problem = self.problem;
            let results: Vec<OrderingResult> = endings
                .into_iter()
                .zip(&self.searches)
                .zip(&before)
                .enumerate()
                .map(|(k, ((outcome, search), before))| {
                    let plan = (outcome == Ending::Solved).then(|| plan_of(problem, &instances[k].1, search));
                    (outcome, search.counters.since(before), plan)
                })
                .collect();
            // Only the orderings up to the decisive one count: those after it were abandoned at a
            // moment that depends on timing, and counting their nodes would make the budget (and so
            // the answer of a budgeted run) differ from run to run.
            let decisive = results.iter().position(|(outcome, _, _)| *outcome != Ending::Stopped);
            self.report.explored += results.iter().map(|(_, counters, _)| counters.nodes).sum::<u64>();
            for (_, counters, _) in &results[..decisive.map_or(results.len(), |k| k + 1)] {
                self.report.counters.add(counters);
                spent = spent.saturating_add(counters.nodes);
            }
            if let Some(k) = decisive {
                self.report.ordering = Some(instances[k].0.clone());
                let (outcome, _, plan) = &results[k];
                self.report.decision = match (outcome, plan) {
                    (Ending::Solved, Some((offsets, placement_order))) => {
                        let (offsets, placement_order) = self.prepared.lift(offsets.clone(), placement_order.clone());
                        Decision::Feasible { offsets, placement_order }
                    }
                    // The decisive ordering's own count: the others' depend on when they were stopped.
                    (_, _) => {
                        let (refuted, nodes) = (self.searches[k].refuted_below(), self.searches[k].counters.nodes);
                        self.refuted(refuted, nodes)
                    }
                };
                // The searches are done with; their memory goes.
                self.searches = Vec::new();
                break;
            }
            self.limit = limit.saturating_mul(2);
        }
        spent
    }
}

impl Decider<'_> {
    /// The decision of a search that exhausted its tree: no plan within the capacity, and none
    /// below `refuted` (the search's own capacity is what the stack leaves, so its range is
    /// lifted back by the stack's height).
    fn refuted(&mut self, refuted: u64, nodes: u64) -> Decision {
        let below = refuted.saturating_add(self.prepared.height());
        self.report.refuted_below = below;
        let range = if below > self.capacity.saturating_add(1) {
            format!(" (nor in fewer than {below})")
        } else {
            String::new()
        };
        Decision::Infeasible(format!(
            "the exact search proved that no placement fits in {} bytes{range} ({nodes} nodes)",
            self.capacity
        ))
    }

    /// The windowed search's turn: it may spend what is `left`. Decides, or stops at the node
    /// limit or the deadline.
    fn advance_piecewise(&mut self, left: u64, spent: &mut u64, deadline: &Deadline) {
        let Some(search) = self.piecewise.as_mut() else { return };
        let before = search.counters;
        let never = || false;
        let node_limit = before.nodes.saturating_add(left);
        let outcome = search.run(&Allowance { node_limit, deadline, abandon: &never });
        let used = search.counters.since(&before);
        self.report.counters.add(&used);
        self.report.explored += used.nodes;
        *spent = spent.saturating_add(used.nodes);
        self.report.decision = match outcome {
            Ending::Stopped => return,
            Ending::Solved => {
                let (offsets, placement_order) = search.plan(self.problem);
                let (offsets, placement_order) = self.prepared.lift(offsets, placement_order);
                Decision::Feasible { offsets, placement_order }
            }
            Ending::Exhausted => {
                let (refuted, nodes) = (search.refuted_below(), search.counters.nodes);
                self.refuted(refuted, nodes)
            }
        };
        self.report.ordering = Some("windows".into());
        self.piecewise = None;
    }

    /// The tiling search's turn in a round, if the capacity is tight: as much as the orderings'
    /// round together, in cost (see [`TILING_NODES_PER_NODE`]), within what is `left`. Where it
    /// applies it is the search that decides; the orderings go on only in case it stalls on an
    /// instance it does not suit. Returns whether it decided.
    fn advance_tiling(&mut self, left: u64, spent: &mut u64, deadline: &Deadline) -> bool {
        let Some(tiling) = self.tiling.as_mut() else { return false };
        let before = tiling.nodes;
        let charge = self.limit.saturating_mul(self.searches.len().max(1) as u64).min(left);
        let outcome = tiling.run(before.saturating_add(charge.saturating_mul(TILING_NODES_PER_NODE)), deadline);
        let used = tiling.nodes - before;
        let charged = used.div_ceil(TILING_NODES_PER_NODE);
        self.report.counters.nodes += charged;
        self.report.counters.tiling_nodes += used;
        self.report.explored += charged;
        *spent = spent.saturating_add(charged);
        self.report.decision = match outcome {
            tiling::Ending::Stopped => return false,
            tiling::Ending::Solved { offsets, placement_order } => {
                let (offsets, placement_order) = self.prepared.lift(offsets, placement_order);
                Decision::Feasible { offsets, placement_order }
            }
            tiling::Ending::Exhausted => {
                self.report.refuted_below = self.capacity.saturating_add(1);
                Decision::Infeasible(format!(
                    "the tiling search proved that no placement fits in {} bytes, all of them used ({} nodes)",
                    self.capacity, tiling.nodes
                ))
            }
        };
        self.report.ordering = Some("tiling".into());
        self.searches = Vec::new();
        self.tiling = None;
        true
    }
}

/// The offsets of a solved search, by problem index (pinned buffers at their offsets), and the
/// placement order (pinned first).
fn plan_of(problem: &Problem, instance: &RankedBuffers, search: &Search) -> (Vec<u64>, Vec<usize>) {
    let buffers = problem.buffers();
    let mut offsets: Vec<u64> = buffers.iter().map(|b| b.pinned.unwrap_or(0)).collect();
    for (rank, &i) in instance.original.iter().enumerate() {
        offsets[i] = search.offset[rank];
    }
    let mut order: Vec<usize> = (0..buffers.len()).filter(|&i| buffers[i].pinned.is_some()).collect();
    order.extend(search.placement_order().into_iter().map(|rank| instance.original[rank as usize]));
    (offsets, order)
}

mod round;
mod shelf;
#[cfg(test)]
mod tests;

pub(crate) use shelf::Shelf;
