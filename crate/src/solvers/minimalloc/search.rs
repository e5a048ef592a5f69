//! The canonical depth-first search (MiniMalloc §6, Algorithm MINI-MALLOC) with incremental state.
//!
//! Every node extends a partial solution by one buffer placed directly on the highest placed buffer
//! it overlaps (so only "gravity-packed" solutions are built). The search keeps, per buffer, that
//! floor; per section, the total size still unplaced; per section boundary, how many unplaced
//! buffers cross it. A placement updates these along its own span and its neighbours, and is undone
//! in the reverse order from a trail, so nothing is recomputed from scratch.
//!
//! Completeness: among the feasible solutions take one with the smallest sum of offsets. Sorted by
//! (offset, rank) it is a canonical sequence in which each buffer sits at its lowest fit, so none of
//! its prefixes is cut by monotonicity; and none is cut by dominance, since a buffer that could be
//! slipped below the next one would lower the sum. Section inference only cuts nodes no solution
//! extends. Hence a search that runs out of nodes without a solution proves there is none.
//!
//! TelaMalloc's complete search (`telamalloc/canonical.rs`) prunes by the same rules under the
//! same names (maximum offset, floor, priority, section totals, crossing counts, parts and
//! splits); its module documentation says how and why it differs.

use super::heights::{self, Effective, Height};
use super::lanes::Lanes;
use super::sections::RankedBuffers;
use super::stacks::{Item, Stacker};
use super::transpositions::{self, NodeKey, Refuted};
use crate::options::Deadline;

/// The pruning rules, each of which can be switched off (for tests and for the curious): with any
/// of them off the search explores more nodes but reaches the same answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rules {
    /// Offset and index monotonicity (§5, §6.1): canonical partial solutions only.
    pub canonical: bool,
    /// Dominance (§6.3): never place a buffer at or above h_min.
    pub dominance: bool,
    /// Cross-section inference (§6.2, eq. 3, with the maximum offset and the effective height).
    pub inference: bool,
    /// Dynamic temporal decomposition (§7): solve independent parts separately.
    pub decompose: bool,
    /// Remember refuted nodes by their state and cut them when they recur.
    pub memo: bool,
    /// Of two buffers with the same lifetime stacked directly on each other, the larger (then
    /// the lower rank) goes below: swapping them gives the same plan otherwise.
    pub symmetry: bool,
    /// When a buffer none of whose neighbours is left unplaced fails, its later siblings fail
    /// too (see `Search::advance`).
    pub hatless: bool,
    /// At a tight capacity (every section with a live buffer exactly full), decide with the
    /// tiling search (`crate::solvers::tiling`) before the canonical one.
    pub tiling: bool,
    /// In the sections where the most buffers are unplaced, those buffers must stack, each at a
    /// multiple of its alignment and no lower than it can still go, under the capacity (the
    /// stacking bound inside the nodes, see `super::stacks`). Part of inference: off with it.
    pub stacking: bool,
    /// Node keys hash each floor as the search sees it, rounded up to the buffer's alignment (see
    /// `Search::floor_key`), so that more refuted states are recognised. Part of memo.
    pub coarse_keys: bool,
    /// Before searching, the buffers alive in short runs of sections, their lifetimes cut to
    /// them, are searched as instances of their own: what they need bounds the whole (see
    /// `super::windows`). Used by the solver around the search, not inside its nodes.
    pub windows: bool,
    /// The buffers alive throughout the instance are stacked at the bottom and the search places
    /// the rest under what the stack leaves of the capacity (see `super::spanning`). Applied
    /// to the instance before the search, not inside its nodes.
    pub spanning: bool,
}

impl Default for Rules {
    fn default() -> Self {
        Rules {
            canonical: true,
            dominance: true,
            inference: true,
            decompose: true,
            memo: true,
            symmetry: true,
            hatless: true,
            tiling: true,
            stacking: true,
            coarse_keys: true,
            windows: true,
            spanning: true,
        }
    }
}

/// How a search (or one part of it) ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ending {
    /// Every buffer is placed within the capacity.
    Solved,
    /// The whole tree was explored: no placement exists (a proof).
    Exhausted,
    /// The node limit, the deadline or a cancel stopped it.
    Stopped,
}

/// Counters for the solution's statistics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Counters {
    pub nodes: u64,
    pub backtracks: u64,
    /// Candidates skipped for offset or index monotonicity.
    pub pruned_canonical: u64,
    /// Candidates skipped at or above h_min.
    pub pruned_dominance: u64,
    /// Nodes cut by cross-section inference.
    pub pruned_inference: u64,
    /// Nodes cut because some buffer no longer fits under the capacity.
    pub pruned_capacity: u64,
    /// Times the unplaced buffers fell apart into independent parts.
    pub decompositions: u64,
    /// Nodes cut because the same state was refuted before.
    pub pruned_memo: u64,
    /// Candidates skipped by the same-lifetime symmetry.
    pub pruned_symmetry: u64,
    /// Candidates skipped because a sibling with no unplaced neighbour failed before them.
    pub pruned_hatless: u64,
    /// Nodes of the tiling search (`nodes` counts them as a quarter each, their cost).
    pub tiling_nodes: u64,
    /// Nodes cut by the stacking bound of a section.
    pub pruned_stacking: u64,
}

impl Counters {
    pub(crate) fn add(&mut self, other: &Counters) {
        self.nodes += other.nodes;
        self.backtracks += other.backtracks;
        self.pruned_canonical += other.pruned_canonical;
        self.pruned_dominance += other.pruned_dominance;
        self.pruned_inference += other.pruned_inference;
        self.pruned_capacity += other.pruned_capacity;
        self.decompositions += other.decompositions;
        self.pruned_memo += other.pruned_memo;
        self.pruned_symmetry += other.pruned_symmetry;
        self.pruned_hatless += other.pruned_hatless;
        self.tiling_nodes += other.tiling_nodes;
        self.pruned_stacking += other.pruned_stacking;
    }

    /// What was counted since `before` (counters only grow).
    pub(crate) fn since(&self, before: &Counters) -> Counters {
        Counters {
            nodes: self.nodes - before.nodes,
            backtracks: self.backtracks - before.backtracks,
            pruned_canonical: self.pruned_canonical - before.pruned_canonical,
            pruned_dominance: self.pruned_dominance - before.pruned_dominance,
            pruned_inference: self.pruned_inference - before.pruned_inference,
            pruned_capacity: self.pruned_capacity - before.pruned_capacity,
            decompositions: self.decompositions - before.decompositions,
            pruned_memo: self.pruned_memo - before.pruned_memo,
            pruned_symmetry: self.pruned_symmetry - before.pruned_symmetry,
            pruned_hatless: self.pruned_hatless - before.pruned_hatless,
            tiling_nodes: self.tiling_nodes - before.tiling_nodes,
            pruned_stacking: self.pruned_stacking - before.pruned_stacking,
        }
    }
}

/// A candidate of a node: the offset, the buffer's rank, and its position in the group's list.
#[derive(Clone, Copy, Debug)]
struct Candidate {
    offset: u64,
    rank: u32,
    position: u32,
}

/// One node of the depth-first search of a group, with the placement currently being tried.
#[derive(Clone, Copy, Debug)]
struct Frame {
    /// Its candidates are `candidates[from..to]`, tried from `next` on.
    from: usize,
    to: usize,
    next: usize,
    /// The node's state, remembered when it is refuted.
    key: NodeKey,
    /// The candidate placed below this node, the placement-stack length before it, and whether
    /// the candidate's buffer had no unplaced neighbour (then its failure ends the node).
    trying: Option<(Candidate, usize, bool)>,
}

/// What [`Search::holds`] learnt of a node that may have a completion.
#[derive(Clone, Copy, Debug)]
struct NodeView {
    /// The lowest top any unplaced buffer can reach (h_min, for dominance).
    lowest_top: u64,
    /// The section range `[low, high)` of the unplaced buffers searched.
    low: u32,
    high: u32,
    /// The largest unplaced total of those sections, when inference computed it.
    fullest: Option<u64>,
}

