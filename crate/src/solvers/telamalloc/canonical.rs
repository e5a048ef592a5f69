//! TelaMalloc's complete search: depth first over MiniMalloc's canonical solutions, with
//! cross-section inference and dynamic decomposition. The heuristic attempts of [`super::search`]
//! alternate with it, and it is what proves that nothing fits.
//!
//! It prunes by the rules of MiniMalloc's search ([`crate::solvers::minimalloc`], module
//! `search`), and each idea has the same name in both:
//!
//! - Canonical solutions (MiniMalloc §6.1): buffers are placed by non-decreasing offset (offset
//!   monotonicity), ties at the `max_offset` of the last placement in `priority` order (index
//!   monotonicity). A buffer's `floor` is the highest top of the placed buffers it overlaps; it is
//!   placed at its lowest aligned fit at or above its floor, and only when that is not below the
//!   maximum offset (in a canonical completion a buffer whose floor is lower rests on a buffer
//!   placed later). So what is placed in a section is a skyline, never a hole above the maximum
//!   offset.
//! - Dominance (§6.3): no candidate at or above `lowest_top` (h_min), the lowest top any unplaced
//!   buffer of the part could reach.
//! - Cross-section inference (§6.2, eq. 3 with both strengthenings): in every section the
//!   `total` size of its unplaced buffers must fit above the maximum offset and above its
//!   effective height, the lowest `height` any of them can still take.
//! - Dynamic decomposition (§7): once no unplaced buffer is `crossing` a section boundary, the
//!   unplaced buffers on either side never interact again; a `Split` holds those independent
//!   `Part`s, solved in turn, and one that fails refutes the placement that split them.
//!
//! How it differs from MiniMalloc's search:
//!
//! - Input: one independent part as the [`Timeline`] the rest of TelaMalloc speaks. Overlaps come
//!   from its per-section lists ([`Timeline::for_each_overlapping`]), with no neighbour lists
//!   (MiniMalloc's `RankedBuffers` refuses more than 2^26 overlapping pairs). Pinned buffers are
//!   members of the search, placed in canonical order at their own offset, where MiniMalloc takes
//!   them out as obstacles and adds candidates above them.
//! - Propagation after each placement rather than a test at each node: the maximum offset is
//!   checked against every section of the part at once by a range-maximum tree over `total`
//!   ([`MaxTree`], O(log sections)), and eq. 3 with effective heights only in the sections whose
//!   buffers the placement touched, where a witness buffer per section (one that could sit low
//!   enough last time) decides most checks in O(1). MiniMalloc sweeps every section of the part
//!   it searches at every node, the sections that failed recently first. A buffer stuck below the
//!   maximum offset counts here as the maximum offset plus the smallest size of the timeline;
//!   MiniMalloc adds the smallest size among its neighbours and refutes the node when none of them
//!   is left unplaced. `lowest_top` is taken here over the lowest fits at or above the maximum
//!   offset, there over the lowest fits at or above the floors.
//! - Parts keep the maximum offset and last priority of the placement that split them (they stay
//!   canonical) and are solved tightest first; MiniMalloc searches each part afresh from offset 0
//!   under a new pre-ordering, smallest part first. Refuted parts are remembered by their exact
//!   state (members, maximum offset, last priority and the skyline over their sections), where
//!   MiniMalloc remembers every refuted node by a 128-bit hash of its floors. MiniMalloc's
//!   same-lifetime symmetry and hatless rules are not used.
//! - Budget: [`Canonical::run`] stops after a number of steps or a measure of work (TelaMalloc's
//!   machine-independent budget, shared with the heuristic attempts) and resumes where it stopped.
//!   Its decision points are [`Level`]s and its statistics are TelaMalloc's (steps, minor and
//!   major backtracks), so that they add up with the heuristic attempts'. MiniMalloc's search
//!   counts nodes, and its driver runs it in rounds over several pre-orderings in parallel.
//!
//! Why it does not call MiniMalloc's search: that search needs its own `RankedBuffers` (neighbour lists,
//! obstacles) built from a `Problem` for each part, counts nodes where TelaMalloc's budgets count
//! work, and would find other plans first. No code is shared: each pruning test reads its own
//! search's arrays in its innermost loop, where a common abstraction would cost a call or a copy.

use std::collections::HashSet;

use super::timeline::Timeline;
use crate::alignment::align_up;

const UNPLACED: u64 = u64::MAX;
const NONE: u32 = u32::MAX;
/// Words of refuted part states kept at most (8 bytes each).
const MEMO_WORDS: usize = 1 << 21;
/// How often [`Canonical::run`] asks whether to stop: every this many steps or this much work.
const POLL_STEPS: u64 = 16;
const POLL_WORK: u64 = 1 << 16;

#[derive(Clone, Copy, Debug)]
enum Change {
    Placed(u32),
    Floor { buffer: u32, old: u64 },
}

/// A decision point: the candidates for the next placement of the current part.
#[derive(Debug, Default)]
struct Level {
    candidates: Vec<u32>,
    next: usize,
    /// Where the trail stood before this level's placement.
    mark: usize,
    /// The maximum offset, and the priority of the last buffer placed at it, before this level's
    /// placement.
    max_offset: u64,
    last_priority: u32,
    /// Sections `[low, high)` holding the part's unplaced buffers.
    low: u32,
    high: u32,
    /// Unplaced buffers of the part before this level's placement.
    remaining: u32,
    /// The first decision of its part: exhausting it refutes the part.
    root: bool,
}

/// Unplaced buffers that no other unplaced buffer overlaps in time, in sections `[low, high)`.
struct Part {
    members: Vec<u32>,
    low: u32,
    high: u32,
}

