//! The complete search: depth first over canonical placement orders, with cross-section reasoning
//! and dynamic decomposition. The heuristic attempts of [`super::search`] alternate with it, and
//! it is what proves that nothing fits.
//!
//! Canonical orders (MiniMalloc §6.1): every feasible problem has a settled plan (each buffer at
//! the lowest aligned offset above the buffers below it that it overlaps in time: move buffers
//! down while one can move, the sum of offsets falls). Placed by increasing offset (ties in a fixed
//! rank order), each of its buffers lies at the lowest aligned offset above the placed buffers it
//! overlaps, its "base", and not below the previous one, the "floor". So the search keeps offsets
//! non-decreasing, places ties in rank order, only places a buffer whose base is not below the
//! floor (one below it rests, in this plan, on a buffer placed later), and never leaves a hole
//! above the floor: what is placed in a section is a skyline. A buffer that could end at or
//! below another's offset is slipped in first (MiniMalloc §6.3, dominance).
//!
//! Cross sections (MiniMalloc §6.2, eq. 3 with effective heights): in every section the unplaced
//! buffers need room above the floor and above the lowest offset any of them can take. The floor
//! is checked over all sections at once (a range-maximum tree of what they need); the rest in the
//! sections a placement changes, where a witness per section (a buffer that can sit low enough)
//! makes most checks O(1). A buffer whose base is below the floor sits on a buffer placed later,
//! at least the smallest size above the floor.
//!
//! Decomposition (MiniMalloc §7's dynamic temporal decomposition): once the placed buffers leave
//! a time point that no unplaced buffer crosses, the unplaced buffers on either side never interact
//! again. Each group is then a task solved on its own, one after the other; when one fails, the
//! placement that split them is undone, and the alternatives of the groups solved before it are
//! never explored (they cannot help). Refuted tasks are remembered by their exact state, so the
//! same group above the same skyline is refuted at once wherever the search meets it again.
//!
//! The search is resumable: [`Canonical::run`] stops at a budget and continues where it stopped,
//! so the heuristic attempts can take turns with it without losing its work.

use std::collections::HashSet;

use super::timeline::Timeline;
use crate::alignment::align_up;

const UNPLACED: u64 = u64::MAX;
const NONE: u32 = u32::MAX;
/// Words of refuted task states kept at most (8 bytes each).
const MEMO_WORDS: usize = 1 << 21;
/// How often [`Canonical::run`] asks whether to stop: every this many steps or this much work.
const POLL_STEPS: u64 = 16;
const POLL_WORK: u64 = 1 << 16;

#[derive(Clone, Copy, Debug)]
enum Change {
    Placed(u32),
    Base { buffer: u32, old: u64 },
}

/// A decision point: the candidates for the next placement of the current task.
#[derive(Debug, Default)]
struct Level {
    candidates: Vec<u32>,
    next: usize,
    /// Where the trail stood before this level's placement.
    mark: usize,
    /// The floor, and the rank of the last buffer placed at the floor, before this level's placement.
    floor: u64,
    tie: u32,
    /// Sections holding the task's unplaced buffers.
    lo: u32,
    hi: u32,
    /// Unplaced buffers of the task before this level's placement.
    remaining: u32,
    /// The first decision of its task: exhausting it refutes the task.
    root: bool,
}

/// One independent group of unplaced buffers.
struct Task {
    members: Vec<u32>,
    lo: u32,
    hi: u32,
}

/// The tasks a placement split the unplaced buffers into, solved in order.
struct Group {
    /// The level whose placement made the split (`None` for the whole part).
    split_level: Option<usize>,
    tasks: Vec<Task>,
    current: usize,
    floor: u64,
    tie: u32,
    /// The memo key of the current task, recorded if it fails.
    key: Option<Box<[u64]>>,
}

/// What a call to [`Canonical::run`] ended with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Run {
    Found,
    /// The whole search is exhausted: no plan fits.
    Infeasible,
    /// The step or work budget of this call is used up; call again to continue.
    Paused,
    /// The caller's `stop` said so.
    Stopped,
}

