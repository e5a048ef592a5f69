//! One greedy engine = an order × a placement rule, and the named presets that reproduce what
//! compilers ship (see `shared/docs/peers.md`): SLFF, TFLite, XLA, a runtime's first fit and
//! TelaMalloc's skyline baseline (TVM's planners have their own folder, `solvers/tvm`). Every
//! order × fit combination is also a solver of its own, `greedy-<order>-<fit>`.

mod fit;
mod order;
pub(crate) mod schedule;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

pub use fit::Fit;
pub use order::Order;

use super::view::PinnedPieces;
use super::{Capabilities, Solver, finish, stop_reason};
use crate::model::{Buffer, Outcome, Plan, Problem, Stats, Stopped};
use crate::occupancy::{Address, Occupancy, Query, prefetch};
use crate::options::{CancelFlag, Deadline, Halt, SolveOptions};
use schedule::BufferIndex;

/// One pass of the engine: visit buffers in `order`, place each by `fit`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Pass {
    pub order: Order,
    pub fit: Fit,
}

impl Pass {
    pub const fn new(order: Order, fit: Fit) -> Self {
        Pass { order, fit }
    }

    pub fn name(self) -> String {
        format!("greedy-{}-{}", self.order.name(), self.fit.name())
    }
}

/// The highest makespan worth finishing a plan with, which a portfolio lowers as its other members
/// finish (`u64::MAX`: none). A pass gives up as soon as its plan's top passes it: its plan could
/// only lose.
#[derive(Clone, Debug)]
pub struct Ceiling(Arc<AtomicU64>);

impl Default for Ceiling {
    fn default() -> Self {
        Ceiling(Arc::new(AtomicU64::new(u64::MAX)))
    }
}

impl Ceiling {
    /// Lowers the ceiling to `makespan` (never raises it).
    pub fn lower_to(&self, makespan: u64) {
        self.0.fetch_min(makespan, Ordering::Relaxed);
    }

    pub fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// A greedy planner: one or more passes, of which the lowest makespan is kept (ties: the first).
#[derive(Clone, Debug)]
pub struct Greedy {
    name: String,
    description: String,
    passes: Vec<Pass>,
    ceiling: Ceiling,
}

impl Greedy {
    pub fn new(name: &str, description: &str, passes: Vec<Pass>) -> Self {
        Greedy { name: name.to_string(), description: description.to_string(), passes, ceiling: Ceiling::default() }
    }

    /// A single order × fit combination, named `greedy-<order>-<fit>`.
    pub fn combination(run: Pass) -> Self {
        let description = format!("greedy: {}, {}", run.order.describe(), run.fit.describe());
        Greedy::new(&run.name(), &description, vec![run])
    }

    /// The same planner, giving up a pass whose plan rises above `ceiling` (it then stops with
    /// [`Stopped::Cancelled`] and no plan when no pass stayed under it).
    pub fn under(mut self, ceiling: Ceiling) -> Self {
        self.ceiling = ceiling;
        self
    }

    /// Parses `greedy-<order>-<fit>`.
    pub fn from_name(name: &str) -> Option<Greedy> {
        let rest = name.strip_prefix("greedy-")?;
        let (order, fit) = rest.rsplit_once('-')?;
        Some(Greedy::combination(Pass::new(Order::from_name(order)?, Fit::from_name(fit)?)))
    }

    pub fn passes(&self) -> &[Pass] {
        &self.passes
    }
}

/// The presets, in the order listings show them.
pub(crate) fn presets() -> Vec<Box<dyn Solver>> {
    preset_planners().into_iter().map(|greedy| Box::new(greedy) as Box<dyn Solver>).collect()
}

/// The presets with their runs readable ([`Greedy::passes`]), for tests that check each against its
/// definition.
pub fn preset_planners() -> Vec<Greedy> {
    use Fit::*;
    use Order::*;
    let preset = |name: &str, description: &str, runs: Vec<Pass>| Greedy::new(name, description, runs);
    vec![
        preset(
            "slff",
            "size descending (ties: longer lifetime), first fit: idealloc's big-rocks-first bootstrap",
            vec![Pass::new(Size, First)],
        ),
        preset(
            "tflite",
            "TFLite arena: whole-run buffers first (by index), then size descending, best fit",
            vec![Pass::new(TfliteArena, Best)],
        ),
        preset(
            "xla",
            "XLA heap simulator: spatial (size) and temporal (lifetime) orders with best fit, keeps the smaller",
            vec![Pass::new(Size, Best), Pass::new(Lifetime, Best)],
        ),
        preset(
            "first-fit-start",
            "start order, first fit: what a runtime allocator does online",
            vec![Pass::new(Start, First)],
        ),
        preset(
            "skyline",
            "TelaMalloc's baseline (3.1): highest contention first, on the skyline",
            vec![Pass::new(Contention, Top)],
        ),
    ]
}

/// A line describing the `greedy-<order>-<fit>` family, for listings.
pub fn describe_combinations() -> String {
    let orders: Vec<_> = Order::ALL.iter().map(|o| o.name()).collect();
    let fits: Vec<_> = Fit::ALL.iter().map(|f| f.name()).collect();
    format!("greedy-<order>-<fit>: any order ({}) with any fit ({})", orders.join(", "), fits.join(", "))
}

impl Solver for Greedy {
    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> String {
        self.description.clone()
    }