/// The parts a placement split the unplaced buffers into, solved in turn (the whole timeline is
/// the one part of the first split); all must succeed.
struct Split {
    /// The level whose placement made the split (`None` for the whole timeline).
    split_level: Option<usize>,
    parts: Vec<Part>,
    /// The part being solved; those before it are placed.
    current: usize,
    /// Every part starts from the maximum offset and last priority of the placement that split.
    max_offset: u64,
    last_priority: u32,
    /// The memo key of the current part, recorded if it fails.
    key: Option<Box<[u64]>>,
    /// The priorities its parts' buffers had before [`Canonical::prioritise`] sorted them
    /// again, restored when the split closes.
    saved: Vec<(u32, u32)>,
}

/// What a call to [`Canonical::run`] ended with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum CallEnd {
    Found,
    /// The whole search is exhausted: no plan fits.
    Infeasible,
    /// The step or work budget of this call is used up; call again to continue.
    Paused,
    /// The caller's `stop` said so.
    Stopped,
}

#[derive(Clone, Debug, Default)]
pub(super) struct CanonicalStats {
    pub steps: u64,
    pub minor_backtracks: u64,
    pub major_backtracks: u64,
    pub splits: u64,
    pub memo_hits: u64,
    pub work: u64,
    pub max_placed: u64,
}

pub(super) struct Canonical<'t> {
    timeline: &'t Timeline,
    capacity: u64,
    offset: Vec<u64>,
    /// Per unplaced buffer: the highest top of the placed buffers it overlaps.
    floor: Vec<u64>,
    /// The order of ties at the same offset: a permutation of the buffers, lower first.
    priority: Vec<u32>,
    /// The smallest size: a buffer whose floor is below the maximum offset rests on a buffer
    /// placed later, so it sits at least this much above the maximum offset.
    smallest: u64,
    max_alignment: u64,
    /// Per section: the highest top placed there.
    skyline: Vec<u64>,
    /// Per section: the total size of its unplaced buffers, and its maximum over ranges.
    total: Vec<u64>,
    total_max: MaxTree,
    /// Per section: an unplaced buffer that could sit low enough for all of them when last
    /// checked (`NONE`: none yet).
    witness: Vec<u32>,
    /// Per section boundary `t` (between `t - 1` and `t`): unplaced buffers alive on both sides.
    crossing: Vec<u32>,
    /// The offset of the last placement: no later placement goes lower.
    max_offset: u64,
    /// The priority of the last placement: a later one at the same offset has a higher priority.
    last_priority: u32,
    trail: Vec<Change>,
    skyline_trail: Vec<u64>,
    levels: Vec<Level>,
    depth: usize,
    splits: Vec<Split>,
    memo: HashSet<Box<[u64]>>,
    memo_words: usize,
    /// Whether refuted parts are remembered (off only to test that the memo changes no answer).
    remember: bool,
    dirty: Vec<u32>,
    dirty_mark: Vec<u32>,
    mark_now: u32,
    scratch: Vec<(u64, u32, u32)>,
    started: bool,
    /// Whether each part of a split is searched afresh (from offset 0, its buffers sorted again
    /// by the section totals of the moment; see [`Canonical::prioritise`]) rather than going on
    /// from the maximum offset and priorities of the placement that split.
    fresh_parts: bool,
    pub stats: CanonicalStats,
}

impl<'t> Canonical<'t> {
    /// `priority` orders the buffers that share an offset (lower first).
    pub(super) fn new(timeline: &'t Timeline, capacity: u64, priority: Vec<u32>) -> Canonical<'t> {
        let n = timeline.len();
        let sections = timeline.sections();
        let mut crossing = vec![0u32; sections + 1];
        for j in 0..n as u32 {
            for b in timeline.span(j).skip(1) {
                crossing[b] += 1;
            }
        }
        let total = timeline.load.clone();
        Canonical {
            timeline,
            capacity,
            offset: vec![UNPLACED; n],
            floor: vec![0; n],
            priority,
            smallest: timeline.size.iter().copied().min().unwrap_or(0),
            max_alignment: timeline.alignment.iter().copied().max().unwrap_or(1),
            skyline: vec![0; sections],
            total_max: MaxTree::new(&total),
            total,
            witness: vec![NONE; sections],
            crossing,
            max_offset: 0,
            last_priority: NONE,
            trail: Vec::new(),
            skyline_trail: Vec::new(),
            levels: Vec::new(),
            depth: 0,
            splits: Vec::new(),
            memo: HashSet::new(),
            memo_words: 0,
            remember: true,
            dirty: Vec::new(),
            dirty_mark: vec![0; sections],
            mark_now: 0,
            scratch: Vec::new(),
            started: false,
            fresh_parts: false,
            stats: CanonicalStats::default(),
        }
    }

    /// Searches every part of a split afresh (see [`Canonical::prioritise`]).
    pub(super) fn with_fresh_parts(mut self) -> Canonical<'t> {
        self.fresh_parts = true;
        self
    }

    /// The offsets of a plan once [`CallEnd::Found`] was returned.
    pub(super) fn offsets(&self) -> &[u64] {
        &self.offset
    }

    /// The order the plan's buffers were placed in.
    pub(super) fn order(&self) -> Vec<u32> {
        self.trail.iter().filter_map(|c| if let Change::Placed(i) = c { Some(*i) } else { None }).collect()
    }

    fn is_placed(&self, j: u32) -> bool {
        self.offset[j as usize] != UNPLACED
    }

    /// The lowest offset buffer `j` could take now: aligned, at or above its floor and the maximum
    /// offset (a pinned buffer: its own, if those and the last priority allow it); `None` when
    /// there is none within the capacity.
    fn lowest_fit(&self, j: u32) -> Option<u64> {
        let t = self.timeline;
        let from = self.floor[j as usize].max(self.max_offset);
        let at = match t.pinned[j as usize] {
            Some(p)
                if from <= p
                    && (p > self.max_offset
                        || self.last_priority == NONE
                        || self.priority[j as usize] > self.last_priority) =>
            {
                p
            }
            Some(_) => return None,
            None => align_up(from, t.alignment[j as usize])?,
        };
        (at.checked_add(t.size[j as usize])? <= self.capacity).then_some(at)
    }