#[derive(Clone, Debug, Default)]
pub struct CanonicalStats {
    pub steps: u64,
    pub minor_backtracks: u64,
    pub major_backtracks: u64,
    pub splits: u64,
    pub memo_hits: u64,
    pub work: u64,
    pub max_placed: u64,
}

pub struct Canonical<'t> {
    timeline: &'t Timeline,
    capacity: u64,
    offset: Vec<u64>,
    /// Per unplaced buffer: the highest top of the placed buffers it overlaps.
    base: Vec<u64>,
    /// The order of ties at the same offset: a permutation of the buffers, lower first.
    rank: Vec<u32>,
    /// The smallest buffer: what a buffer below the floor sits at least this much above it.
    smallest: u64,
    max_alignment: u64,
    /// Per section: the highest top placed there, the size of the unplaced buffers alive there,
    /// and a buffer that could sit low enough for them when last checked.
    skyline: Vec<u64>,
    need: Vec<u64>,
    need_max: MaxTree,
    witness: Vec<u32>,
    /// Per section boundary `t` (between `t - 1` and `t`): unplaced buffers alive on both sides.
    cross: Vec<u32>,
    floor: u64,
    tie: u32,
    trail: Vec<Change>,
    skyline_trail: Vec<u64>,
    levels: Vec<Level>,
    depth: usize,
    groups: Vec<Group>,
    memo: HashSet<Box<[u64]>>,
    memo_words: usize,
    /// Whether refuted tasks are remembered (off only to test that the memo changes no answer).
    remember: bool,
    dirty: Vec<u32>,
    dirty_mark: Vec<u32>,
    mark_now: u32,
    scratch: Vec<(u64, u32, u32)>,
    started: bool,
    pub stats: CanonicalStats,
}