/// What the node tests read of each buffer, side by side: one record a buffer instead of five
/// arrays. In wasm each array indexed by a buffer's rank costs a bounds check and two values kept
/// in registers (or spilled) through the loop over the unplaced buffers of every node.
#[derive(Clone, Copy, Debug)]
struct Traits {
    size: u64,
    /// The smallest size among its neighbours (`u64::MAX`: none), see [`Search::height`].
    smallest_neighbour: u64,
    /// Its section span `[first, last)`.
    first: u32,
    last: u32,
    /// Whether a pinned buffer lives beside it (it may also rest on top of one).
    pinned_beside: bool,
}

/// What [`Search::fit_each`] gathers of a node's unplaced buffers.
struct Fits {
    /// The lowest top any of them can reach (h_min).
    lowest_top: u64,
    /// Their section range `[low, high)` (`low` above `high` for an empty list).
    low: u32,
    high: u32,
    /// The lowest offset a canonical child can take (see [`Search::holds`]).
    next: u64,
}

/// Nested decompositions deeper than this are searched as one (the stack of parts stays shallow).
const MAX_PART_DEPTH: u32 = 64;
/// How often (in nodes) the deadline is polled.
const POLL_EVERY: u64 = 256;
const NO_RANK: u32 = u32::MAX;
/// Refuted states remembered at most (about 40 bytes each), then forgotten. Every ordering's
/// search now lives through all rounds, so each keeps half as many as when one search at a time did.
const MEMO_LIMIT: usize = 1 << 20;
/// How many recently failed sections inference checks first.
const RECENT_FAILURES: usize = 4;

/// One group of unplaced buffers being searched depth first: no other unplaced buffer overlaps
/// them in time.
struct Group {
    list: Vec<u32>,
    stack: Vec<Frame>,
    /// The hash of the unplaced buffers outside the group (see [`Search::node_key`]).
    outside: u128,
    /// The section range `[low, high)` the group spans.
    low: u32,
    high: u32,
    /// Where the group's candidates start in the shared candidate list.
    base: usize,
    depth: u32,
    /// The priorities its buffers had before the group sorted them (see [`Search::prioritise`]),
    /// put back when it ends.
    saved: Vec<(u32, u32)>,
}

/// A split: the independent parts one placement split a group into, solved in turn; all must
/// succeed.
///
/// Each part is searched afresh, as a problem of its own on top of the placed buffers: from
/// offset 0 and any rank, not above the maximum offset of the node that split. Its buffers
/// overlap no other unplaced buffer, so any placement of each part (above the floors the placed
/// buffers leave) completes the node, canonical or not; and a part with no placement at all
/// refutes the node whatever its canonical bound. Searching from 0 lets a part fill the holes
/// below the maximum offset that a canonical order would have had to fill first, so a node that
/// has a completion succeeds at once instead of only its canonical twin elsewhere in the tree.
struct Split {
    /// The parts still to solve, the next one last.
    waiting: Vec<Vec<u32>>,
    depth: u32,
    /// The key of the node that split, with no canonical bound (`None` at the root): refuted
    /// when a part fails.
    node: Option<NodeKey>,
}

/// The search is an explicit stack of these, so that it can stop anywhere and resume later.
enum Level {
    Group(Group),
    Split(Split),
}

/// What a group's depth-first loop stopped at.
enum GroupStep {
    /// The group is solved or exhausted.
    Done(Ending),
    /// The node limit, the deadline or the abandon flag.
    Paused,
    /// The last placement split the rest into independent parts.
    Split(Split),
}

/// When a search stops: its cumulative node limit, the deadline, and a flag raised when another
/// search has already decided (parallel orderings).
pub(super) struct Allowance<'a> {
    pub node_limit: u64,
    pub deadline: &'a Deadline,
    pub abandon: &'a dyn Fn() -> bool,
}

pub(super) struct Search<'a> {
    instance: &'a RankedBuffers,
    capacity: u64,
    rules: Rules,
    pub counters: Counters,
    placed: Vec<bool>,
    /// Per rank, what the node tests read of the buffer (copied from `instance`).
    traits: Vec<Traits>,
    pub offset: Vec<u64>,
    /// For an unplaced buffer: the highest top among its placed neighbours.
    floor: Vec<u64>,
    /// Per section: the total size of its unplaced buffers.
    total: Vec<u64>,
    /// Per section and alignment class (`s * classes + k`): the `a`-slots its unplaced buffers of
    /// that class cover (see [`Search::class_top`]).
    slots: Vec<u64>,
    /// For each buffer: how many of its neighbours are unplaced.
    open: Vec<u32>,
    /// Per section boundary `x` (between sections x-1 and x): unplaced buffers alive on both sides.
    crossing: Vec<u32>,
    /// Old floors to restore, newest last.
    trail: Vec<(u32, u64)>,
    /// Placed ranks with the trail length before each, newest last.
    placements: Vec<(u32, usize)>,
    candidates: Vec<Candidate>,
    /// Scratch: the lowest fit of each buffer at the current node (empty when
    /// `fits_are_floors`), and per section the effective height.
    lowest: Vec<u64>,
    /// No pinned buffers and no alignments: every buffer's lowest fit is its floor, so `lowest`
    /// is not kept and [`Search::lowest_fit_of`] reads the floor. The fit loop then stores
    /// nothing per buffer and holds one array fewer (in wasm V8 spills values of that loop).
    fits_are_floors: bool,
    /// The fits are floors and every top under the capacity fits in 32 bits, and the module is
    /// wasm with SIMD128: [`Search::fit_floors_in_lanes`] replaces [`Search::fit_each`] (the
    /// tests switch it on natively).
    fits_in_lanes: bool,
    effective: Effective,
    /// XOR of [`transpositions::key`] over the unplaced buffers and their floors.
    floors_hash: u128,
    refuted: Refuted,
    /// Sections where inference failed recently, the latest first (`u32::MAX`: none yet).
    recent_failures: [u32; RECENT_FAILURES],
    /// The search in progress, innermost level last.
    levels: Vec<Level>,
    /// Per rank, its place in the pre-ordering of the group it is searched in: it breaks ties of
    /// the dynamic ordering and defines index monotonicity. The ranks at first; a decomposed part
    /// sorts its buffers again (see [`Search::prioritise`]).
    priority: Vec<u32>,
    started: bool,
    /// The answer, once there is one.
    finished: Option<Ending>,
    /// The node count at which the deadline is polled next.
    next_poll: u64,
    /// The lowest capacity at which some cut made so far, by a test that compares with the
    /// capacity, would not have been made (`u64::MAX`: none yet). See [`Search::refuted_below`].
    threshold: u64,
    /// The stacking bound's programme, and per section which of the list's buffers start (1) and
    /// end (2) there (scratch of [`Search::stacks_hold`], all 0 between calls).
    stacker: Stacker,
    ends: Vec<u8>,
    items: Vec<Item>,
}