    /// Whether placing buffer `j` next keeps offset monotonicity: its aligned floor is not below
    /// the maximum offset (or it is pinned).
    fn offset_monotonic(&self, j: u32) -> bool {
        let t = self.timeline;
        t.pinned[j as usize].is_some()
            || align_up(self.floor[j as usize], t.alignment[j as usize]).is_some_and(|at| at >= self.max_offset)
    }

    /// Continues the search for at most `max_steps` more steps and `max_work` more work, asking
    /// `stop` now and then whether to stop.
    pub(super) fn run(&mut self, max_steps: u64, max_work: u64, stop: &mut impl FnMut() -> bool) -> CallEnd {
        let (step_limit, work_limit) =
            (self.stats.steps.saturating_add(max_steps), self.stats.work.saturating_add(max_work));
        if !self.started {
            self.started = true;
            let members: Vec<u32> = (0..self.timeline.len() as u32).collect();
            let high = self.timeline.sections() as u32;
            self.splits.push(Split {
                split_level: None,
                parts: vec![Part { members, low: 0, high }],
                current: 0,
                max_offset: 0,
                last_priority: NONE,
                key: None,
                saved: Vec::new(),
            });
            if let Some(done) = self.enter_part() {
                return done;
            }
        }
        let (mut polled_at, mut polled_at_work) = (self.stats.steps, self.stats.work);
        loop {
            if self.depth == 0 {
                return CallEnd::Infeasible;
            }
            if self.stats.steps >= step_limit || self.stats.work >= work_limit {
                return CallEnd::Paused;
            }
            if self.stats.steps >= polled_at + POLL_STEPS || self.stats.work >= polled_at_work + POLL_WORK {
                (polled_at, polled_at_work) = (self.stats.steps, self.stats.work);
                if stop() {
                    return CallEnd::Stopped;
                }
            }
            let d = self.depth - 1;
            let level = &mut self.levels[d];
            if level.next < level.candidates.len() {
                let candidate = level.candidates[level.next];
                level.next += 1;
                let (low, high, remaining) = (level.low, level.high, level.remaining);
                self.max_offset = level.max_offset;
                self.last_priority = level.last_priority;
                let mark = self.trail.len();
                level.mark = mark;
                self.stats.steps += 1;
                let Some(may_split) = self.place(candidate, low, high) else {
                    self.stats.minor_backtracks += 1;
                    self.undo_to(mark);
                    continue;
                };
                if remaining == 1 {
                    if let Some(done) = self.part_solved() {
                        return done;
                    }
                    continue;
                }
                let (mut low, mut high) = (low, high);
                if may_split {
                    let runs = self.runs(low, high);
                    if runs.len() > 1 {
                        self.split_part(d, &runs);
                        if let Some(done) = self.enter_part() {
                            return done;
                        }
                        continue;
                    }
                    (low, high) = runs[0];
                }
                let split = self.splits.len() - 1;
                self.expand(split, false, low, high, remaining - 1);
                let placed = self.trail.len() as u64;
                if placed > self.stats.max_placed {
                    self.stats.max_placed = placed;
                }
            } else {
                self.stats.major_backtracks += 1;
                if level.root {
                    if let Some(done) = self.part_failed() {
                        return done;
                    }
                } else {
                    self.depth -= 1;
                    let mark = self.levels[self.depth - 1].mark;
                    self.undo_to(mark);
                }
            }
        }
    }

    /// The current part of the innermost split is fully placed: move on to the next part, or up.
    /// `Some(Found)` when everything is placed.
    fn part_solved(&mut self) -> Option<CallEnd> {
        loop {
            let split = self.splits.last_mut()?; // a split is open while a part is
            split.current += 1;
            split.key = None;
            if split.current < split.parts.len() {
                return self.enter_part();
            }
            if let Some(done) = self.splits.pop() {
                self.restore_priorities(&done.saved);
            }
            if self.splits.is_empty() {
                return Some(CallEnd::Found);
            }
            // The enclosing part's unplaced buffers were exactly this split's: it is done too.
        }
    }

    /// Opens the root level of the innermost split's current part, unless the memo refutes it.
    fn enter_part(&mut self) -> Option<CallEnd> {
        let g = self.splits.len() - 1;
        let split = &self.splits[g];
        self.max_offset = split.max_offset;
        self.last_priority = split.last_priority;
        let part = &split.parts[split.current];
        let (low, high, count) = (part.low, part.high, part.members.len() as u32);
        if count == 0 {
            return self.part_solved();
        }
        if self.fresh_parts && split.split_level.is_some() {
            self.prioritise(g);
        }
        if self.remember && self.splits[g].split_level.is_some() {
            let key = self.memo_key(g);
            if self.memo.contains(&key) {
                self.stats.memo_hits += 1;
                return self.part_failed();
            }
            self.splits[g].key = Some(key);
        }
        self.expand(g, true, low, high, count);
        None
    }

    /// The current part of the innermost split failed: remember it, undo the placement that made
    /// the split and let its level try its next candidate. `Some(Infeasible)` at the top.
    fn part_failed(&mut self) -> Option<CallEnd> {
        let split = self.splits.pop()?; // a split is open while a part is
        self.restore_priorities(&split.saved);
        if let Some(key) = split.key
            && self.memo_words + key.len() <= MEMO_WORDS
        {
            self.memo_words += key.len();
            self.memo.insert(key);
        }
        let Some(split_level) = split.split_level else {
            self.depth = 0;
            return Some(CallEnd::Infeasible);
        };
        self.depth = split_level + 1;
        let mark = self.levels[split_level].mark;
        self.undo_to(mark);
        None
    }