impl<'t> Canonical<'t> {
    /// `rank` orders the buffers that share an offset.
    pub fn new(timeline: &'t Timeline, capacity: u64, rank: Vec<u32>) -> Canonical<'t> {
        let n = timeline.len();
        let sections = timeline.sections();
        let mut cross = vec![0u32; sections + 1];
        for j in 0..n as u32 {
            for b in timeline.span(j).skip(1) {
                cross[b] += 1;
            }
        }
        let need = timeline.load.clone();
        Canonical {
            timeline,
            capacity,
            offset: vec![UNPLACED; n],
            base: vec![0; n],
            rank,
            smallest: timeline.size.iter().copied().min().unwrap_or(0),
            max_alignment: timeline.alignment.iter().copied().max().unwrap_or(1),
            skyline: vec![0; sections],
            need_max: MaxTree::new(&need),
            need,
            witness: vec![NONE; sections],
            cross,
            floor: 0,
            tie: NONE,
            trail: Vec::new(),
            skyline_trail: Vec::new(),
            levels: Vec::new(),
            depth: 0,
            groups: Vec::new(),
            memo: HashSet::new(),
            memo_words: 0,
            remember: true,
            dirty: Vec::new(),
            dirty_mark: vec![0; sections],
            mark_now: 0,
            scratch: Vec::new(),
            started: false,
            stats: CanonicalStats::default(),
        }
    }

    /// The offsets of a plan once [`Run::Found`] was returned.
    pub fn offsets(&self) -> &[u64] {
        &self.offset
    }

    /// The order the plan's buffers were placed in.
    pub fn order(&self) -> Vec<u32> {
        self.trail.iter().filter_map(|c| if let Change::Placed(i) = c { Some(*i) } else { None }).collect()
    }

    fn is_placed(&self, j: u32) -> bool {
        self.offset[j as usize] != UNPLACED
    }

    /// The lowest offset buffer `j` could take now: aligned, above its base and the floor (a
    /// pinned buffer: its own, if the base and the floor allow it); `None` when there is none
    /// within the capacity.
    fn low(&self, j: u32) -> Option<u64> {
        let t = self.timeline;
        let from = self.base[j as usize].max(self.floor);
        let at = match t.pinned[j as usize] {
            Some(p) if from <= p && (p > self.floor || self.tie == NONE || self.rank[j as usize] > self.tie) => p,
            Some(_) => return None,
            None => align_up(from, t.alignment[j as usize])?,
        };
        (at.checked_add(t.size[j as usize])? <= self.capacity).then_some(at)
    }

    /// Whether buffer `j` could be the next one placed: its base is not below the floor (or it
    /// is pinned).
    fn resting(&self, j: u32) -> bool {
        let t = self.timeline;
        t.pinned[j as usize].is_some()
            || align_up(self.base[j as usize], t.alignment[j as usize]).is_some_and(|at| at >= self.floor)
    }

    /// Continues the search for at most `max_steps` more steps and `max_work` more work, asking
    /// `stop` now and then whether to stop.
    pub fn run(&mut self, max_steps: u64, max_work: u64, stop: &mut impl FnMut() -> bool) -> Run {
        let (step_limit, work_limit) =
            (self.stats.steps.saturating_add(max_steps), self.stats.work.saturating_add(max_work));
        if !self.started {
            self.started = true;
            let members: Vec<u32> = (0..self.timeline.len() as u32).collect();
            let hi = self.timeline.sections() as u32;
            self.groups.push(Group {
                split_level: None,
                tasks: vec![Task { members, lo: 0, hi }],
                current: 0,
                floor: 0,
                tie: NONE,
                key: None,
            });
            if let Some(done) = self.start_task() {
                return done;
            }
        }
        let (mut polled_at, mut polled_at_work) = (self.stats.steps, self.stats.work);
        loop {
            if self.depth == 0 {
                return Run::Infeasible;
            }
            if self.stats.steps >= step_limit || self.stats.work >= work_limit {
                return Run::Paused;
            }
            if self.stats.steps >= polled_at + POLL_STEPS || self.stats.work >= polled_at_work + POLL_WORK {
                (polled_at, polled_at_work) = (self.stats.steps, self.stats.work);
                if stop() {
                    return Run::Stopped;
                }
            }
            let d = self.depth - 1;
            let level = &mut self.levels[d];
            if level.next < level.candidates.len() {
                let candidate = level.candidates[level.next];
                level.next += 1;
                let (lo, hi, remaining) = (level.lo, level.hi, level.remaining);
                self.floor = level.floor;
                self.tie = level.tie;
                let mark = self.trail.len();
                level.mark = mark;
                self.stats.steps += 1;
                let Some(split) = self.place(candidate, lo, hi) else {
                    self.stats.minor_backtracks += 1;
                    self.undo_to(mark);
                    continue;
                };
                if remaining == 1 {
                    if let Some(done) = self.task_done() {
                        return done;
                    }
                    continue;
                }
                let (mut lo, mut hi) = (lo, hi);
                if split {
                    let runs = self.runs(lo, hi);
                    if runs.len() > 1 {
                        self.split(d, &runs);
                        if let Some(done) = self.start_task() {
                            return done;
                        }
                        continue;
                    }
                    (lo, hi) = runs[0];
                }
                let group = self.groups.len() - 1;
                self.open(group, false, lo, hi, remaining - 1);
                let placed = self.trail.len() as u64;
                if placed > self.stats.max_placed {
                    self.stats.max_placed = placed;
                }
            } else {
                self.stats.major_backtracks += 1;
                if level.root {
                    if let Some(done) = self.fail_group() {
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

    /// The current task of the deepest group is fully placed: move on to the next task, or up.
    /// `Some(Found)` when everything is placed.
    fn task_done(&mut self) -> Option<Run> {
        loop {
            let group = self.groups.last_mut()?; // a group is open while a task is
            group.current += 1;
            group.key = None;
            if group.current < group.tasks.len() {
                return self.start_task();
            }
            self.groups.pop();
            if self.groups.is_empty() {
                return Some(Run::Found);
            }
            // The enclosing task's unplaced buffers were exactly this group's: it is done too.
        }
    }

    /// Opens the root level of the deepest group's current task, unless the memo refutes it.
    fn start_task(&mut self) -> Option<Run> {
        let g = self.groups.len() - 1;
        let group = &self.groups[g];
        self.floor = group.floor;
        self.tie = group.tie;
        let task = &group.tasks[group.current];
        let (lo, hi, count) = (task.lo, task.hi, task.members.len() as u32);
        if count == 0 {
            return self.task_done();
        }
        if self.remember && group.split_level.is_some() {
            let key = self.memo_key(g);
            if self.memo.contains(&key) {
                self.stats.memo_hits += 1;
                return self.fail_group();
            }
            self.groups[g].key = Some(key);
        }
        self.open(g, true, lo, hi, count);
        None
    }

    /// The current task of the deepest group failed: remember it, undo the placement that split
    /// the group off and let its level try its next candidate. `Some(Infeasible)` at the top.
    fn fail_group(&mut self) -> Option<Run> {
        let group = self.groups.pop()?; // a group is open while a task is
        if let Some(key) = group.key
            && self.memo_words + key.len() <= MEMO_WORDS
        {
            self.memo_words += key.len();
            self.memo.insert(key);
        }
        let Some(split) = group.split_level else {
            self.depth = 0;
            return Some(Run::Infeasible);
        };
        self.depth = split + 1;
        let mark = self.levels[split].mark;
        self.undo_to(mark);
        None
    }

    /// The state that decides the current task's fate: its buffers, the floor, the tie and the
    /// skyline over its sections. Heights more than the largest alignment below the floor do not
    /// matter: a base there, aligned, stays below the floor (the buffer is not resting, and its
    /// lowest offset is the floor's).
    fn memo_key(&self, g: usize) -> Box<[u64]> {
        let group = &self.groups[g];
        let task = &group.tasks[group.current];
        // Only members ranked below the tie are restricted by it: normalise to the highest such rank.
        let tie = if group.tie == NONE {
            NONE
        } else {
            task.members.iter().map(|&j| self.rank[j as usize]).filter(|&r| r <= group.tie).max().unwrap_or(NONE)
        };
        let mut key = Vec::with_capacity(4 + task.members.len() + (task.hi - task.lo) as usize);
        key.extend([group.floor, tie as u64, task.lo as u64, task.hi as u64]);
        key.extend(task.members.iter().map(|&j| j as u64));
        let ground = group.floor.saturating_sub(self.max_alignment);
        key.extend((task.lo..task.hi).map(|t| self.skyline[t as usize].max(ground)));
        key.into_boxed_slice()
    }

    /// Pushes a decision point for the deepest group's current task with its candidates: every
    /// unplaced member that can come next (resting at or above the floor, ties by rank) below the
    /// lowest top any member could reach (dominance), lowest first, then by rank. None at all
    /// when a member has no offset left.
    fn open(&mut self, g: usize, root: bool, lo: u32, hi: u32, remaining: u32) {
        let group = &self.groups[g];
        let task = &group.tasks[group.current];
        self.scratch.clear();
        let mut lowest_top = u64::MAX;
        let mut dead = false;
        for &j in &task.members {
            if self.is_placed(j) {
                continue;
            }
            let Some(at) = self.low(j) else {
                dead = true;
                break;
            };
            lowest_top = lowest_top.min(at + self.timeline.size[j as usize]);
            if self.resting(j) {
                self.scratch.push((at, self.rank[j as usize], j));
            }
        }
        self.stats.work += task.members.len() as u64;
        let (floor, tie) = (self.floor, self.tie);
        if self.depth == self.levels.len() {
            self.levels.push(Level::default());
        }
        let level = &mut self.levels[self.depth];
        self.depth += 1;
        *level = Level {
            candidates: std::mem::take(&mut level.candidates),
            next: 0,
            mark: self.trail.len(),
            floor,
            tie,
            lo,
            hi,
            remaining,
            root,
        };
        level.candidates.clear();
        if dead {
            return;
        }
        self.scratch.retain(|&(at, r, _)| at < lowest_top && (at > floor || tie == NONE || r > tie));
        self.scratch.sort_unstable();
        level.candidates.extend(self.scratch.iter().map(|&(_, _, j)| j));
    }

    /// Places `i` at its offset and propagates; `None` on a failure (the caller undoes), else
    /// whether some time point is no longer crossed by an unplaced buffer (a possible split).
    /// Not inlined into the run loop: V8 allocates registers per function (see
    /// `Candidates::frontier`).
    #[inline(never)]
    fn place(&mut self, i: u32, lo: u32, hi: u32) -> Option<bool> {
        let timeline = self.timeline;
        let at = self.low(i)?;
        let size = timeline.size[i as usize];
        let top = at + size;
        let span = timeline.span(i);
        self.offset[i as usize] = at;
        self.trail.push(Change::Placed(i));
        for t in span.clone() {
            self.skyline_trail.push(self.skyline[t]);
            self.skyline[t] = top;
            self.need[t] -= size;
        }
        self.need_max.take(span.start, span.end, size);
        let mut split = false;
        for b in span.start + 1..span.end {
            self.cross[b] -= 1;
            split |= self.cross[b] == 0;
        }
        self.floor = at;
        self.tie = self.rank[i as usize];
        self.stats.work += 2 * span.len() as u64 + 1;
        // The floor: every section of the task must hold its unplaced buffers above it.
        if self.need_max.max(lo as usize, hi as usize) > self.capacity - at {
            return None;
        }
        self.new_dirty();
        self.mark_dirty(span);
        let mut wiped = false;
        let mut work = 0u64;
        timeline.for_each_overlapping(i, |j| {
            work += 1;
            if self.offset[j as usize] != UNPLACED || self.base[j as usize] >= top {
                return true;
            }
            self.trail.push(Change::Base { buffer: j, old: self.base[j as usize] });
            self.base[j as usize] = top;
            if self.low(j).is_none() {
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
        Some(split)
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

    /// Eq. 3 with the effective height in section `t` (the floor is checked apart): some unplaced
    /// buffer alive there can sit low enough to leave room for all of them (see [`Self::bound`]).
    fn section_holds(&mut self, t: usize) -> bool {
        let need = self.need[t];
        if need == 0 {
            return true;
        }
        let room = self.capacity - need; // need <= load <= capacity
        let w = self.witness[t];
        if w != NONE && !self.is_placed(w) && self.bound(w) <= room {
            return true;
        }
        let alive = self.timeline.alive(t);
        self.stats.work += alive.len() as u64;
        for &j in alive {
            if !self.is_placed(j) && self.bound(j) <= room {
                self.witness[t] = j;
                return true;
            }
        }
        false
    }

    /// A lower bound on the offset of unplaced buffer `j` in a canonical completion: its pinned
    /// offset, its aligned base when that is not below the floor, else (it rests on a buffer
    /// placed later, at or above the floor) the floor plus the smallest size.
    fn bound(&self, j: u32) -> u64 {
        let t = self.timeline;
        if let Some(p) = t.pinned[j as usize] {
            return p;
        }
        match align_up(self.base[j as usize], t.alignment[j as usize]) {
            Some(at) if at >= self.floor => at,
            Some(_) => self.floor.saturating_add(self.smallest),
            None => u64::MAX,
        }
    }

    /// The runs of sections in `[lo, hi)` that hold unplaced buffers and that no uncrossed time
    /// point divides.
    fn runs(&self, lo: u32, hi: u32) -> Vec<(u32, u32)> {
        let mut runs = Vec::new();
        let mut t = lo as usize;
        while t < hi as usize {
            if self.need[t] == 0 {
                t += 1;
                continue;
            }
            let start = t;
            t += 1;
            while t < hi as usize && self.cross[t] > 0 {
                t += 1;
            }
            runs.push((start as u32, t as u32));
        }
        runs
    }

    /// Splits the current task's unplaced buffers by the runs after the placement at level `d`:
    /// a new group, its tightest task first (the likeliest to fail).
    fn split(&mut self, d: usize, runs: &[(u32, u32)]) {
        self.stats.splits += 1;
        let group = &self.groups[self.groups.len() - 1];
        let task = &group.tasks[group.current];
        let mut tasks: Vec<Task> = runs.iter().map(|&(lo, hi)| Task { members: Vec::new(), lo, hi }).collect();
        for &j in &task.members {
            if !self.is_placed(j) {
                let first = self.timeline.first[j as usize];
                let k = runs.partition_point(|&(lo, _)| lo <= first) - 1;
                tasks[k].members.push(j);
            }
        }
        let floor = self.floor;
        let slack = |task: &Task| {
            (task.lo..task.hi)
                .map(|t| {
                    let t = t as usize;
                    self.capacity.saturating_sub(self.skyline[t].max(floor) + self.need[t])
                })
                .min()
                .unwrap_or(u64::MAX)
        };
        tasks.sort_by_cached_key(|task| (slack(task), std::cmp::Reverse(task.members.len()), task.lo));
        self.groups.push(Group { split_level: Some(d), tasks, current: 0, floor, tie: self.tie, key: None });
    }

    fn undo_to(&mut self, mark: usize) {
        let timeline = self.timeline;
        while self.trail.len() > mark {
            match self.trail.pop() {
                Some(Change::Base { buffer, old }) => self.base[buffer as usize] = old,
                Some(Change::Placed(i)) => {
                    let size = timeline.size[i as usize];
                    let span = timeline.span(i);
                    for t in span.clone().rev() {
                        // Pushed once per section by `place`.
                        self.skyline[t] = self.skyline_trail.pop().unwrap_or(0);
                        self.need[t] += size;
                    }
                    self.need_max.give_back(span.start, span.end, size);
                    for b in span.start + 1..span.end {
                        self.cross[b] += 1;
                    }
                    self.offset[i as usize] = UNPLACED;
                }
                None => break,
            }
        }
    }
}

/// Range maximum over the sections' needs, with range subtraction (a placement takes its size
/// from the sections it spans) and its exact undo: a segment tree that keeps at each node what was
/// taken from its whole range. The floor test over a task's sections in O(log sections).
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
        // Padding leaves hold 0: never above a real need, and never inside a range.
        let mut max = vec![0; 2 * leaves];
        max[leaves..leaves + values.len()].copy_from_slice(values);
        for node in (1..leaves).rev() {
            max[node] = max[2 * node].max(max[2 * node + 1]);
        }
        MaxTree { leaves, max, taken: vec![0; 2 * leaves] }
    }

    /// Subtracts `amount` over `[lo, hi)`; each of those values must be at least `amount`.
    fn take(&mut self, lo: usize, hi: usize, amount: u64) {
        self.update(lo, hi, amount, true);
    }

    /// Undoes the latest [`MaxTree::take`] not undone yet, which had these arguments.
    fn give_back(&mut self, lo: usize, hi: usize, amount: u64) {
        self.update(lo, hi, amount, false);
    }

    /// Changes the nodes that exactly cover `[lo, hi)`, then recomputes their ancestors, which
    /// lie above its first and last leaves. Until both paths are redone, a node may see a child
    /// that is not updated yet: one that still holds more (a take) or already less than it will
    /// (a give-back), and neither drops the node below zero.
    fn update(&mut self, lo: usize, hi: usize, amount: u64, take: bool) {
        if lo >= hi {
            return;
        }
        let (mut l, mut r) = (lo + self.leaves, hi + self.leaves);
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
        self.recompute_above(lo + self.leaves);
        self.recompute_above(hi - 1 + self.leaves);
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

    /// The maximum over `[lo, hi)` (0 when empty). The nodes that cover the range from the left
    /// all lie under node `l - 1` of the level the loop is at, those from the right under node
    /// `r`: what those nodes and their ancestors took is subtracted on the way up.
    fn max(&self, lo: usize, hi: usize) -> u64 {
        if lo >= hi {
            return 0;
        }
        let (mut l, mut r) = (lo + self.leaves, hi + self.leaves);
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
        above(left, l - 1).max(above(right, r)).unwrap_or(0) // lo < hi: one side covered a node
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
                None => (0..=capacity.saturating_sub(b.size)).filter(|o| o % b.alignment == 0).collect(),
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
            assert!(o != UNPLACED && o + b.size <= capacity && o.is_multiple_of(b.alignment), "buffer {i} at {o}");
            assert!(b.pinned.is_none_or(|p| p == o), "pinned buffer {i} moved to {o}");
            for (k, c) in buffers.iter().enumerate().skip(i + 1) {
                let clash = b.overlaps_in_time(c) && o < offsets[k] + c.size && offsets[k] < o + b.size;
                assert!(!clash, "buffers {i} and {k} overlap");
            }
        }
    }

    fn solve(buffers: &[Buffer], capacity: u64) -> (Run, Option<Vec<u64>>, CanonicalStats) {
        solve_in_order(buffers, capacity, candidates::longest_first)
    }

    fn solve_in_order(
        buffers: &[Buffer],
        capacity: u64,
        order: fn(&Timeline) -> Vec<u32>,
    ) -> (Run, Option<Vec<u64>>, CanonicalStats) {
        let members: Vec<usize> = (0..buffers.len()).collect();
        let timeline = Timeline::new(buffers, &members);
        let mut search = Canonical::new(&timeline, capacity, order(&timeline));
        let run = search.run(u64::MAX, u64::MAX, &mut || false);
        let plan = (run == Run::Found).then(|| search.offsets().to_vec());
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

    fn max_load(buffers: &[Buffer]) -> u64 {
        let members: Vec<usize> = (0..buffers.len()).collect();
        Timeline::new(buffers, &members).max_load()
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

        /// The complete search, under either order of ties, agrees with brute force at capacities
        /// around the max load: a valid plan exactly when one exists, `Infeasible` otherwise.
        #[test]
        fn agrees_with_brute_force(buffers in small_instances(), slack in 0u64..6, contended in any::<bool>()) {
            let capacity = lowest_capacity(&buffers) + slack;
            let order = if contended { candidates::most_contended_first } else { candidates::longest_first };
            let (run, plan, _) = solve_in_order(&buffers, capacity, order);
            let expected = if fits(&buffers, capacity) { Run::Found } else { Run::Infeasible };
            prop_assert_eq!(run, expected);
            if let Some(offsets) = plan {
                check_plan(&buffers, &offsets, capacity);
            }
        }

        /// Stopping after every few steps or a little work and resuming gives the same answer,
        /// the same plan and the same step count as one uninterrupted run.
        #[test]
        fn resuming_gives_the_same_answer(buffers in small_instances(), slack in 0u64..4, every in 1u64..4) {
            let capacity = lowest_capacity(&buffers) + slack;
            let (run, plan, stats) = solve(&buffers, capacity);
            let members: Vec<usize> = (0..buffers.len()).collect();
            let timeline = Timeline::new(&buffers, &members);
            let mut search = Canonical::new(&timeline, capacity, candidates::longest_first(&timeline));
            let mut turns = 0;
            let resumed = loop {
                turns += 1;
                let (steps, work) = if turns % 2 == 0 { (every, u64::MAX) } else { (u64::MAX, 8 * every) };
                match search.run(steps, work, &mut || false) {
                    Run::Paused => continue,
                    done => break done,
                }
            };
            prop_assert_eq!(resumed, run);
            prop_assert_eq!((resumed == Run::Found).then(|| search.offsets().to_vec()), plan);
            prop_assert_eq!(search.stats.steps, stats.steps);
        }
    }

    /// Once the long buffer is placed, nothing crosses time 4: the two sides are solved as
    /// separate tasks (a split), and the plan is valid.
    #[test]
    fn independent_sides_are_split_into_tasks() {
        let buffers = vec![
            Buffer::new("long", 0, 10, 2),
            Buffer::new("l1", 0, 4, 3),
            Buffer::new("l2", 1, 4, 3),
            Buffer::new("r1", 4, 10, 2),
            Buffer::new("r2", 5, 9, 4),
        ];
        let (run, plan, stats) = solve(&buffers, 8);
        assert_eq!(run, Run::Found);
        check_plan(&buffers, &plan.unwrap(), 8); // Found: a plan
        assert!(stats.splits >= 1, "{stats:?}");
    }

    /// With and without the memo, the search gives the same answers (checked on instances where
    /// the memo refutes tasks, too many buffers for brute force), with valid plans.
    #[test]
    fn the_memo_changes_no_answer() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let (mut hits, mut compared) = (0, 0);
        for _ in 0..300 {
            let n = rng.random_range(12..=24);
            let buffers: Vec<Buffer> = (0..n)
                .map(|i| {
                    let start = rng.random_range(0u64..30);
                    let b =
                        Buffer::new(format!("b{i}"), start, start + rng.random_range(1..12), rng.random_range(1..9));
                    b.with_alignment([1, 1, 2][rng.random_range(0..3)])
                })
                .collect();
            let capacity = max_load(&buffers) + rng.random_range(0..3);
            let members: Vec<usize> = (0..buffers.len()).collect();
            let timeline = Timeline::new(&buffers, &members);
            let mut answers = Vec::new();
            for remember in [true, false] {
                let mut search = Canonical::new(&timeline, capacity, candidates::longest_first(&timeline));
                search.remember = remember;
                // Without the memo the search can take exponentially long: skip those instances.
                let run = search.run(200_000, u64::MAX, &mut || false);
                if run == Run::Found {
                    check_plan(&buffers, search.offsets(), capacity);
                }
                hits += search.stats.memo_hits;
                answers.push(run);
            }
            if !answers.contains(&Run::Paused) {
                compared += 1;
                assert_eq!(answers[0], answers[1], "{buffers:?} in {capacity}");
            }
        }
        assert!(hits > 0 && compared > 250, "memo hits {hits}, instances compared {compared}");
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
        assert_eq!(search.run(u64::MAX, u64::MAX, &mut || true), Run::Stopped);
        assert_eq!(search.run(u64::MAX, u64::MAX, &mut || false), run);
        assert_eq!((run == Run::Found).then(|| search.offsets().to_vec()), plan);
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
                    let (lo, hi, amount) = taken.pop().unwrap(); // not empty
                    tree.give_back(lo, hi, amount);
                    naive[lo..hi].iter_mut().for_each(|v| *v += amount);
                } else {
                    let lo = rng.random_range(0..len);
                    let hi = rng.random_range(lo + 1..=len);
                    let amount = rng.random_range(0..=*naive[lo..hi].iter().min().unwrap()); // hi > lo
                    tree.take(lo, hi, amount);
                    naive[lo..hi].iter_mut().for_each(|v| *v -= amount);
                    taken.push((lo, hi, amount));
                }
                for a in 0..len {
                    assert_eq!(tree.max(a, a), 0, "empty range");
                    for b in a + 1..=len {
                        assert_eq!(tree.max(a, b), *naive[a..b].iter().max().unwrap(), "{values:?}: [{a}, {b})");
                    }
                }
            }
            while let Some((lo, hi, amount)) = taken.pop() {
                tree.give_back(lo, hi, amount);
            }
            assert_eq!(tree.max(0, len), *values.iter().max().unwrap());
        }
    }
}