impl<'a> Search<'a> {
    pub(super) fn new(instance: &'a RankedBuffers, capacity: u64, rules: Rules) -> Self {
        let n = instance.len();
        let sections = instance.section_total.len();
        let mut crossing = vec![0u32; sections + 1];
        if rules.decompose {
            let mut delta = vec![0i64; sections + 2];
            for r in 0..n {
                let (first, last) = (instance.first[r] as usize, instance.last[r] as usize);
                if last > first + 1 {
                    delta[first + 1] += 1;
                    delta[last] -= 1;
                }
            }
            let mut running = 0i64;
            for x in 0..=sections {
                running += delta[x];
                crossing[x] = running as u32;
            }
        }
        let fits_are_floors = instance.obstacles.is_empty() && instance.classes.is_empty();
        Search {
            instance,
            capacity,
            rules,
            counters: Counters::default(),
            placed: vec![false; n],
            traits: (0..n)
                .map(|r| Traits {
                    size: instance.size[r],
                    smallest_neighbour: instance.smallest_neighbour[r],
                    first: instance.first[r],
                    last: instance.last[r],
                    pinned_beside: instance.obstacle_start[r] != instance.obstacle_start[r + 1],
                })
                .collect(),
            offset: vec![0; n],
            floor: vec![0; n],
            total: instance.section_total.clone(),
            slots: instance.class_slots.clone(),
            open: (0..n).map(|r| instance.neighbours(r).len() as u32).collect(),
            crossing,
            trail: Vec::new(),
            placements: Vec::with_capacity(n),
            candidates: Vec::new(),
            lowest: if fits_are_floors { Vec::new() } else { vec![0; n] },
            fits_are_floors,
            fits_in_lanes: cfg!(all(target_arch = "wasm32", target_feature = "simd128"))
                && fits_are_floors
                && capacity < u64::from(u32::MAX),
            effective: Effective::new(sections, Self::highest_height(instance, capacity)),
            floors_hash: (0..n as u32).fold(0, |hash, rank| hash ^ transpositions::key(rank, 0)),
            refuted: Refuted::new(MEMO_LIMIT),
            recent_failures: [u32::MAX; RECENT_FAILURES],
            levels: Vec::new(),
            priority: (0..n as u32).collect(),
            started: false,
            finished: None,
            next_poll: POLL_EVERY,
            threshold: u64::MAX,
            stacker: Stacker::default(),
            ends: vec![0; sections],
            items: Vec::new(),
        }
    }

    /// Searches for a placement of every buffer until `allowance` stops it. A search that stopped
    /// resumes where it was when run again (with a larger node limit): rounds with a growing limit
    /// waste nothing. On `Solved`, `offset` holds the placement and [`Search::placement_order`]
    /// the ranks in the order they were placed.
    pub(super) fn run(&mut self, allowance: &Allowance) -> Ending {
        if let Some(outcome) = self.finished {
            return outcome;
        }
        let mut pending = None;
        if !self.started {
            self.started = true;
            let list: Vec<u32> = (0..self.instance.len() as u32).collect();
            pending = if list.is_empty() {
                Some(Ending::Solved)
            } else if self.rules.decompose
                && let Some(cuts) = self.all_cuts(&list)
            {
                self.counters.decompositions += 1;
                let split = self.split(&list, &cuts, 0, None);
                self.levels.push(Level::Split(split));
                None
            } else {
                self.enter(list, 0, NO_RANK, 0)
            };
        }
        let outcome = self.resume(pending, allowance);
        if outcome != Ending::Stopped {
            self.finished = Some(outcome);
        }
        outcome
    }

    /// After an exhausted search: no placement fits any capacity below this (at least one more
    /// than the capacity searched).
    ///
    /// Why: the tests that compare with the capacity (a buffer's lowest top, a section's effective
    /// height plus its unplaced total, a candidate's offset plus the fullest section) each cut
    /// below some value and pass from it on, and every other rule (canonical order, dominance,
    /// symmetry, decomposition, the remembered refutations of this search) ignores the capacity.
    /// At any capacity from the one searched up to the lowest value a cut needed, every test
    /// answers the same, so the search walks the very same tree and exhausts it too. A refuted
    /// probe then proves a whole range, not one byte: on instances with odd sizes and large
    /// alignments the next capacity where anything changes is often far above.
    pub(super) fn refuted_below(&self) -> u64 {
        self.threshold.max(self.capacity.saturating_add(1))
    }

    /// Notes a cut that a capacity of `need` would not have made.
    #[inline]
    fn cut_below(&mut self, need: u64) {
        self.threshold = self.threshold.min(need);
    }

    pub(super) fn placement_order(&self) -> Vec<u32> {
        self.placements.iter().map(|&(rank, _)| rank).collect()
    }

    /// Runs the stack of levels. `pending` is the outcome of a level just finished, to hand to the
    /// level below it; with no level left it is the answer.
    fn resume(&mut self, mut pending: Option<Ending>, allowance: &Allowance) -> Ending {
        loop {
            let Some(level) = self.levels.pop() else {
                return pending.unwrap_or(Ending::Exhausted);
            };
            match level {
                Level::Split(mut split) => match pending.take() {
                    Some(Ending::Exhausted) => {
                        // One part failed, so the node that split fails (its placements are
                        // undone by the group below, down to its own mark).
                        if self.rules.memo
                            && let Some(key) = split.node
                        {
                            self.refuted.insert(key);
                        }
                        pending = Some(Ending::Exhausted);
                    }
                    _ => match split.waiting.pop() {
                        Some(part) => {
                            let depth = split.depth;
                            self.levels.push(Level::Split(split));
                            pending = self.enter(part, 0, NO_RANK, depth + 1);
                        }
                        None => pending = Some(Ending::Solved),
                    },
                },
                Level::Group(mut group) => {
                    if pending.take() == Some(Ending::Solved) {
                        // The parts below solved the rest of the group.
                        self.restore_priorities(&group.saved);
                        self.candidates.truncate(group.base);
                        pending = Some(Ending::Solved);
                        continue;
                    }
                    // Exhausted parts: the group goes on with its next candidate.
                    match self.advance(&mut group, allowance) {
                        GroupStep::Done(outcome) => {
                            self.restore_priorities(&group.saved);
                            self.candidates.truncate(group.base);
                            pending = Some(outcome);
                        }
                        GroupStep::Paused => {
                            self.levels.push(Level::Group(group));
                            return Ending::Stopped;
                        }
                        GroupStep::Split(split) => {
                            self.levels.push(Level::Group(group));
                            self.levels.push(Level::Split(split));
                        }
                    }
                }
            }
        }
    }

    /// Starts searching a group: pushes its level, or returns its outcome at once when its root is
    /// already known to fail.
    fn enter(&mut self, list: Vec<u32>, max_offset: u64, last_rank: u32, depth: u32) -> Option<Ending> {
        // Keys of this group's nodes hash only its own buffers: the others keep their floors while
        // it is searched, so the same part met again under another parent is recognised. A part
        // also hashes its set of buffers, which fixes its priorities (see [`Search::prioritise`]).
        let context = if depth > 0 { Self::context(&list) } else { 0 };
        let outside = self.floors_hash
            ^ context
            ^ list.iter().fold(0, |hash, &r| hash ^ self.floor_key(r, self.floor[r as usize]));
        let key = self.node_key(outside, max_offset, last_rank);
        if self.rules.memo && self.refuted.contains(key) {
            self.counters.pruned_memo += 1;
            return Some(Ending::Exhausted);
        }
        let saved = if depth > 0 { self.prioritise(&list) } else { Vec::new() };
        let base = self.candidates.len();
        let Some(frame) = self.expand(&list, max_offset, last_rank, key) else {
            self.restore_priorities(&saved);
            if self.rules.memo {
                self.refuted.insert(key);
            }
            return Some(Ending::Exhausted);
        };
        let (low, high) = self.range(&list);
        self.levels.push(Level::Group(Group { list, stack: vec![frame], outside, low, high, base, depth, saved }));
        None
    }

    /// Sorts a part's buffers by the pre-ordering again, with each buffer's section total taken
    /// from the unplaced buffers of the moment instead of all of them (MiniMalloc does the same
    /// when it solves a sub-problem): a part is a problem of its own, and its contended sections
    /// are the ones to fill first. Returns the old priorities, to restore when the part ends.
    ///
    /// Why the search stays complete: index monotonicity holds for any fixed order of a part's
    /// buffers, and a part is searched afresh (see [`Split`]). Why remembered refutations stay
    /// right: the new order depends only on the part's set of buffers (the totals in its
    /// sections are theirs alone), which the part's node keys hash.
    fn prioritise(&mut self, list: &[u32]) -> Vec<(u32, u32)> {
        let instance = self.instance;
        if instance.preorder_key.is_empty() {
            return Vec::new();
        }
        let mut order: Vec<(std::cmp::Reverse<[u128; 3]>, usize, u32)> = list
            .iter()
            .map(|&rank| {
                let r = rank as usize;
                let mut key = instance.preorder_key[r];
                if let Some(slot) = instance.total_key {
                    let sections = &self.total[instance.first[r] as usize..instance.last[r] as usize];
                    key[slot] = sections.iter().copied().max().unwrap_or(0) as u128;
                }
                (std::cmp::Reverse(key), instance.original[r], rank)
            })
            .collect();
        order.sort_unstable();
        order
            .iter()
            .enumerate()
            .map(|(place, &(_, _, rank))| (rank, std::mem::replace(&mut self.priority[rank as usize], place as u32)))
            .collect()
    }