    /// The state that decides the current part's fate: its buffers, the maximum offset, the last
    /// priority and the skyline over its sections. Heights more than the largest alignment below
    /// the maximum offset do not matter: a floor there, aligned, stays below the maximum offset
    /// (the buffer is not offset monotonic, and its lowest fit is the maximum offset's).
    fn memo_key(&self, g: usize) -> Box<[u64]> {
        let split = &self.splits[g];
        let part = &split.parts[split.current];
        // Only members whose priority is at most the last one are restricted by it: normalise to
        // the highest such priority.
        let last_priority = if split.last_priority == NONE {
            NONE
        } else {
            part.members
                .iter()
                .map(|&j| self.priority[j as usize])
                .filter(|&r| r <= split.last_priority)
                .max()
                .unwrap_or(NONE)
        };
        let mut key = Vec::with_capacity(4 + part.members.len() + (part.high - part.low) as usize);
        key.extend([split.max_offset, last_priority as u64, part.low as u64, part.high as u64]);
        key.extend(part.members.iter().map(|&j| j as u64));
        let ground = split.max_offset.saturating_sub(self.max_alignment);
        key.extend((part.low..part.high).map(|t| self.skyline[t as usize].max(ground)));
        key.into_boxed_slice()
    }

    /// Pushes a decision point for the innermost split's current part with its candidates: every
    /// unplaced member that can come next (offset monotonic, ties at the maximum offset by
    /// priority) below the lowest top any member could reach (dominance), lowest first, then by
    /// priority. None at all when a member has no offset left.
    fn expand(&mut self, g: usize, root: bool, low: u32, high: u32, remaining: u32) {
        let split = &self.splits[g];
        let part = &split.parts[split.current];
        self.scratch.clear();
        let mut lowest_top = u64::MAX;
        let mut dead = false;
        for &j in &part.members {
            if self.is_placed(j) {
                continue;
            }
            let Some(at) = self.lowest_fit(j) else {
                dead = true;
                break;
            };
            lowest_top = lowest_top.min(at + self.timeline.size[j as usize]);
            if self.offset_monotonic(j) {
                self.scratch.push((at, self.priority[j as usize], j));
            }
        }
        self.stats.work += part.members.len() as u64;
        let (max_offset, last_priority) = (self.max_offset, self.last_priority);
        if self.depth == self.levels.len() {
            self.levels.push(Level::default());
        }
        let level = &mut self.levels[self.depth];
        self.depth += 1;
        *level = Level {
            candidates: std::mem::take(&mut level.candidates),
            next: 0,
            mark: self.trail.len(),
            max_offset,
            last_priority,
            low,
            high,
            remaining,
            root,
        };
        level.candidates.clear();
        if dead {
            return;
        }
        self.scratch
            .retain(|&(at, r, _)| at < lowest_top && (at > max_offset || last_priority == NONE || r > last_priority));
        self.scratch.sort_unstable();
        level.candidates.extend(self.scratch.iter().map(|&(_, _, j)| j));
    }

    /// Places `i` at its offset and propagates; `None` on a failure (the caller undoes), else
    /// whether some time point is no longer crossed by an unplaced buffer (a possible split).
    /// Not inlined into the run loop: V8 allocates registers per function (see
    /// `Candidates::frontier`).
    #[inline(never)]
    fn place(&mut self, i: u32, low: u32, high: u32) -> Option<bool> {
        let timeline = self.timeline;
        let at = self.lowest_fit(i)?;
        let size = timeline.size[i as usize];
        let top = at + size;
        let span = timeline.span(i);
        self.offset[i as usize] = at;
        self.trail.push(Change::Placed(i));
        for t in span.clone() {
            self.skyline_trail.push(self.skyline[t]);
            self.skyline[t] = top;
            self.total[t] -= size;
        }
        self.total_max.take(span.start, span.end, size);
        let mut may_split = false;
        for b in span.start + 1..span.end {
            self.crossing[b] -= 1;
            may_split |= self.crossing[b] == 0;
        }
        self.max_offset = at;
        self.last_priority = self.priority[i as usize];
        self.stats.work += 2 * span.len() as u64 + 1;
        // The maximum offset: every section of the part must hold its unplaced buffers above it.
        if self.total_max.max(low as usize, high as usize) > self.capacity - at {
            return None;
        }
        self.new_dirty();
        self.mark_dirty(span);
        let mut wiped = false;
        let mut work = 0u64;
        timeline.for_each_overlapping(i, |j| {
            work += 1;
            if self.offset[j as usize] != UNPLACED || self.floor[j as usize] >= top {
                return true;
            }
            self.trail.push(Change::Floor { buffer: j, old: self.floor[j as usize] });
            self.floor[j as usize] = top;
            if self.lowest_fit(j).is_none() {
                wiped = true;
                return false;
            }
            self.mark_dirty(timeline.span(j));
            true
        });
        self.stats.work += work;
        if wiped {
            return None;
        }
        for k in 0..self.dirty.len() {
            let t = self.dirty[k] as usize;
            if !self.section_holds(t) {
                return None;
            }
        }
        Some(may_split)
    }

    fn new_dirty(&mut self) {
        self.dirty.clear();
        self.mark_now = self.mark_now.wrapping_add(1);
        if self.mark_now == 0 {
            self.dirty_mark.fill(0);
            self.mark_now = 1;
        }
    }

    fn mark_dirty(&mut self, span: std::ops::Range<usize>) {
        for t in span {
            if self.dirty_mark[t] != self.mark_now {
                self.dirty_mark[t] = self.mark_now;
                self.dirty.push(t as u32);
            }
        }
    }

    /// Eq. 3 with the effective height in section `t` (the maximum offset is checked apart): some
    /// unplaced buffer alive there can sit low enough to leave room for all of them (see
    /// [`Self::height`]).
    fn section_holds(&mut self, t: usize) -> bool {
        let total = self.total[t];
        if total == 0 {
            return true;
        }
        let room = self.capacity - total; // total <= load <= capacity
        let w = self.witness[t];
        if w != NONE && !self.is_placed(w) && self.height(w) <= room {
            return true;
        }
        let alive = self.timeline.alive(t);
        self.stats.work += alive.len() as u64;
        for &j in alive {
            if !self.is_placed(j) && self.height(j) <= room {
                self.witness[t] = j;
                return true;
            }
        }
        false
    }