    fn capabilities(&self) -> Capabilities {
        let randomised = self.passes.iter().any(|r| r.order == Order::Random);
        Capabilities { randomised, ..Capabilities::planner() }
    }

    fn run(&self, problem: &Problem, options: &SolveOptions) -> Result<Outcome, Halt> {
        let deadline = options.deadline();
        let mut best: Option<(u64, Pass, Placement)> = None;
        let mut stopped = Stopped::Completed;
        let mut overflow = None;
        for &run in &self.passes {
            // (Narrowed at once: the usize order goes before the pass builds its index.)
            let order = narrow(&run.order.arrange(problem.buffers(), options.seed));
            let placed =
                deadline.expired().map_or_else(|| place_under(problem, &order, run.fit, &deadline, &self.ceiling), Err);
            let placement = match placed {
                Ok(Some(placement)) => placement,
                // Above the ceiling: this pass could only lose.
                Ok(None) => continue,
                // A later run's timeout still leaves the earlier runs' plan.
                Err(Halt::Timeout | Halt::Cancelled) if best.is_some() => {
                    stopped = stop_reason(&deadline, Stopped::Completed);
                    break;
                }
                // One run's plan passing u64 says nothing of the others': the error only when
                // every run overflows.
                Err(error @ Halt::Overflow { .. }) => {
                    overflow = overflow.or(Some(error));
                    continue;
                }
                Err(error) => return Err(error),
            };
            let makespan = crate::metrics::makespan(problem.buffers(), &placement.offsets);
            if best.as_ref().is_none_or(|(m, _, _)| makespan < *m) {
                best = Some((makespan, run, placement));
            }
        }
        let Some((_, run, placement)) = best else {
            return Err(match overflow {
                Some(error) => error,
                None if self.passes.is_empty() => Halt::Unsupported("a greedy planner needs at least one run".into()),
                // Every run gave up above the ceiling.
                None => Halt::Cancelled,
            });
        };
        let mut stats = Stats::new();
        stats.insert("order".into(), run.order.name().into());
        stats.insert("fit".into(), run.fit.name().into());
        stats.insert("runs".into(), self.passes.len().into());
        let mut outcome = finish(&self.name, problem, options, placement.offsets, placement.order, stats);
        outcome.stopped = outcome.stopped.stronger(stopped);
        Ok(outcome)
    }
}

/// The passes of [`best_quick_pass`]: XLA's pair (size and lifetime, best fit) and the skyline, which
/// between them win most instances of the challenging suite among single passes.
const QUICK_PASSES: [Pass; 3] =
    [Pass::new(Order::Size, Fit::Best), Pass::new(Order::Lifetime, Fit::Best), Pass::new(Order::Contention, Fit::Top)];

/// The plan a search starts from: the caller's warm start ([`SolveOptions::start`]), else the best
/// of a few quick greedy passes ([`best_quick_pass`]).
pub(crate) fn given_or_quick_pass(problem: &Problem, options: &SolveOptions) -> Result<Plan, Halt> {
    match &options.start {
        Some(start) => Ok(Plan::clone(start)),
        None => best_quick_pass(problem, &options.cancel),
    }
}

/// The best plan of a few greedy passes, for a search to start from when its caller has none. No
/// time limit applies (a search needs a plan to return); a cancel stops it.
pub(crate) fn best_quick_pass(problem: &Problem, cancel: &CancelFlag) -> Result<Plan, Halt> {
    let deadline = SolveOptions { cancel: cancel.clone(), ..SolveOptions::default() }.deadline();
    let mut best: Option<Plan> = None;
    for run in QUICK_PASSES {
        let order = run.order.arrange(problem.buffers(), 0);
        let placement = place(problem, &order, run.fit, &deadline)?;
        let plan = Plan::new(problem, placement.offsets, placement.order);
        if best.as_ref().is_none_or(|b| plan.makespan < b.makespan) {
            best = Some(plan);
        }
    }
    Ok(best.unwrap_or_default())
}

/// Offsets and the order in which they were chosen.
#[derive(Clone, Debug, Default)]
pub(crate) struct Placement {
    pub offsets: Vec<u64>,
    pub order: Vec<usize>,
}

/// Places pinned buffers at their offsets, then the others in `order` by `fit`. Fails when two
/// pinned buffers overlap, on an offset past u64, or when the deadline passes.
pub(crate) fn place(problem: &Problem, order: &[usize], fit: Fit, deadline: &Deadline) -> Result<Placement, Halt> {
    // Without a ceiling nothing gives up.
    place_under(problem, &narrow(order), fit, deadline, &Ceiling::default())
        .map(|placement| placement.unwrap_or_default())
}

/// An order as the pass holds it: u32 indices, half the bytes of usize (buffers are fewer than
/// 2^32, as the occupancy index numbers them).
fn narrow(order: &[usize]) -> Vec<u32> {
    order.iter().map(|&i| i as u32).collect()
}

/// [`place`], giving up (`Ok(None)`) as soon as a top passes `ceiling`.
///
/// The index stores addresses as u32 while they may all fit (the instance's own bound does), and
/// the pass is run again with u64 ones if a top passes 4 GiB after all: the same plan, with half
/// the index's memory when the narrow pass goes through. (`order` comes as u32 indices, as the
/// pass holds it: see [`narrow`].)
fn place_under(
    problem: &Problem,
    order: &[u32],
    fit: Fit,
    deadline: &Deadline,
    ceiling: &Ceiling,
) -> Result<Option<Placement>, Halt> {
    // The pass places buffers by their lifetimes: a pinned buffer with gaps goes in as its pieces,
    // so that pins whose hulls meet but whose pieces do not are placed, not called a clash.
    if let Some(pieces) = PinnedPieces::of(problem) {
        let placed = place_under(&pieces.problem, &pieces.order(order), fit, deadline, ceiling)?;
        return Ok(placed.map(|placement| {
            let (offsets, order) = pieces.lift(problem, &placement.offsets, &placement.order);
            Placement { offsets, order }
        }));
    }
    if problem.lower_bound() <= Occupancy::<u32>::LIMIT {
        match place_with::<u32>(problem, order, fit, deadline, ceiling)? {
            Finish::TooWide => {}
            finish => return Ok(finish.placement()),
        }
    }
    match place_with::<u64>(problem, order, fit, deadline, ceiling)? {
        Finish::TooWide => unreachable!("every address is within u64"),
        finish => Ok(finish.placement()),
    }
}

/// How a pass over an index of `A` addresses ended.
enum Finish {
    /// Every buffer placed (the placement, once the pass has made it).
    Placed(Option<Placement>),
    /// A top passed the ceiling: the pass gave up.
    AboveCeiling,
    /// A top passed what `A` holds: the pass must be run with wider addresses.
    TooWide,
}

impl Finish {
    fn placement(self) -> Option<Placement> {
        match self {
            Finish::Placed(placement) => placement,
            Finish::AboveCeiling | Finish::TooWide => None,
        }
    }
}

/// [`place_under`] with an index of `A` addresses.
///
/// The buffers are visited window by window along the time axis ([`schedule`]), which places
/// each after the same time-overlapping buffers as `order` and so gives the same plan with a
/// small working set. The placement order reported is `order`'s.
fn place_with<A: Address>(
    problem: &Problem,
    order: &[u32],
    fit: Fit,
    deadline: &Deadline,
    ceiling: &Ceiling,
) -> Result<Finish, Halt> {
    let buffers = problem.buffers();
    let mut occupancy = Occupancy::<A>::build_windowed(buffers.iter().map(|b| (b.start, b.end)), deadline)?;
    let local = schedule::local_indices(order, |i| occupancy.leaf_range(i), occupancy.leaf_count());
    // (Stored as the index stores addresses, every offset being below what it holds: on
    // 2·10^6-buffer traces half the bytes of u64 at the pass's peak. Widened once the index is
    // gone.)
    let mut offsets = vec![A::default(); buffers.len()];
    let placed = match local {
        Some((local, width)) => {
            // A large index is readied and forgotten window by window; a small one was written
            // whole at build and keeps everything (see `Occupancy::build_windowed`).
            let mut visit = Visit::plain(&local[..]);
            let (finished, started);
            if occupancy.is_lazy() {
                let ready_width = width.max(READY_LEAVES);
                schedule::WindowVisits { finished, started } =
                    schedule::window_visits(&local, |i| occupancy.leaf_range(i), width, ready_width);
                occupancy.ready_above(ready_width);
                visit = Visit { sequence: &local, finished: &finished, width, started: &started, ready_width };
            }
            match place_in(problem, visit, fit, deadline, ceiling, &mut occupancy, &mut offsets) {
                // Which buffer overflows first is `order`'s to say: the pass is run again in it.
                Err(Halt::Overflow { .. }) => {
                    occupancy.clear();
                    place_in(problem, Visit::plain(order), fit, deadline, ceiling, &mut occupancy, &mut offsets)
                }
                placed => placed,
            }
        }
        None => {
            occupancy.ready_all();
            place_in(problem, Visit::plain(order), fit, deadline, ceiling, &mut occupancy, &mut offsets)
        }
    };
    // (The index goes first: the placement order below is as long as the plan.)
    drop(occupancy);
    let placed = placed?;
    let offsets: Vec<u64> = offsets.into_iter().map(A::wide).collect();
    if !matches!(placed, Finish::Placed(_)) {
        return Ok(placed);
    }
    let mut placed_order: Vec<usize> = (0..buffers.len()).filter(|&i| buffers[i].pinned.is_some()).collect();
    if placed_order.is_empty() {
        // (Without pins the order is the placement order: asking each buffer in it whether it is
        // pinned read the buffers in the order's scattered sequence, a cache miss each.)
        placed_order = order.iter().map(|&i| i as usize).collect();
    } else {
        placed_order.extend(order.iter().map(|&i| i as usize).filter(|&i| buffers[i].pinned.is_none()));
    }
    Ok(Finish::Placed(Some(Placement { offsets, order: placed_order })))
}

/// The width of the windows in which a lazy index is readied, in leaves, at least: with u32
/// addresses a MiB of leaf sets and two of first-level nodes, so that each request to the system
/// covers many pages.
const READY_LEAVES: u32 = 1 << 15;

/// A visiting order, and the windows of time the index readies and forgets along it.
#[derive(Clone, Copy)]
struct Visit<'a, S> {
    sequence: &'a [S],
    /// `(position, window)` in order of position ([`schedule::WindowVisits::finished`]): once the
    /// buffer at `position` is placed, the index forgets the window (`width` leaves).
    finished: &'a [(u32, u32)],
    width: u32,
    /// `(position, window)` in order of position ([`schedule::WindowVisits::started`]): before the
    /// buffer at `position` is placed, the index readies the window (`ready_width` leaves).
    started: &'a [(u32, u32)],
    ready_width: u32,
}