    fn restore_priorities(&mut self, saved: &[(u32, u32)]) {
        for &(rank, priority) in saved.iter().rev() {
            self.priority[rank as usize] = priority;
        }
    }

    /// The hash of an unplaced buffer at a floor, for the node keys. What the search does with a
    /// buffer depends on its floor only through the lowest multiple of its alignment at or above
    /// it (its lowest fit, its fits above pinned buffers and its height all round the floor up
    /// first), so that is what is hashed: floors a few bytes apart under one aligned slot leave
    /// the same subtree, and a refutation of one cuts the others.
    #[inline]
    fn floor_key(&self, rank: u32, floor: u64) -> u128 {
        transpositions::key(rank, self.seen_floor(rank as usize, floor))
    }

    /// The floor as the search sees it (see [`Search::floor_key`]), or the floor itself without
    /// [`Rules::coarse_keys`].
    #[inline]
    fn seen_floor(&self, r: usize, floor: u64) -> u64 {
        let alignment = self.instance.alignment[r];
        if alignment == 1 || !self.rules.coarse_keys {
            floor
        } else {
            crate::alignment::align_up(floor, alignment).unwrap_or(u64::MAX)
        }
    }

    /// The hash of a part's set of buffers (see [`Search::enter`]).
    fn context(list: &[u32]) -> u128 {
        list.iter().fold(0, |hash, &r| hash ^ transpositions::key(r, u64::MAX))
    }

    /// The depth-first loop of one group, until it is decided, paused, or split. Leaves its
    /// placements in place on `Solved`; on `Exhausted` every placement it made is undone.
    fn advance(&mut self, group: &mut Group, allowance: &Allowance) -> GroupStep {
        let Group { list, stack, outside, low, high, depth, .. } = group;
        let (outside, low, high, depth) = (*outside, *low, *high, *depth);
        while let Some(frame) = stack.last_mut() {
            if let Some((tried, mark, hatless)) = frame.trying.take() {
                self.undo_to(mark);
                restore(list, tried.rank, tried.position as usize);
                if hatless && frame.next < frame.to {
                    // Hatless pruning: the failed buffer overlapped no unplaced buffer, so in any
                    // completion below a later sibling it could sit where it was just tried
                    // instead; that completion (in the same order, without it) would then extend
                    // the failed child. The siblings fail too.
                    self.counters.pruned_hatless += (frame.to - frame.next) as u64;
                    frame.next = frame.to;
                }
            }
            if frame.next == frame.to {
                self.candidates.truncate(frame.from);
                if self.rules.memo {
                    self.refuted.insert(frame.key);
                }
                stack.pop();
                self.counters.backtracks += 1;
                continue;
            }
            // Checked before a placement, so that a paused search resumes with it.
            if self.counters.nodes >= allowance.node_limit {
                return GroupStep::Paused;
            }
            if self.counters.nodes >= self.next_poll {
                self.next_poll = self.counters.nodes + POLL_EVERY;
                if allowance.deadline.expired().is_some() || (allowance.abandon)() {
                    return GroupStep::Paused;
                }
            }
            let candidate = self.candidates[frame.next];
            frame.next += 1;
            let mark = self.placements.len();
            let hatless = self.rules.hatless && self.open[candidate.rank as usize] == 0;
            frame.trying = Some((candidate, mark, hatless));
            self.place(candidate.rank as usize, candidate.offset);
            list.swap_remove(candidate.position as usize);
            self.counters.nodes += 1;
            if list.is_empty() {
                return GroupStep::Done(Ending::Solved);
            }
            let child_max = if self.rules.canonical { candidate.offset } else { 0 };
            let child_key = self.node_key(outside, child_max, candidate.rank);
            if self.rules.memo && self.refuted.contains(child_key) {
                self.counters.pruned_memo += 1;
                continue;
            }
            if self.rules.decompose
                && depth < MAX_PART_DEPTH
                && let Some(cuts) = self.cuts(candidate.rank as usize, list, low, high)
            {
                // The node is tested before it splits, as any other: a part that cannot hold its
                // buffers is found before the parts ahead of it are solved in vain.
                if self.holds(list, child_max).is_none() {
                    continue;
                }
                self.counters.decompositions += 1;
                // A failed part refutes these floors under any canonical bound (see [`Split`]).
                let split_key = self.node_key(outside, 0, NO_RANK);
                let split = self.split(list, &cuts, depth, Some(split_key));
                // A part refuted before fails the split at once: the parts before it in the
                // solving order would be solved again only to be undone.
                if self.rules.memo && split.waiting.iter().any(|part| self.refuted.contains(self.part_key(part))) {
                    self.counters.pruned_memo += 1;
                    self.refuted.insert(split_key);
                    continue;
                }
                return GroupStep::Split(split);
            }
            if let Some(child) = self.expand(list, child_max, candidate.rank, child_key) {
                stack.push(child);
            }
        }
        GroupStep::Done(Ending::Exhausted)
    }

    /// The buffers of `list` split at the cuts, to be solved small parts first: they are cheap,
    /// and one that fails spares the others.
    fn split(&self, list: &[u32], cuts: &[u32], depth: u32, node: Option<NodeKey>) -> Split {
        let mut waiting: Vec<Vec<u32>> = vec![Vec::new(); cuts.len() + 1];
        for &rank in list {
            let first = self.instance.first[rank as usize];
            waiting[cuts.partition_point(|&x| x <= first)].push(rank);
        }
        waiting.retain(|part| !part.is_empty());
        // Largest first in the list: the smallest is popped first (ties: the earlier part first).
        waiting.reverse();
        waiting.sort_by_key(|part| std::cmp::Reverse(part.len()));
        Split { waiting, depth, node }
    }

    /// The key a part's root node will have when it is entered (see [`Search::enter`]): it
    /// hashes only the part's own buffers, which the other parts never touch.
    fn part_key(&self, part: &[u32]) -> NodeKey {
        let own = part.iter().fold(0, |hash, &r| hash ^ self.floor_key(r, self.floor[r as usize]));
        transpositions::node_key(own ^ Self::context(part), 0, NO_RANK)
    }

    /// The state of the node reached (see [`transpositions`]). Index monotonicity compares
    /// priorities, so the key holds the last placed buffer's priority.
    fn node_key(&self, outside: u128, max_offset: u64, last_rank: u32) -> NodeKey {
        let last = if last_rank == NO_RANK { NO_RANK } else { self.priority[last_rank as usize] };
        transpositions::node_key(self.floors_hash ^ outside, max_offset, last)
    }

    /// The section range `[low, high)` spanned by the buffers of `list`.
    fn range(&self, list: &[u32]) -> (u32, u32) {
        let low = list.iter().map(|&r| self.instance.first[r as usize]).min().unwrap_or(0);
        let high = list.iter().map(|&r| self.instance.last[r as usize]).max().unwrap_or(0);
        (low, high)
    }

    /// After placing `rank`: the section boundaries inside the group's range that no unplaced
    /// buffer crosses any more, if any (then the group falls apart at them). Only boundaries inside
    /// the placed buffer's span can have become free.
    fn cuts(&self, rank: usize, list: &[u32], low: u32, high: u32) -> Option<Vec<u32>> {
        let (first, last) = (self.instance.first[rank], self.instance.last[rank]);
        let from = first.max(low) + 1;
        let to = last.min(high);
        if from >= to || !(from..to).any(|x| self.crossing[x as usize] == 0) {
            return None;
        }
        self.all_cuts(list)
    }

    /// Every free boundary strictly inside the range of `list`: with unplaced buffers on both
    /// sides, each is a real cut.
    fn all_cuts(&self, list: &[u32]) -> Option<Vec<u32>> {
        let (l, h) = self.range(list);
        let cuts: Vec<u32> = (l + 1..h).filter(|&x| self.crossing[x as usize] == 0).collect();
        (!cuts.is_empty()).then_some(cuts)
    }