    /// A lower bound on the offset of unplaced buffer `j` in a canonical completion (its share of
    /// the effective height): its pinned offset, its aligned floor when that is not below the
    /// maximum offset, else (it rests on a buffer placed later, at or above the maximum offset)
    /// the maximum offset plus the smallest size.
    fn height(&self, j: u32) -> u64 {
        let t = self.timeline;
        if let Some(p) = t.pinned[j as usize] {
            return p;
        }
        match align_up(self.floor[j as usize], t.alignment[j as usize]) {
            Some(at) if at >= self.max_offset => at,
            Some(_) => self.max_offset.saturating_add(self.smallest),
            None => u64::MAX,
        }
    }

    /// The runs of sections in `[low, high)` that hold unplaced buffers and that no section
    /// boundary without a crossing buffer divides.
    fn runs(&self, low: u32, high: u32) -> Vec<(u32, u32)> {
        let mut runs = Vec::new();
        let mut t = low as usize;
        while t < high as usize {
            if self.total[t] == 0 {
                t += 1;
                continue;
            }
            let start = t;
            t += 1;
            while t < high as usize && self.crossing[t] > 0 {
                t += 1;
            }
            runs.push((start as u32, t as u32));
        }
        runs
    }

    /// Splits the current part's unplaced buffers by the runs after the placement at level `d`:
    /// a new split, its tightest part first (the likeliest to fail).
    fn split_part(&mut self, d: usize, runs: &[(u32, u32)]) {
        self.stats.splits += 1;
        let split = &self.splits[self.splits.len() - 1];
        let part = &split.parts[split.current];
        let mut parts: Vec<Part> = runs.iter().map(|&(low, high)| Part { members: Vec::new(), low, high }).collect();
        for &j in &part.members {
            if !self.is_placed(j) {
                let first = self.timeline.first[j as usize];
                let k = runs.partition_point(|&(low, _)| low <= first) - 1;
                parts[k].members.push(j);
            }
        }
        let max_offset = self.max_offset;
        let slack = |part: &Part| {
            (part.low..part.high)
                .map(|t| {
                    let t = t as usize;
                    self.capacity.saturating_sub(self.skyline[t].max(max_offset) + self.total[t])
                })
                .min()
                .unwrap_or(u64::MAX)
        };
        parts.sort_by_cached_key(|part| (slack(part), std::cmp::Reverse(part.members.len()), part.low));
        let fresh = self.fresh_parts;
        self.splits.push(Split {
            split_level: Some(d),
            parts,
            current: 0,
            max_offset: if fresh { 0 } else { max_offset },
            last_priority: if fresh { NONE } else { self.last_priority },
            key: None,
            saved: Vec::new(),
        });
    }

    /// Sorts the current part of split `g` again, as MiniMalloc does with a sub-problem: by the
    /// largest total of unplaced sizes over each buffer's lifetime, counting the part's own
    /// buffers only (its contended sections are the ones to fill first), then area, lifetime and
    /// index. The part's buffers take the priorities they had among themselves, so the order
    /// depends only on the part's set of buffers and state (which its memo key holds).
    ///
    /// Why the search stays complete: a part shares no time with the other unplaced buffers, so it
    /// is a problem of its own over the placed ones, and a canonical search from offset 0 under
    /// any fixed order of its buffers is complete for it. Used only with fresh parts.
    fn prioritise(&mut self, g: usize) {
        let timeline = self.timeline;
        let split = &self.splits[g];
        let members = &split.parts[split.current].members;
        let mut old: Vec<u32> = members.iter().map(|&j| self.priority[j as usize]).collect();
        old.sort_unstable();
        let mut order: Vec<u32> = members.clone();
        order.sort_by_cached_key(|&j| {
            let total = timeline.span(j).map(|t| self.total[t]).max().unwrap_or(0);
            let size = timeline.size[j as usize];
            let lifetime = timeline.lifetime[j as usize];
            (std::cmp::Reverse((total, size as u128 * lifetime as u128, lifetime)), j)
        });
        self.stats.work += members.len() as u64;
        let mut saved = Vec::with_capacity(order.len());
        for (&j, &priority) in order.iter().zip(&old) {
            saved.push((j, std::mem::replace(&mut self.priority[j as usize], priority)));
        }
        self.splits[g].saved.extend(saved);
    }

    fn restore_priorities(&mut self, saved: &[(u32, u32)]) {
        for &(j, priority) in saved.iter().rev() {
            self.priority[j as usize] = priority;
        }
    }

    fn undo_to(&mut self, mark: usize) {
        let timeline = self.timeline;
        while self.trail.len() > mark {
            match self.trail.pop() {
                Some(Change::Floor { buffer, old }) => self.floor[buffer as usize] = old,
                Some(Change::Placed(i)) => {
                    let size = timeline.size[i as usize];
                    let span = timeline.span(i);
                    for t in span.clone().rev() {
                        // Pushed once per section by `place`.
                        self.skyline[t] = self.skyline_trail.pop().unwrap_or(0);
                        self.total[t] += size;
                    }
                    self.total_max.give_back(span.start, span.end, size);
                    for b in span.start + 1..span.end {
                        self.crossing[b] += 1;
                    }
                    self.offset[i as usize] = UNPLACED;
                }
                None => break,
            }
        }
    }
}

/// Range maximum over the sections' unplaced totals, with range subtraction (a placement takes its
/// size from the sections it spans) and its exact undo: a segment tree that keeps at each node what
/// was taken from its whole range. The maximum-offset test over a part's sections in
/// O(log sections).
///
/// Everything is a `u64` (wasm has no 128-bit arithmetic): an amount is only taken where every
/// section of the range still has it, and given back in reverse order, so no node's value, the
/// maximum of its leaves minus what the nodes between them and it took, ever drops below zero.
/// Bottom-up loops, not recursion: calls cost more in wasm than the work of a node.
struct MaxTree {
    /// Leaf `k` is node `leaves + k`; node `p` has children `2p` and `2p + 1`.
    leaves: usize,
    max: Vec<u64>,
    taken: Vec<u64>,
}