impl<'a, S> Visit<'a, S> {
    /// `sequence`, readying and forgetting nothing.
    fn plain(sequence: &'a [S]) -> Self {
        Visit { sequence, finished: &[], width: 1, started: &[], ready_width: 1 }
    }
}

/// Places the pinned buffers, then the others in `visit`'s sequence, into an empty `occupancy`,
/// writing `offsets`; stops as soon as a top passes `ceiling` or what the index holds.
/// ([`Finish::Placed`] carries no placement here: the caller makes it from `offsets`.)
fn place_in<A: Address, S: BufferIndex>(
    problem: &Problem,
    visit: Visit<S>,
    fit: Fit,
    deadline: &Deadline,
    ceiling: &Ceiling,
    occupancy: &mut Occupancy<A>,
    offsets: &mut [A],
) -> Result<Finish, Halt> {
    let buffers = problem.buffers();
    let mut query = Query::default();
    // The highest top so far: the plan's makespan can only grow from it.
    let mut peak = 0u64;
    let pinned: Vec<usize> = (0..buffers.len()).filter(|&i| buffers[i].pinned.is_some()).collect();
    if !pinned.is_empty() {
        // (Pinned buffers go first, wherever their windows lie.)
        occupancy.ready_all();
    }
    for (k, &i) in pinned.iter().enumerate() {
        let buffer = &buffers[i];
        let offset = buffer.pinned.unwrap_or(0); // filtered above
        let top = offset + buffer.size; // checked when the problem was built
        occupancy.query_lifetime(i, &mut query);
        if occupancy.is_taken(&query, offset, top) {
            let other = pinned[..k]
                .iter()
                .copied()
                .find(|&j: &usize| {
                    let b = &buffers[j];
                    b.overlaps_in_time(buffer) && offsets[j].wide() < top && offset < offsets[j].wide() + b.size
                })
                .map_or_else(String::new, |j| format!(" and {}", buffers[j].id));
            return Err(Halt::Infeasible(format!("pinned buffers {}{other} overlap", buffer.id)));
        }
        if top > Occupancy::<A>::LIMIT {
            return Ok(Finish::TooWide);
        }
        occupancy.insert_queried(&query, offset, top);
        offsets[i] = A::narrow(offset); // (below `top`, checked against what `A` holds)
        peak = peak.max(top);
    }
    // What each step needs of its buffer, gathered a chunk ahead: `sequence` jumps across the
    // buffers, and reading each one's fields (and leaf range) only when its turn came stalled the
    // pass on a cache miss per step; gathered in a loop of independent reads, the misses overlap.
    let mut chunk: Vec<Step> = Vec::with_capacity(GATHER);
    let mut ahead_queries: [Query; RING] = Default::default();
    let mut done = 0;
    let mut finished = visit.finished.iter().peekable();
    let mut started = visit.started.iter().peekable();
    for (k, part) in visit.sequence.chunks(GATHER).enumerate() {
        // Every window a buffer of this chunk starts or ends in is readied before the chunk.
        let ahead = k * GATHER + part.len();
        while let Some(&(_, window)) = started.next_if(|&&(position, _)| (position as usize) < ahead) {
            occupancy.ready(window * visit.ready_width, visit.ready_width);
        }
        chunk.clear();
        chunk.extend(part.iter().map(|&i| i.index()).filter(|&i| buffers[i].pinned.is_none()).map(|i| {
            // (The step's offset is written at its turn: asked for now, its line is in by then.)
            prefetch(&offsets[i]);
            Step { index: i, leaves: occupancy.leaf_range(i), size: buffers[i].size, alignment: buffers[i].alignment() }
        }));
        // Each step's query is begun `AHEAD` steps before its turn and its pool lines asked for
        // `SPILLED_AHEAD` steps before (see `Occupancy::prepare_leaves`), in a ring of queries.
        for (step, query) in chunk.iter().zip(&mut ahead_queries).take(AHEAD) {
            occupancy.prepare_leaves(step.leaves, query);
        }
        for (j, step) in chunk.iter().enumerate() {
            deadline.poll(done)?;
            done += 1;
            if let Some(later) = chunk.get(j + AHEAD) {
                occupancy.prepare_leaves(later.leaves, &mut ahead_queries[(j + AHEAD) % RING]);
            }
            if j + SPILLED_AHEAD < chunk.len() {
                occupancy.prefetch_spilled(&ahead_queries[(j + SPILLED_AHEAD) % RING]);
            }
            let query = &mut ahead_queries[j % RING];
            occupancy.finish_query(query);
            let query = &*query;
            let (offset, top) = locate(occupancy, query, &buffers[step.index], step.size, step.alignment, fit)?;
            peak = peak.max(top);
            // (Read at every step: the ceiling may have come down below a peak reached before.)
            if peak > ceiling.get() {
                return Ok(Finish::AboveCeiling);
            }
            if top > Occupancy::<A>::LIMIT {
                return Ok(Finish::TooWide);
            }
            occupancy.insert_queried(query, offset, top);
            offsets[step.index] = A::narrow(offset); // (as above)
        }
        // (Checked a chunk at a time: a window stays a little longer than it must.)
        let placed = k * GATHER + part.len();
        while let Some(&(_, window)) = finished.next_if(|&&(position, _)| (position as usize) < placed) {
            occupancy.forget(window * visit.width, visit.width);
        }
    }
    Ok(if peak <= ceiling.get() { Finish::Placed(None) } else { Finish::AboveCeiling })
}