    /// Computes a node's candidates (sorted by offset, then rank) and pushes its frame, or returns
    /// `None` when the node is cut: a buffer no longer fits, or a section cannot hold its
    /// unplaced buffers (eq. 3).
    fn expand(&mut self, list: &[u32], max_offset: u64, last_rank: u32, key: NodeKey) -> Option<Frame> {
        let instance = self.instance;
        let view = self.holds(list, max_offset)?;
        let lowest_top = view.lowest_top;
        // Eq. (3) for every child at once: a child's maximum offset is its candidate's offset,
        // and every buffer still unplaced in a section then stacks above it (above the candidate
        // itself where it is alive too). So no candidate above the capacity less the fullest
        // section's unplaced total has a completion: they are cut here, before they are sorted,
        // instead of making each child to see its inference fail.
        let headroom = if self.rules.inference && self.rules.canonical {
            let fullest = match view.fullest {
                Some(fullest) => fullest,
                None => self.total[view.low as usize..view.high as usize].iter().copied().max().unwrap_or(0),
            };
            Some((self.capacity.saturating_sub(fullest), fullest))
        } else {
            None
        };
        let from = self.candidates.len();
        // The last candidate the rules let through (a candidate above a pinned buffer that it
        // repeats is not considered again), and the lowest offset cut by the headroom.
        let mut last_kept: Option<(u32, u64)> = None;
        let mut lowest_cut = u64::MAX;
        // Without pinned buffers no buffer has obstacles: the loop over them is skipped whole
        // rather than asked for an empty slice of each buffer.
        let pinned = !instance.obstacles.is_empty();
        for (position, &rank) in list.iter().enumerate() {
            let r = rank as usize;
            let offset = self.lowest_fit_of(r);
            let candidate = Candidate { offset, rank, position: position as u32 };
            if self.consider(candidate, max_offset, last_rank, lowest_top) {
                last_kept = Some((rank, offset));
                self.keep_under(candidate, headroom, &mut lowest_cut);
            }
            if !pinned {
                continue;
            }
            // Beside a pinned buffer a buffer may also rest on top of it (the gaps above).
            for obstacle in instance.obstacles(r) {
                if obstacle.top > offset
                    && let Some(above) = instance.lowest_fit(r, obstacle.top.max(self.floor[r]))
                    && let Some(top) = above.checked_add(instance.size[r])
                    && (top <= self.capacity || {
                        self.cut_below(top);
                        false
                    })
                    && last_kept != Some((rank, above))
                {
                    let candidate = Candidate { offset: above, rank, position: position as u32 };
                    if self.consider(candidate, max_offset, last_rank, lowest_top) {
                        last_kept = Some((rank, above));
                        self.keep_under(candidate, headroom, &mut lowest_cut);
                    }
                }
            }
        }
        if let Some((_, fullest)) = headroom
            && lowest_cut != u64::MAX
        {
            self.cut_below(lowest_cut.saturating_add(fullest));
        }
        let to = self.candidates.len();
        let priority = &self.priority;
        self.candidates[from..to].sort_unstable_by_key(|c| (c.offset, priority[c.rank as usize]));
        Some(Frame { from, to, next: from, key, trying: None })
    }

    /// Whether the node can still be completed as far as cheap tests tell: every buffer still
    /// fits under the capacity, and every section can hold its unplaced buffers (eq. 3). Sets
    /// each buffer's lowest fit; returns the lowest top among them (h_min, for dominance).
    fn holds(&mut self, list: &[u32], max_offset: u64) -> Option<NodeView> {
        // Without pinned buffers or alignments every buffer's lowest fit is its floor: that case
        // gets a loop of its own, with no call, no `Option` (in wasm an `Option` a call may
        // return is kept in memory, on every buffer of every node) and no store.
        let fits = if self.fits_in_lanes {
            self.fit_floors_in_lanes(list, max_offset)
        } else if self.fits_are_floors {
            self.fit_each::<false>(list, max_offset, |_, _, _, floor| (Some(floor), false))
        } else {
            self.fit_each::<true>(list, max_offset, |instance, r, traits, floor| {
                if traits.pinned_beside {
                    (instance.lowest_fit(r, floor), true)
                } else {
                    (crate::alignment::align_up(floor, instance.alignment[r]), false)
                }
            })
        };
        let Fits { lowest_top, mut low, mut high, next } = fits?;
        if list.is_empty() {
            (low, high) = (0, 0);
        }
        let mut fullest = None;
        if self.rules.inference {
            // The next placement is a candidate, at or above the maximum offset, and a canonical
            // search places nothing lower after it: the lowest candidate offset is a floor for
            // every buffer still unplaced (buffers beside pinned ones may also go above them:
            // their lowest fit counts whatever it is).
            let floor = if self.rules.canonical {
                if next == u64::MAX {
                    // Every buffer is stuck below the maximum offset: no candidate at all.
                    self.counters.pruned_inference += 1;
                    return None;
                }
                max_offset.max(next)
            } else {
                0
            };
            let Some(most) = self.sections_hold(list, floor, low, high) else {
                self.counters.pruned_inference += 1;
                return None;
            };
            fullest = Some(most);
            if self.rules.stacking && !self.stacks_hold(list, floor, low, high) {
                self.counters.pruned_stacking += 1;
                return None;
            }
        }
        Some(NodeView { lowest_top, low, high, fullest })
    }

    /// Sets each buffer's lowest fit (`fit` gives it from the buffer's floor, and whether the
    /// buffer is beside a pinned one; kept in `lowest` when `KEEP`, else it is the floor), or
    /// returns `None` when one no longer fits under the capacity. Gathers in the same pass what
    /// [`Search::holds`] needs of them. Never inlined: a call a node costs nothing, and on its own
    /// the loop's running minimums and maximums get registers whatever the code around
    /// [`Search::holds`] becomes (inlined, one of them went to the stack after an unrelated change
    /// elsewhere in the LTO build, and the native search took 6–8 % longer on the same nodes).
    #[inline(never)]
    fn fit_each<const KEEP: bool>(
        &mut self,
        list: &[u32],
        max_offset: u64,
        fit: impl Fn(&RankedBuffers, usize, &Traits, u64) -> (Option<u64>, bool),
    ) -> Option<Fits> {
        let instance = self.instance;
        let mut fits = Fits { lowest_top: u64::MAX, low: u32::MAX, high: 0, next: u64::MAX };
        for &rank in list {
            let r = rank as usize;
            let traits = &self.traits[r];
            let (lowest, pinned_beside) = fit(instance, r, traits, self.floor[r]);
            let top = lowest.and_then(|o| o.checked_add(traits.size));
            match top {
                Some(top) if top <= self.capacity => {
                    let lowest = lowest.unwrap_or(0); // Some: top is Some
                    if KEEP {
                        self.lowest[r] = lowest;
                    }
                    fits.lowest_top = fits.lowest_top.min(top);
                    fits.low = fits.low.min(traits.first);
                    fits.high = fits.high.max(traits.last);
                    if lowest >= max_offset || pinned_beside {
                        fits.next = fits.next.min(lowest);
                    }
                }
                _ => return self.no_longer_fits(top),
            }
        }
        Some(fits)
    }

    /// [`Search::fit_each`] where every lowest fit is the floor and the capacity is below
    /// `u32::MAX` (see `fits_in_lanes`): every top that fits, and so every floor counted, is
    /// below `u32::MAX` too, so the four running values are `u32`s in one [`Lanes`] (the
    /// section range's high end as its complement, `u32::MAX` standing for "none"), and the
    /// result is the same.
    #[inline(never)]
    fn fit_floors_in_lanes(&mut self, list: &[u32], max_offset: u64) -> Option<Fits> {
        debug_assert!(self.fits_are_floors && self.capacity < u64::from(u32::MAX));
        let capacity = self.capacity;
        let mut least = Lanes::none();
        for &rank in list {
            let r = rank as usize;
            let traits = &self.traits[r];
            let floor = self.floor[r];
            match floor.checked_add(traits.size) {
                Some(top) if top <= capacity => {
                    let next = if floor >= max_offset { floor as u32 } else { u32::MAX };
                    least = least.lower([top as u32, traits.first, !traits.last, next]);
                }
                top => return self.no_longer_fits(top),
            }
        }
        let widen = |least: u32| if least == u32::MAX { u64::MAX } else { u64::from(least) };
        let [lowest_top, low, high, next] = least.get();
        Some(Fits { lowest_top: widen(lowest_top), low, high: !high, next: widen(next) })
    }