impl MaxTree {
    fn new(values: &[u64]) -> MaxTree {
        let leaves = values.len().next_power_of_two().max(1);
        // Padding leaves hold 0: never above a real total, and never inside a range.
        let mut max = vec![0; 2 * leaves];
        max[leaves..leaves + values.len()].copy_from_slice(values);
        for node in (1..leaves).rev() {
            max[node] = max[2 * node].max(max[2 * node + 1]);
        }
        MaxTree { leaves, max, taken: vec![0; 2 * leaves] }
    }

    /// Subtracts `amount` over `[low, high)`; each of those values must be at least `amount`.
    fn take(&mut self, low: usize, high: usize, amount: u64) {
        self.update(low, high, amount, true);
    }

    /// Undoes the latest [`MaxTree::take`] not undone yet, which had these arguments.
    fn give_back(&mut self, low: usize, high: usize, amount: u64) {
        self.update(low, high, amount, false);
    }

    /// Changes the nodes that exactly cover `[low, high)`, then recomputes their ancestors, which
    /// lie above its first and last leaves. Until both paths are redone, a node may see a child
    /// that is not updated yet: one that still holds more (a take) or already less than it will
    /// (a give-back), and neither drops the node below zero.
    fn update(&mut self, low: usize, high: usize, amount: u64, take: bool) {
        if low >= high {
            return;
        }
        let (mut l, mut r) = (low + self.leaves, high + self.leaves);
        while l < r {
            if l & 1 == 1 {
                self.apply(l, amount, take);
                l += 1;
            }
            if r & 1 == 1 {
                r -= 1;
                self.apply(r, amount, take);
            }
            l >>= 1;
            r >>= 1;
        }
        self.recompute_above(low + self.leaves);
        self.recompute_above(high - 1 + self.leaves);
    }

    fn apply(&mut self, node: usize, amount: u64, take: bool) {
        if take {
            self.max[node] -= amount;
            self.taken[node] += amount;
        } else {
            self.max[node] += amount;
            self.taken[node] -= amount;
        }
    }

    fn recompute_above(&mut self, mut node: usize) {
        while node > 1 {
            node >>= 1;
            self.max[node] = self.max[2 * node].max(self.max[2 * node + 1]) - self.taken[node];
        }
    }