/// How many steps [`place_in`] gathers at a time.
const GATHER: usize = 1024;

/// How many steps ahead [`place_in`] begins a query (finds its nodes and asks for their lines),
/// and the ring of queries that holds them until their turn. Its pool lines are asked for
/// `SPILLED_AHEAD` steps ahead: reading the sets' headers for them waited on the node lines
/// when both were asked for close together.
const AHEAD: usize = 4;
const SPILLED_AHEAD: usize = 2;
const RING: usize = AHEAD + 1;

/// One unpinned buffer to place: its index, leaf range, size and alignment.
struct Step {
    index: usize,
    leaves: (u32, u32),
    size: u64,
    alignment: u64,
}

/// Where `fit` puts `buffer` among the placements `occupancy` holds, given `query` of its lifetime:
/// its offset and top, or an overflow error when they would pass u64.
/// (`size` and `alignment` are the buffer's, read ahead; the buffer itself is read only to name it
/// in an error.)
fn locate<A: Address>(
    occupancy: &Occupancy<A>,
    query: &Query,
    buffer: &Buffer,
    size: u64,
    alignment: u64,
    fit: Fit,
) -> Result<(u64, u64), Halt> {
    let overflow = || Halt::Overflow { buffer: buffer.id.to_string(), offset: u64::MAX, size };
    let offset = fit.choose(occupancy, query, size, alignment).ok_or_else(overflow)?;
    let top = offset.checked_add(size).ok_or_else(overflow)?;
    Ok((offset, top))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{TraceSpec, trace};

    /// The windowed visit gives the plan of the plain visit in `order`, on a trace many windows
    /// long, with some buffers pinned where an earlier plan put them.
    #[test]
    fn windows_give_the_plan_of_the_plain_order() {
        let problem = trace(TraceSpec::new(24_000, 5));
        let first = place(&problem, &Order::Size.arrange(problem.buffers(), 0), Fit::First, &Deadline::none()).unwrap();
        let buffers: Vec<Buffer> = problem
            .buffers()
            .iter()
            .enumerate()
            .map(|(i, b)| if i % 97 == 0 { b.clone().pinned_at(first.offsets[i]) } else { b.clone() })
            .collect();
        let pinned = Problem::new(buffers, None).unwrap();
        for problem in [&problem, &pinned] {
            let buffers = problem.buffers();
            for (order, fit) in [(Order::Size, Fit::First), (Order::Lifetime, Fit::Best), (Order::Random, Fit::Top)] {
                let order = order.arrange(buffers, 3);
                let occupancy = Occupancy::new(buffers.iter().map(|b| (b.start, b.end)));
                let windowed = schedule::local_order(&order, |i| occupancy.leaf_range(i), occupancy.leaf_count());
                assert!(windowed.is_some_and(|w| w != order), "the trace spans several windows");
                let placement = place(problem, &order, fit, &Deadline::none()).unwrap();
                let mut occupancy = Occupancy::new(buffers.iter().map(|b| (b.start, b.end)));
                let mut offsets = vec![0; buffers.len()];
                let placed = place_in(
                    problem,
                    Visit::plain(&order),
                    fit,
                    &Deadline::none(),
                    &Ceiling::default(),
                    &mut occupancy,
                    &mut offsets,
                );
                assert!(matches!(placed.unwrap(), Finish::Placed(_)));
                // (`place` stores addresses as u32, this pass as u64.)
                assert_eq!(placement.offsets, offsets, "{fit:?}");
                assert!(crate::validate::validate(problem, &offsets, None).is_valid());
                // The placement order: the pinned buffers by index, then `order` without them.
                let pinned = (0..buffers.len()).filter(|&i| buffers[i].pinned.is_some());
                let expected: Vec<usize> =
                    pinned.chain(order.iter().copied().filter(|&i| buffers[i].pinned.is_none())).collect();
                assert_eq!(placement.order, expected, "{fit:?}");
            }
        }
    }

    /// A plan whose top passes 4 GiB though the instance's bound does not: the narrow pass gives
    /// way to a wide one, which places the buffer above the pinned byte in its way.
    #[test]
    fn a_top_past_4_gib_widens_the_index() {
        let gib = 1u64 << 30;
        let pinned = Buffer::new("p", 0, 2, 1).pinned_at(gib);
        let problem = Problem::new(vec![pinned, Buffer::new("x", 1, 3, 3 * gib + gib / 2)], None).unwrap();
        assert!(problem.lower_bound() <= Occupancy::<u32>::LIMIT);
        for fit in Fit::ALL {
            let placement = place(&problem, &[0, 1], fit, &Deadline::none()).unwrap();
            assert_eq!(placement.offsets, vec![gib, gib + 1], "{fit:?}");
            assert!(crate::validate::validate(&problem, &placement.offsets, None).is_valid());
        }
    }
}