    /// The fit loops' way out when a buffer's lowest fit no longer fits under the capacity
    /// (`top` is its top, `None` past `u64::MAX`): counts the cut and notes the capacity that
    /// would have kept the node ([`Search::cut_below`]).
    fn no_longer_fits(&mut self, top: Option<u64>) -> Option<Fits> {
        if let Some(top) = top {
            self.cut_below(top);
        }
        self.counters.pruned_capacity += 1;
        None
    }

    /// Whether the candidate passes the rules of a single placement (counting the one that
    /// rejects it).
    #[inline(always)]
    fn consider(&mut self, candidate: Candidate, max_offset: u64, last_rank: u32, lowest_top: u64) -> bool {
        if self.rules.canonical
            && (candidate.offset < max_offset
                || (candidate.offset == max_offset
                    && last_rank != NO_RANK
                    && self.priority[candidate.rank as usize] < self.priority[last_rank as usize]))
        {
            self.counters.pruned_canonical += 1;
            return false;
        }
        if self.rules.dominance && candidate.offset >= lowest_top {
            self.counters.pruned_dominance += 1;
            return false;
        }
        if self.rules.symmetry && self.on_smaller_twin(candidate) {
            self.counters.pruned_symmetry += 1;
            return false;
        }
        true
    }

    /// Adds a candidate the rules let through, unless it is above the node's `headroom` (the
    /// capacity less the fullest section's unplaced total, with that total; see
    /// [`Search::expand`]): then it is cut, and `lowest_cut` keeps the lowest offset cut.
    #[inline]
    fn keep_under(&mut self, candidate: Candidate, headroom: Option<(u64, u64)>, lowest_cut: &mut u64) {
        if let Some((headroom, _)) = headroom
            && candidate.offset > headroom
        {
            self.counters.pruned_inference += 1;
            *lowest_cut = (*lowest_cut).min(candidate.offset);
            return;
        }
        self.candidates.push(candidate);
    }

    /// Whether the candidate would sit directly on a placed buffer of the same lifetime that is
    /// smaller (or as large with a higher rank): the swapped pair is searched instead.
    ///
    /// Why this keeps a solution: among all solutions take one minimising Σ size² × offset (then
    /// offsets by rank, lexicographically). Lowering any buffer lowers that sum, so the
    /// completeness argument of the other rules holds for it; and swapping a smaller buffer below
    /// with a larger one directly above lowers it too (by s·l·(l − s)), so that solution never
    /// has one.
    #[inline(always)]
    fn on_smaller_twin(&self, candidate: Candidate) -> bool {
        let r = candidate.rank as usize;
        let key = (std::cmp::Reverse(self.instance.size[r]), candidate.rank);
        self.instance.twins(r).iter().any(|&t| {
            let t = t as usize;
            self.placed[t]
                && self.offset[t] + self.instance.size[t] == candidate.offset
                && (std::cmp::Reverse(self.instance.size[t]), t as u32) > key
        })
    }

    /// Eq. (3) with both strengthenings: in every section, the unplaced buffers stack above the
    /// lowest offset any of them can still take (never below `max_offset`, the floor of every
    /// later placement when the search is canonical), and must fit under the capacity.
    ///
    /// Most nodes that fail, fail in a section that failed recently: those few sections are
    /// checked first, from their own members, before the sweep over every section.
    ///
    /// `[low, high)` is the list's section range: only sections inside it are tested, since there
    /// every unplaced buffer is in the list (the others are in other parts), so its lowest fit is
    /// the current one. Returns, when the node holds, the largest unplaced total of those sections.
    fn sections_hold(&mut self, list: &[u32], max_offset: u64, low: u32, high: u32) -> Option<u64> {
        let base = if self.rules.canonical { max_offset } else { 0 };
        for w in 0..RECENT_FAILURES {
            let s = self.recent_failures[w];
            if (low..high).contains(&s) {
                let need = self.section_need(s as usize, base);
                if need > self.capacity {
                    self.cut_below(need);
                    // Move it to the front: the next failure is likely there again.
                    self.recent_failures[..=w].rotate_right(1);
                    return None;
                }
            }
        }
        let mut effective = std::mem::replace(&mut self.effective, Effective::taken());
        let fullest = match &mut effective {
            Effective::Narrow(heights) => self.sweep(heights, list, base, low, high),
            Effective::Wide(heights) => self.sweep(heights, list, base, low, high),
        };
        self.effective = effective;
        fullest
    }

    /// The sweep of [`Search::sections_hold`] in either width of the effective heights: lowers
    /// each section's height to that of every unplaced buffer alive in it, then tests each
    /// section (and leaves every height at [`Height::NONE`] again).
    #[inline(always)]
    fn sweep<H: Height>(&mut self, effective: &mut [H], list: &[u32], base: u64, low: u32, high: u32) -> Option<u64> {
        let instance = self.instance;
        for &rank in list {
            let r = rank as usize;
            let Traits { first, last, .. } = self.traits[r];
            let Some(height) = self.height(r, base) else {
                if low < high {
                    effective[low as usize..high as usize].fill(H::NONE);
                }
                return None;
            };
            heights::lower_to(&mut effective[first as usize..last as usize], H::narrow(height));
        }
        let mut failed = None;
        // The capacity this node needs: the most any section needs.
        let mut needed = 0;
        let mut fullest = 0;
        // Without alignments or pins a section's stack top is its effective height plus its
        // total (what [`Search::stack_top`] returns then), here without a call per section.
        let plain = instance.classes.is_empty() && instance.pins.is_empty();
        for (s, slot) in (low as usize..).zip(&mut effective[low as usize..high as usize]) {
            let total = self.total[s];
            fullest = fullest.max(total);
            let height = std::mem::replace(slot, H::NONE);
            if height != H::NONE {
                let height = height.widen();
                let need = if plain { height.saturating_add(total) } else { self.stack_top(s, height) };
                needed = needed.max(need);
                if failed.is_none() && need > self.capacity {
                    failed = Some(s);
                }
            }
        }
        if let Some(s) = failed {
            self.cut_below(needed);
            self.recent_failures.rotate_right(1);
            self.recent_failures[0] = s as u32;
            return None;
        }
        Some(fullest)
    }

    /// The highest effective height a search at `capacity` can compute (see [`Search::height`]):
    /// a lowest fit or maximum offset is at most the capacity, and a buffer stuck below the
    /// maximum offset is lifted by at most its smallest neighbour.
    fn highest_height(instance: &RankedBuffers, capacity: u64) -> u64 {
        let lift = (0..instance.len())
            .filter(|&r| !instance.neighbours(r).is_empty())
            .map(|r| instance.smallest_neighbour[r])
            .max()
            .unwrap_or(0);
        capacity.saturating_add(lift)
    }