    /// The maximum over `[low, high)` (0 when empty). The nodes that cover the range from the left
    /// all lie under node `l - 1` of the level the loop is at, those from the right under node
    /// `r`: what those nodes and their ancestors took is subtracted on the way up.
    fn max(&self, low: usize, high: usize) -> u64 {
        if low >= high {
            return 0;
        }
        let (mut l, mut r) = (low + self.leaves, high + self.leaves);
        let (mut left, mut right): (Option<u64>, Option<u64>) = (None, None);
        while l < r {
            if l & 1 == 1 {
                left = Some(left.map_or(self.max[l], |v| v.max(self.max[l])));
                l += 1;
            }
            if r & 1 == 1 {
                r -= 1;
                right = Some(right.map_or(self.max[r], |v| v.max(self.max[r])));
            }
            l >>= 1;
            r >>= 1;
            if let Some(v) = &mut left {
                *v -= self.taken[l - 1];
            }
            if let Some(v) = &mut right {
                *v -= self.taken[r];
            }
        }
        let above = |value: Option<u64>, mut node: usize| {
            let mut value = value?;
            while node > 1 {
                node >>= 1;
                value -= self.taken[node];
            }
            Some(value)
        };
        above(left, l - 1).max(above(right, r)).unwrap_or(0) // low < high: one side covered a node
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::Buffer;
    use crate::solvers::telamalloc::candidates;

    /// Whether some plan of `buffers` fits in `capacity`: every aligned (or pinned) offset of every
    /// buffer in turn, by brute force.
    fn fits(buffers: &[Buffer], capacity: u64) -> bool {
        fn place(buffers: &[Buffer], capacity: u64, offsets: &mut Vec<u64>) -> bool {
            let i = offsets.len();
            let Some(b) = buffers.get(i) else { return true };
            let choices: Vec<u64> = match b.pinned {
                Some(p) => vec![p],
                None => (0..=capacity.saturating_sub(b.size)).filter(|o| o % b.alignment() == 0).collect(),
            };
            for o in choices {
                let clash = offsets
                    .iter()
                    .enumerate()
                    .any(|(k, &ok)| buffers[k].overlaps_in_time(b) && ok < o + b.size && o < ok + buffers[k].size);
                if o + b.size <= capacity && !clash {
                    offsets.push(o);
                    if place(buffers, capacity, offsets) {
                        return true;
                    }
                    offsets.pop();
                }
            }
            false
        }
        place(buffers, capacity, &mut Vec::new())
    }

    /// The offsets of a found plan respect sizes, alignment, pins, the capacity and each other.
    fn check_plan(buffers: &[Buffer], offsets: &[u64], capacity: u64) {
        for (i, b) in buffers.iter().enumerate() {
            let o = offsets[i];
            assert!(o != UNPLACED && o + b.size <= capacity && o.is_multiple_of(b.alignment()), "buffer {i} at {o}");
            assert!(b.pinned.is_none_or(|p| p == o), "pinned buffer {i} moved to {o}");
            for (k, c) in buffers.iter().enumerate().skip(i + 1) {
                let clash = b.overlaps_in_time(c) && o < offsets[k] + c.size && offsets[k] < o + b.size;
                assert!(!clash, "buffers {i} and {k} overlap");
            }
        }
    }

    fn solve(buffers: &[Buffer], capacity: u64) -> (CallEnd, Option<Vec<u64>>, CanonicalStats) {
        solve_in_order(buffers, capacity, candidates::longest_first)
    }

    fn solve_in_order(
        buffers: &[Buffer],
        capacity: u64,
        order: fn(&Timeline) -> Vec<u32>,
    ) -> (CallEnd, Option<Vec<u64>>, CanonicalStats) {
        solve_with(buffers, capacity, order, false)
    }

    fn solve_with(
        buffers: &[Buffer],
        capacity: u64,
        order: fn(&Timeline) -> Vec<u32>,
        fresh: bool,
    ) -> (CallEnd, Option<Vec<u64>>, CanonicalStats) {
        let members: Vec<usize> = (0..buffers.len()).collect();
        let timeline = Timeline::new(buffers, &members);
        let search = Canonical::new(&timeline, capacity, order(&timeline));
        let mut search = if fresh { search.with_fresh_parts() } else { search };
        let run = search.run(u64::MAX, u64::MAX, &mut || false);
        let plan = (run == CallEnd::Found).then(|| search.offsets().to_vec());
        (run, plan, search.stats.clone())
    }

    /// Small random instances with alignment and pins, as `(start, length, size, alignment, pin)`.
    fn small_instances() -> impl Strategy<Value = Vec<Buffer>> {
        let buffer = (0u64..8, 1u64..6, 1u64..7, prop::sample::select(vec![1u64, 1, 1, 2, 4]), 0u8..8, 0u64..12);
        prop::collection::vec(buffer, 1..=6).prop_map(|specs| {
            let mut buffers: Vec<Buffer> = Vec::new();
            for (i, (start, length, size, alignment, pin_roll, pin_at)) in specs.into_iter().enumerate() {
                let mut b = Buffer::new(format!("b{i}"), start, start + length, size).with_alignment(alignment);
                if pin_roll == 0 {
                    let at = pin_at / alignment * alignment;
                    let clash = buffers
                        .iter()
                        .any(|o| o.pinned.is_some_and(|p| o.overlaps_in_time(&b) && p < at + size && at < p + o.size));
                    if !clash {
                        b.pinned = Some(at);
                    }
                }
                buffers.push(b);
            }
            buffers
        })
    }

    /// The max load, or the top of a pinned buffer when higher.
    fn lowest_capacity(buffers: &[Buffer]) -> u64 {
        let pinned_top = buffers.iter().filter_map(|b| b.pinned.map(|p| p + b.size)).max().unwrap_or(0);
        max_load(buffers).max(pinned_top)
    }

    /// 12 to 24 short buffers over 30 steps, some aligned to 2, with a capacity at most 2 above
    /// their max load: too many for brute force, tight enough that the search refutes and splits.
    fn tight_instance(rng: &mut rand_chacha::ChaCha8Rng) -> (Vec<Buffer>, u64) {
        use rand::RngExt;
        let n = rng.random_range(12..=24);
        let buffers: Vec<Buffer> = (0..n)
            .map(|i| {
                let start = rng.random_range(0u64..30);
                let b = Buffer::new(format!("b{i}"), start, start + rng.random_range(1..12), rng.random_range(1..9));
                b.with_alignment([1, 1, 2][rng.random_range(0..3)])
            })
            .collect();
        let capacity = max_load(&buffers) + rng.random_range(0..3);
        (buffers, capacity)
    }

    fn max_load(buffers: &[Buffer]) -> u64 {
        let members: Vec<usize> = (0..buffers.len()).collect();
        Timeline::new(buffers, &members).max_load()
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

        /// The complete search, under every order of ties and with or without fresh parts, agrees
        /// with brute force at capacities around the max load: a valid plan exactly when one
        /// exists, `Infeasible` otherwise.
        #[test]
        fn agrees_with_brute_force(
            buffers in small_instances(),
            slack in 0u64..6,
            order in 0usize..3,
            fresh in any::<bool>(),
        ) {
            let capacity = lowest_capacity(&buffers) + slack;
            let order = [candidates::longest_first, candidates::most_contended_first, candidates::most_contended_by_area][order];
            let (run, plan, _) = solve_with(&buffers, capacity, order, fresh);
            let expected = if fits(&buffers, capacity) { CallEnd::Found } else { CallEnd::Infeasible };
            prop_assert_eq!(run, expected);
            if let Some(offsets) = plan {
                check_plan(&buffers, &offsets, capacity);
            }
        }

        /// Stopping after every few steps or a little work and resuming gives the same answer,
        /// the same plan and the same step count as one uninterrupted run.
        #[test]
        fn resuming_gives_the_same_answer(
            buffers in small_instances(),
            slack in 0u64..4,
            every in 1u64..4,
            fresh in any::<bool>(),
        ) {
            let capacity = lowest_capacity(&buffers) + slack;
            let (run, plan, stats) = solve_with(&buffers, capacity, candidates::longest_first, fresh);
            let members: Vec<usize> = (0..buffers.len()).collect();
            let timeline = Timeline::new(&buffers, &members);
            let search = Canonical::new(&timeline, capacity, candidates::longest_first(&timeline));
            let mut search = if fresh { search.with_fresh_parts() } else { search };
            let mut turns = 0;
            let resumed = loop {
                turns += 1;
                let (steps, work) = if turns % 2 == 0 { (every, u64::MAX) } else { (u64::MAX, 8 * every) };
                match search.run(steps, work, &mut || false) {
                    CallEnd::Paused => continue,
                    done => break done,
                }
            };
            prop_assert_eq!(resumed, run);
            prop_assert_eq!((resumed == CallEnd::Found).then(|| search.offsets().to_vec()), plan);
            prop_assert_eq!(search.stats.steps, stats.steps);
        }
    }

    /// Once the long buffer is placed, nothing crosses time 4: the two sides are solved as
    /// separate parts (a split), and the plan is valid.
    #[test]
    fn independent_sides_are_split_into_parts() {
        let buffers = vec![
            Buffer::new("long", 0, 10, 2),
            Buffer::new("l1", 0, 4, 3),
            Buffer::new("l2", 1, 4, 3),
            Buffer::new("r1", 4, 10, 2),
            Buffer::new("r2", 5, 9, 4),
        ];
        let (run, plan, stats) = solve(&buffers, 8);
        assert_eq!(run, CallEnd::Found);
        check_plan(&buffers, &plan.unwrap(), 8); // Found: a plan
        assert!(stats.splits >= 1, "{stats:?}");
    }

    /// With and without the memo, the search gives the same answers (checked on instances where
    /// the memo refutes parts, too many buffers for brute force), with valid plans.
    #[test]
    fn the_memo_changes_no_answer() {
        use rand::SeedableRng;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let (mut hits, mut compared) = (0, 0);
        for _ in 0..300 {
            let (buffers, capacity) = tight_instance(&mut rng);
            let members: Vec<usize> = (0..buffers.len()).collect();
            let timeline = Timeline::new(&buffers, &members);
            let mut answers = Vec::new();
            for remember in [true, false] {
                let mut search = Canonical::new(&timeline, capacity, candidates::longest_first(&timeline));
                search.remember = remember;
                // Without the memo the search can take exponentially long: skip those instances.
                let run = search.run(200_000, u64::MAX, &mut || false);
                if run == CallEnd::Found {
                    check_plan(&buffers, search.offsets(), capacity);
                }
                hits += search.stats.memo_hits;
                answers.push(run);
            }
            if !answers.contains(&CallEnd::Paused) {
                compared += 1;
                assert_eq!(answers[0], answers[1], "{buffers:?} in {capacity}");
            }
        }
        assert!(hits > 0 && compared > 250, "memo hits {hits}, instances compared {compared}");
    }

    /// Fresh parts (searched from offset 0, re-sorted by their own totals) give the same answers
    /// as parts that go on from the split, with and without the memo, with valid plans; they do
    /// split, and every priority is back to its first value once the search is exhausted. On
    /// instances too large for brute force.
    #[test]
    fn fresh_parts_change_no_answer() {
        use rand::SeedableRng;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let (mut splits, mut compared, mut infeasible) = (0, 0, 0);
        for _ in 0..300 {
            let (buffers, capacity) = tight_instance(&mut rng);
            let members: Vec<usize> = (0..buffers.len()).collect();
            let timeline = Timeline::new(&buffers, &members);
            let mut answers = Vec::new();
            for (fresh, remember) in [(false, true), (true, true), (true, false)] {
                let priority = candidates::most_contended_by_area(&timeline);
                let search = Canonical::new(&timeline, capacity, priority.clone());
                let mut search = if fresh { search.with_fresh_parts() } else { search };
                search.remember = remember;
                let run = search.run(200_000, u64::MAX, &mut || false);
                if run == CallEnd::Found {
                    check_plan(&buffers, search.offsets(), capacity);
                }
                if run == CallEnd::Infeasible {
                    assert_eq!(search.priority, priority, "priorities restored");
                }
                if fresh {
                    splits += search.stats.splits;
                }
                answers.push(run);
            }
            if !answers.contains(&CallEnd::Paused) {
                compared += 1;
                infeasible += usize::from(answers[0] == CallEnd::Infeasible);
                assert!(answers.iter().all(|&a| a == answers[0]), "{answers:?}: {buffers:?} in {capacity}");
            }
        }
        assert!(
            splits > 0 && compared > 250 && infeasible > 3,
            "splits {splits}, compared {compared}, infeasible {infeasible}"
        );
    }

    /// Stopping is honoured: `stop` saying yes ends the run, and the search resumes afterwards.
    #[test]
    fn stop_ends_the_run_and_the_search_resumes() {
        let buffers: Vec<Buffer> =
            (0..40).map(|i| Buffer::new(format!("b{i}"), i % 7, i % 7 + 3 + i % 5, 1 + (i * 7) % 5)).collect();
        let capacity = max_load(&buffers) + 2;
        let (run, plan, _) = solve(&buffers, capacity);
        let members: Vec<usize> = (0..buffers.len()).collect();
        let timeline = Timeline::new(&buffers, &members);
        let mut search = Canonical::new(&timeline, capacity, candidates::longest_first(&timeline));
        assert_eq!(search.run(u64::MAX, u64::MAX, &mut || true), CallEnd::Stopped);
        assert_eq!(search.run(u64::MAX, u64::MAX, &mut || false), run);
        assert_eq!((run == CallEnd::Found).then(|| search.offsets().to_vec()), plan);
    }

    /// Range maxima agree with a naive array after every step of a random sequence of takes
    /// (each no more than its range holds) and give-backs in reverse order, as the search makes
    /// them; everything given back restores the start.
    #[test]
    fn max_tree_takes_gives_back_and_queries_ranges() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        for _ in 0..200 {
            let len = rng.random_range(1..24usize);
            let values: Vec<u64> = (0..len).map(|_| rng.random_range(0..20u64)).collect();
            let mut tree = MaxTree::new(&values);
            let mut naive = values.clone();
            let mut taken: Vec<(usize, usize, u64)> = Vec::new();
            for _ in 0..30 {
                if !taken.is_empty() && rng.random_range(0..3) == 0 {
                    let (low, high, amount) = taken.pop().unwrap(); // not empty
                    tree.give_back(low, high, amount);
                    naive[low..high].iter_mut().for_each(|v| *v += amount);
                } else {
                    let low = rng.random_range(0..len);
                    let high = rng.random_range(low + 1..=len);
                    let amount = rng.random_range(0..=*naive[low..high].iter().min().unwrap()); // high > low
                    tree.take(low, high, amount);
                    naive[low..high].iter_mut().for_each(|v| *v -= amount);
                    taken.push((low, high, amount));
                }
                for a in 0..len {
                    assert_eq!(tree.max(a, a), 0, "empty range");
                    for b in a + 1..=len {
                        assert_eq!(tree.max(a, b), *naive[a..b].iter().max().unwrap(), "{values:?}: [{a}, {b})");
                    }
                }
            }
            while let Some((low, high, amount)) = taken.pop() {
                tree.give_back(low, high, amount);
            }
            assert_eq!(tree.max(0, len), *values.iter().max().unwrap());
        }
    }
}