    /// The stacking bound ([`super::stacks`]) in the sections of the list's range where one of
    /// its buffers starts and one ends: any other section's unplaced buffers are alive in a
    /// neighbouring section too, at the same releases, so it cannot need more. Each buffer's
    /// release is the lowest offset it can still take ([`Search::height`], `base` as in
    /// [`Search::sections_hold`]). Only sections with an aligned buffer: without one, eq. (3)
    /// sees nearly as much.
    fn stacks_hold(&mut self, list: &[u32], base: u64, low: u32, high: u32) -> bool {
        let instance = self.instance;
        if instance.classes.is_empty() && instance.pins.is_empty() {
            return true;
        }
        for &rank in list {
            let r = rank as usize;
            if instance.last[r] > instance.first[r] {
                self.ends[instance.first[r] as usize] |= 1;
                self.ends[instance.last[r] as usize - 1] |= 2;
            }
        }
        let mut items = std::mem::take(&mut self.items);
        let mut holds = true;
        for s in low as usize..high as usize {
            if std::mem::take(&mut self.ends[s]) != 3 || !holds {
                continue;
            }
            items.clear();
            let mut aligned = false;
            for &member in instance.members(s) {
                let m = member as usize;
                // Unplaced and alive in `s` (not in a gap there); a buffer that can never be
                // placed has failed eq. (3) already.
                if self.placed[m] || !instance.live(m).iter().any(|&(from, to)| from as usize <= s && s < to as usize) {
                    continue;
                }
                let Some(release) = self.height(m, base) else { continue };
                aligned |= instance.alignment[m] > 1;
                items.push(Item::new(member, instance.size[m], instance.alignment[m], release));
            }
            let pins = instance.pins(s);
            if (aligned || !pins.is_empty())
                && items.len() > 1
                && let Some(need) = self.stacker.need_around(&mut items, pins, s as u32, self.capacity)
            {
                self.cut_below(need);
                holds = false;
            }
        }
        self.items = items;
        holds
    }

    /// Eq. (3) in one section, from its members: the capacity the section needs (`u64::MAX` when
    /// one of its buffers can never be placed, whatever the capacity; 0 when none is unplaced).
    fn section_need(&self, s: usize, base: u64) -> u64 {
        let mut effective = u64::MAX;
        for &member in self.instance.members(s) {
            let m = member as usize;
            if !self.placed[m] {
                match self.height(m, base) {
                    Some(height) => effective = effective.min(height),
                    None => return u64::MAX,
                }
            }
        }
        if effective == u64::MAX { 0 } else { self.stack_top(s, effective) }
    }

    /// The lowest top of a stack of section `s`'s unplaced buffers (all alive together, so
    /// disjoint in addresses) none of which starts below `effective`: their total above it,
    /// around the bytes pinned buffers hold in the section (no buffer alive there may use them),
    /// and for each alignment class the padding it forces ([`Search::class_top`]).
    fn stack_top(&self, s: usize, effective: u64) -> u64 {
        let classes = self.instance.classes.len();
        if classes == 0 && self.instance.pins.is_empty() {
            return effective.saturating_add(self.total[s]);
        }
        let mut top = self.instance.top_around_pins(s, effective, self.total[s]);
        for k in 0..classes {
            let slots = self.slots[s * classes + k];
            if slots > 0 {
                top = top.max(self.class_top(s, k, slots, effective));
            }
        }
        top
    }

    /// The alignment bound of one class in one section. The unplaced buffers of the section whose
    /// alignment is a multiple of the class's `a` start at multiples of `a`, at or above
    /// `effective`, and never share an `a`-slot (a buffer of size `z` covers `⌈z / a⌉` of them
    /// wherever it starts). So the highest of them starts at least `slots − ⌈z / a⌉` slots above
    /// the first multiple of `a` at or above `effective`, and ends `z` above that: at least
    /// `align_up(effective) + a·slots − (a·⌈z / a⌉ − z)`, where the padding `a·⌈z / a⌉ − z` is at most
    /// the largest of the section's class members (placed or not: a looser but fixed bound).
    /// Smaller-aligned buffers may fill the padding; the total bound covers them.
    fn class_top(&self, s: usize, k: usize, slots: u64, effective: u64) -> u64 {
        let instance = self.instance;
        let a = instance.classes[k];
        let pad = instance.class_pad[s * instance.classes.len() + k];
        let Some(first) = crate::alignment::align_up(effective, a) else {
            return u64::MAX;
        };
        let span = (a as u128) * (slots as u128) - pad as u128;
        u64::try_from(first as u128 + span).unwrap_or(u64::MAX)
    }

    /// The lowest offset an unplaced buffer can still take at this node (its lowest fit, and no
    /// lower than `base`, the maximum offset placed), or `None` when it can never be placed.
    #[inline(always)]
    fn height(&self, r: usize, base: u64) -> Option<u64> {
        let traits = &self.traits[r];
        let lowest = self.lowest_fit_of(r);
        if lowest < base && !traits.pinned_beside {
            // Stuck below the maximum offset: only a neighbour placed later (at or above it) can
            // lift this buffer to a canonical offset, so it ends at least that much higher; with
            // no unplaced neighbour left it never can.
            if self.open[r] == 0 {
                return None;
            }
            return Some(base.saturating_add(traits.smallest_neighbour));
        }
        Some(lowest.max(base))
    }

    /// An unplaced buffer's lowest fit at the current node, as [`Search::holds`] set it.
    #[inline(always)]
    fn lowest_fit_of(&self, r: usize) -> u64 {
        if self.fits_are_floors { self.floor[r] } else { self.lowest[r] }
    }

    fn place(&mut self, rank: usize, offset: u64) {
        let instance = self.instance;
        self.placements.push((rank as u32, self.trail.len()));
        self.placed[rank] = true;
        self.offset[rank] = offset;
        self.floors_hash ^= self.floor_key(rank as u32, self.floor[rank]);
        let size = instance.size[rank];
        let top = offset + size; // no overflow: candidates fit under the capacity
        for &other in instance.neighbours(rank) {
            let o = other as usize;
            self.open[o] -= 1;
            if !self.placed[o] && self.floor[o] < top {
                self.trail.push((other, self.floor[o]));
                self.floors_hash ^= self.floor_key(other, self.floor[o]) ^ self.floor_key(other, top);
                self.floor[o] = top;
            }
        }
        self.move_sections(rank, false);
    }

    /// Takes buffer `rank` out of what its sections count as unplaced (their totals, alignment
    /// slots and, for decomposition, the buffers crossing each boundary), or puts it back.
    #[inline(always)]
    fn move_sections(&mut self, rank: usize, back: bool) {
        let instance = self.instance;
        let size = instance.size[rank];
        for &(from, to) in instance.live(rank) {
            for total in &mut self.total[from as usize..to as usize] {
                *total = if back { *total + size } else { *total - size };
            }
        }
        self.move_slots(rank, back);
        let (first, last) = (instance.first[rank] as usize, instance.last[rank] as usize);
        if self.rules.decompose && last > first + 1 {
            for crossing in &mut self.crossing[first + 1..last] {
                *crossing = if back { *crossing + 1 } else { *crossing - 1 };
            }
        }
    }

    /// Takes buffer `rank`'s alignment slots out of its sections (or puts them back).
    fn move_slots(&mut self, rank: usize, back: bool) {
        let instance = self.instance;
        let classes = instance.classes.len();
        if classes == 0 || instance.alignment[rank] == 1 {
            return;
        }
        for k in 0..classes {
            let slots = instance.rank_slots[rank * classes + k];
            if slots == 0 {
                continue;
            }
            for &(from, to) in instance.live(rank) {
                for s in from as usize..to as usize {
                    let cell = &mut self.slots[s * classes + k];
                    *cell = if back { *cell + slots } else { *cell - slots };
                }
            }
        }
    }

    /// Undoes placements, newest first, until `mark` remain.
    fn undo_to(&mut self, mark: usize) {
        let instance = self.instance;
        while self.placements.len() > mark {
            let Some((rank, trail_mark)) = self.placements.pop() else { break };
            let rank = rank as usize;
            while self.trail.len() > trail_mark {
                let Some((other, floor)) = self.trail.pop() else { break };
                let current = std::mem::replace(&mut self.floor[other as usize], floor);
                self.floors_hash ^= self.floor_key(other, current) ^ self.floor_key(other, floor);
            }
            self.placed[rank] = false;
            for &other in instance.neighbours(rank) {
                self.open[other as usize] += 1;
            }
            self.floors_hash ^= self.floor_key(rank as u32, self.floor[rank]);
            self.move_sections(rank, true);
        }
    }
}

/// Puts `rank` back at `position` of a list it was swap-removed from (exactly undoing it).
fn restore(list: &mut Vec<u32>, rank: u32, position: usize) {
    if position == list.len() {
        list.push(rank);
    } else {
        let moved = list[position];
        list[position] = rank;
        list.push(moved);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Buffer;
    use crate::model::Problem;
    use crate::solvers::minimalloc::orderings::{self, ORDERINGS};
    use crate::solvers::minimalloc::sections::{Layout, RankedBuffers};

    /// Small random instances (seeded).
    fn random_problem(seed: u64) -> Problem {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let buffers = (0..24)
            .map(|i| {
                let start = rng.random_range(0..16);
                let end = start + rng.random_range(1..=10);
                Buffer::new(format!("b{i}"), start, end, 1 + rng.random_range(0..100) * rng.random_range(0..4))
            })
            .collect();
        Problem::new(buffers, None).unwrap()
    }

    /// Without inference the trees are larger: more places to pause at.
    const RULES: Rules = Rules {
        canonical: true,
        dominance: true,
        inference: false,
        decompose: true,
        memo: true,
        symmetry: true,
        hatless: true,
        tiling: false,
        stacking: true,
        coarse_keys: true,
        windows: false,
        spanning: false,
    };

    /// Nodes at most per search (searches that reach it are compared where they stopped).
    const LIMIT: u64 = 4000;

    fn run_once(instance: &RankedBuffers, capacity: u64) -> (Ending, Search<'_>) {
        let (never, deadline) = (|| false, Deadline::none());
        let mut search = Search::new(instance, capacity, RULES);
        let outcome = search.run(&Allowance { node_limit: LIMIT, deadline: &deadline, abandon: &never });
        (outcome, search)
    }

    /// [`random_problem`]`(seed)` ranked in one of the orderings, and the smallest capacity at
    /// which the search fits it, unless no capacity up to twice the load does.
    fn ranked_at_optimum(seed: u64) -> Option<(RankedBuffers, u64)> {
        let problem = random_problem(seed);
        let layout = Layout::new(&problem);
        let keys = layout.keys(&problem);
        let instance = layout.instance(&problem, &orderings::arrange(&layout, &keys, &ORDERINGS[seed as usize % 3]));
        let load = problem.max_load();
        let optimum = (load..=2 * load).find(|&c| run_once(&instance, c).0 == Ending::Solved)?;
        Some((instance, optimum))
    }

    /// What [`assert_searches_alike`] saw: how many compared pairs of searches cut nodes by
    /// inference, by the capacity (a buffer no longer fits), and backtracked more than 20 times.
    #[derive(Default)]
    struct Compared {
        inference: usize,
        capacity: usize,
        searched: usize,
    }

    /// Searches each of a dozen small random instances at the smallest capacity that fits and
    /// the one below it, with inference as each of `inferences` says, twice: as [`Search::new`]
    /// sets the search up, and after `variant` changes how it computes the same thing. Both must
    /// walk the same tree: same outcome, counts, placement order and plan.
    fn assert_searches_alike(inferences: &[bool], variant: impl Fn(&mut Search, &str)) -> Compared {
        let (never, deadline) = (|| false, Deadline::none());
        let allowance = Allowance { node_limit: LIMIT, deadline: &deadline, abandon: &never };
        let mut compared = Compared::default();
        for seed in 0..12 {
            let Some((instance, optimum)) = ranked_at_optimum(seed) else { continue };
            for capacity in [optimum - 1, optimum] {
                for &inference in inferences {
                    let context = format!("seed {seed}, capacity {capacity}, inference {inference}");
                    let rules = Rules { inference, ..RULES };
                    let mut usual = Search::new(&instance, capacity, rules);
                    let mut changed = Search::new(&instance, capacity, rules);
                    variant(&mut changed, &context);
                    let outcome = usual.run(&allowance);
                    assert_eq!(outcome, changed.run(&allowance), "{context}");
                    assert_eq!(usual.counters, changed.counters, "{context}");
                    assert_eq!(usual.placement_order(), changed.placement_order(), "{context}");
                    assert_eq!(usual.offset, changed.offset, "{context}");
                    compared.inference += usize::from(usual.counters.pruned_inference > 0);
                    compared.capacity += usize::from(usual.counters.pruned_capacity > 0);
                    compared.searched += usize::from(usual.counters.backtracks > 20);
                }
            }
        }
        compared
    }

    /// The effective heights in 32 bits (chosen whenever they fit, as on these instances) and in
    /// 64 bits walk the same tree.
    #[test]
    fn both_widths_of_the_effective_heights_search_alike() {
        let compared = assert_searches_alike(&[true], |search, context| {
            assert!(matches!(search.effective, Effective::Narrow(_)), "{context}: heights fit in 32 bits");
            search.effective = Effective::new(search.instance.section_total.len(), u64::MAX);
        });
        let compared = compared.inference;
        assert!(compared >= 4, "inference cut too few nodes ({compared}): the sweep is barely compared");
    }

    /// Reading each buffer's floor as its lowest fit (chosen without pins or alignments, as on
    /// these instances) and keeping the lowest fits apart walk the same tree, with inference on
    /// (its sweep reads the fits) and off.
    #[test]
    fn floors_read_as_fits_search_as_kept_fits() {
        let compared = assert_searches_alike(&[false, true], |search, context| {
            assert!(search.fits_are_floors, "{context}: no pins or alignments");
            search.fits_are_floors = false;
            search.fits_in_lanes = false;
            search.lowest = vec![0; search.instance.len()];
        });
        let searched = compared.searched;
        assert!(searched >= 4, "too few instances need search ({searched}): the fits are barely compared");
    }

    /// The fit loop with its running values in 32-bit lanes (wasm's; natively only here) and
    /// the scalar one walk the same tree, with inference on and off.
    #[test]
    fn the_fit_loop_in_lanes_searches_as_the_scalar_one() {
        let compared = assert_searches_alike(&[false, true], |search, context| {
            assert!(search.fits_are_floors && search.capacity < u64::from(u32::MAX), "{context}");
            assert_eq!(search.fits_in_lanes, cfg!(all(target_arch = "wasm32", target_feature = "simd128")));
            search.fits_in_lanes = true;
        });
        let (searched, capacity) = (compared.searched, compared.capacity);
        assert!(searched >= 4, "too few instances need search ({searched}): the fit loops are barely compared");
        assert!(capacity >= 1, "no buffer ever stopped fitting: the loops' failure is not compared");
    }

    /// A search paused at many node limits and resumed each time walks exactly the tree of one
    /// uninterrupted run: same outcome, same counts, same plan (or the same partial placement
    /// where both stopped at the node limit). Tried at the smallest capacity
    /// that fits and the one below it, where the search must backtrack (inference off, so that
    /// it backtracks a lot).
    #[test]
    fn a_resumed_search_is_the_same_search() {
        let (never, deadline) = (|| false, Deadline::none());
        let mut hard = 0;
        for seed in 0..24 {
            let Some((instance, optimum)) = ranked_at_optimum(seed) else { continue };
            for capacity in [optimum - 1, optimum] {
                let (expected, straight) = run_once(&instance, capacity);
                let mut resumed = Search::new(&instance, capacity, RULES);
                let mut limit = 1;
                let outcome = loop {
                    let node_limit = limit.min(LIMIT);
                    let outcome = resumed.run(&Allowance { node_limit, deadline: &deadline, abandon: &never });
                    if outcome != Ending::Stopped || node_limit == LIMIT {
                        break outcome;
                    }
                    limit += 1 + limit / 4;
                };
                assert_eq!(outcome, expected, "seed {seed}, capacity {capacity}");
                assert_eq!(resumed.counters, straight.counters, "seed {seed}, capacity {capacity}");
                assert_eq!(resumed.placement_order(), straight.placement_order(), "seed {seed}");
                if outcome == Ending::Solved {
                    assert_eq!(resumed.offset, straight.offset, "seed {seed}");
                }
                if straight.counters.backtracks > 20 {
                    hard += 1;
                }
            }
        }
        assert!(hard >= 4, "too few instances need search ({hard}): resumption is barely tested");
    }
}
