//! `peak`: plans a large trace around its heaviest moment, exactly there and greedily elsewhere.
//!
//! On real traces past the exact search's size limit (idealloc's pangu_2.6B, 18,692 buffers) the
//! max load is reached at one instant, the rest of the trace has room to spare, and what a greedy
//! plan loses is lost there: a hole under the peak lifts everything stacked over it, weights and
//! workspaces alive for most of the trace, which no local move brings down. This planner does it
//! the other way round:
//! 1. A stretch of time around the peak in which about `WINDOW` starts and ends fall.
//!    The buffers alive across the whole stretch meet every other buffer there, so in any plan they
//!    can be stacked at the bottom, the others keeping their order above them: the stretch's
//!    optimum is that of one buffer the size of them all plus the others, cut to the stretch.
//! 2. MiniMalloc solves that small instance (the stretch, a few hundred buffers): its optimum
//!    bounds what the whole trace needs there, and at the max load it is a plan of the peak with
//!    no hole.
//! 3. The buffers across the stretch are stacked in that block, the longest-lasting after the
//!    stretch lowest (as they end, the top of the block frees first), the others at MiniMalloc's
//!    offsets; with all of them fixed, a greedy pass (size, first fit) places the rest of the trace
//!    around them.
//!
//! On pangu_2.6B it meets the max load, where the greedy orders stop 0.758 % above it, and on
//! S_1 from the third stretch (the heavy moments just beside its peak must be inside it); on
//! traces with heavy moments all along (`memplan generate`'s) step 3's plan is poor, 0.2 to 13 %
//! above the max load whatever the stretch, and `auto` keeps the best of its members.
//!
//! A wider stretch is tried while the plan is above the bound, each search of one given at most
//! the nodes the narrower stretch's search visited, or a dive's worth if more (`wider_budget`):
//! on generated traces the wider stretches' searches ran their whole budgets for no better plan
//! of the whole, where now a wider stretch costs what the narrower one did. What the searches
//! prove about their stretch bounds the whole (each stretch is a relaxation), and the outcome
//! says so (`lower_bound`; the hulls' bound, so not with gaps).
//!
//! The block of step 1 assumes buffers that stack without padding and stay where they are put:
//! inputs with alignment or pinned buffers are declined ([`Halt::Unsupported`]; its capabilities
//! say so), and `auto` does not run it there. Gaps are planned as hulls (the solver's view).

use super::greedy::{Fit, Order, place};
use super::lns::Timeline;
use super::{Capabilities, Solver, minimalloc, stop_reason};
use crate::model::{Buffer, Outcome, Plan, Problem, StatValue, Stats, Stopped};
use crate::options::{Effort, Halt, Parameter, Params, SolveOptions};

/// About how many starts and ends fall in the first stretch MiniMalloc solves (a buffer inside it
/// counts twice); each further stretch holds twice as many ([`STRETCHES`]). pangu_2.6B and Y_1
/// meet the max load from a stretch of a few hundred, S_1 only from about 2,400 (below, the greedy
/// pass leaves it 4.47 % above), and MiniMalloc's cost climbs steeply past that: 600, 1,200, 2,400
/// reaches S_1's bound at the last stretch without overshooting it, where the old 1,000 then 4,000
/// overshot. Chosen on idealloc's three large traces and on generated traces, with held-out seeds.
pub(crate) const WINDOW: u64 = 600;

pub struct Peak;

impl Solver for Peak {
    fn name(&self) -> &str {
        "peak"
    }

    fn description(&self) -> String {
        "solves the stretch of time around the heaviest moment exactly (MiniMalloc), then places the rest greedily \
         around it; for large traces with one peak"
            .into()
    }

    fn capabilities(&self) -> Capabilities {
        // No alignment or pinned buffers: its block stacks buffers unpadded, where they are put.
        Capabilities { alignment: false, pinned: false, ..Capabilities::planner().with_capacity() }
    }

    fn parameters(&self) -> Vec<Parameter> {
        vec![
            Parameter::int(
                "window",
                WINDOW,
                1,
                100_000,
                "about how many starts and ends fall in the first stretch solved exactly (a buffer inside counts twice); \
                 each further stretch holds twice as many",
            ),
            Parameter::at_least(
                "budget",
                0,
                0,
                "how many search nodes MiniMalloc may visit on each stretch; 0 (the default) sets it from the stretch: \
                 16,000 per buffer in it, fewer when its nodes are costly, at least 1,000,000, four times that at --effort high; \
                 a wider stretch at most the nodes the narrower one's search visited (at least 24 per buffer)",
            ),
        ]
    }

    fn run(&self, problem: &Problem, options: &SolveOptions) -> Result<Outcome, Halt> {
        let deadline = options.deadline();
        options.params.check(&self.parameters())?;
        let window: u64 = options.params.get_or("window", WINDOW)?;
        let budget: u64 = options.params.get_or("budget", 0)?;
        if problem.has_alignment() || problem.has_pinned() {
            // The block of buffers across the stretch can hold neither.
            return Err(Halt::Unsupported(
                "peak plans buffers without alignment or pinned offsets (its block of buffers across the stretch \
                 stacks them unpadded); use auto or a greedy planner"
                    .into(),
            ));
        }
        let capacity = options.capacity;
        let Some(peak) = peak_time(problem) else {
            // No buffer with bytes: every buffer at 0.
            let plan = Plan::new(problem, vec![0; problem.len()], (0..problem.len()).collect());
            return Ok(Outcome::new(self.name(), problem, capacity, Some(plan), 0, Stopped::Completed));
        };
        let bound = problem.lower_bound();
        let mut best: Option<(Plan, Stats)> = None;
        let mut last_stopped = Stopped::Completed;
        // What each stretch's search proved about its optimum: a bound on the whole's (the
        // stretch is a relaxation of the trace, see [`cut_out`]), but of the hulls only.
        let mut proven = 0;
        // The nodes the narrower stretch's search needed (see [`wider_budget`]).
        let mut needed: Option<u64> = None;
        let mut tried = Vec::new();
        // The stretch searched last: a wider one that holds no more (the whole trace already, as
        // on MiniMalloc's challenging instances) would repeat its search node for node.
        let mut searched: Option<(u64, u64)> = None;
        // A wider stretch when the narrower one leaves the plan above the bound (S_1 needs about
        // 1,500 buffers in it, pangu_2.6B and Y_1 a few hundred), while time is left.
        for widen in 0..STRETCHES {
            if best.as_ref().is_some_and(|(plan, _)| plan.makespan <= bound)
                || (widen > 0 && deadline.expired().is_some())
            {
                break;
            }
            let wanted = window.saturating_mul(1 << widen);
            let bounds = stretch(problem, peak, wanted);
            if searched.replace(bounds) == Some(bounds) {
                continue;
            }
            let given = if budget > 0 { Budget::Given(budget) } else { Budget::After(needed) };
            let Some(solved) = around_peak(problem, options, &deadline, peak, bounds, given)? else {
                continue;
            };
            last_stopped = solved.stopped;
            proven = proven.max(solved.lower_bound);
            needed = Some(solved.nodes);
            tried.push(format!(
                "{} buffers: {:?} after {} of {} nodes, plan {}",
                solved.buffers, solved.stopped, solved.nodes, solved.budget, solved.plan.makespan
            ));
            if best.as_ref().is_none_or(|(b, _)| solved.plan.makespan < b.makespan) {
                best = Some((solved.plan, solved.stats));
            }
        }
        let proven = if problem.has_gaps() { 0 } else { proven };
        let Some((plan, stats)) = best else {
            return Ok(Outcome::new(
                self.name(),
                problem,
                capacity,
                None,
                proven,
                stop_reason(&deadline, last_stopped),
            ));
        };
        let otherwise = match capacity {
            Some(capacity) if plan.makespan <= capacity => Stopped::Fits,
            _ => Stopped::Completed,
        };
        let stopped = stop_reason(&deadline, otherwise);
        let mut outcome = Outcome::new(self.name(), problem, capacity, Some(plan), proven, stopped);
        outcome.stats = stats;
        outcome.stats.insert("stretches".into(), StatValue::Text(tried.join("; ")));
        Ok(outcome)
    }
}

/// How many stretches [`Peak`] tries at most, each with twice the starts and ends of the last:
/// from [`WINDOW`], the widest holds four times as many. Doubling rather than quadrupling keeps
/// the stretch that first meets the bound at most twice as wide as needed, where MiniMalloc's
/// cost grows faster than its size; a stretch too narrow costs little.
const STRETCHES: u32 = 3;

/// How many nodes MiniMalloc may visit on a stretch.
#[derive(Clone, Copy, Debug)]
enum Budget {
    /// The caller's (`--param budget`), for every stretch.
    Given(u64),
    /// Set from the stretch ([`stretch_budget`]) and from what the narrower stretch's search
    /// visited, if there was one ([`wider_budget`]).
    After(Option<u64>),
}

/// What one stretch gave: the plan of the whole built around it, with its statistics, and what
/// the stretch's search did.
struct Solved {
    plan: Plan,
    stats: Stats,
    /// Why MiniMalloc stopped on the stretch.
    stopped: Stopped,
    /// What it proved about the stretch's optimum (a bound on the hulls' optimum too).
    lower_bound: u64,
    /// The buffers of the stretch's instance, the nodes its search was given and those it visited.
    buffers: usize,
    budget: u64,
    nodes: u64,
}

/// One plan from the stretch `[low, high)` around `peak` ([`stretch`]), with what its search did;
/// `None` when MiniMalloc found no plan of the stretch.
fn around_peak(
    problem: &Problem,
    options: &SolveOptions,
    deadline: &crate::options::Deadline,
    peak: u64,
    (low, high): (u64, u64),
    budget: Budget,
) -> Result<Option<Solved>, Halt> {
    let (sub, across, cut) = cut_out(problem, low, high)?;
    // MiniMalloc on the stretch: a node budget (high effort's in auto at normal effort, four
    // times that at high: the stretch is the whole problem's crux), within what is left of the
    // time limit. The budget holds with a time limit too: `auto` runs this beside its other
    // members, and a search of the stretch that cannot meet its bound would take all the time.
    let nodes = match budget {
        Budget::Given(nodes) => nodes,
        Budget::After(narrower) => {
            let high = stretch_budget(&sub);
            let own = if options.effort == Effort::High { high.saturating_mul(4) } else { high };
            narrower.map_or(own, |narrower| wider_budget(own, narrower, sub.len()))
        }
    };
    let mut params = Params::new();
    params.set("budget", nodes.to_string());
    let sub_options = SolveOptions { params, start: None, capacity: None, progress: None, ..options.clone() };
    let solved = minimalloc::MiniMalloc::default().solve(&sub, &sub_options).map_err(Halt::from)?;
    let Some(sub_plan) = solved.plan.as_ref() else {
        return Ok(None);
    };
    let buffers = problem.buffers();
    // The block of buffers across the stretch (in the sub-instance at index 0 when there is one),
    // those that last longest after it lowest.
    let mut pinned: Vec<Option<u64>> = vec![None; problem.len()];
    let (block, first_cut) = if across.is_empty() { (0, 0) } else { (sub_plan.offsets[0], 1) };
    let mut across = across;
    across.sort_unstable_by_key(|&i| (std::cmp::Reverse(buffers[i].end), buffers[i].start, i));
    let mut top = block;
    for &i in &across {
        pinned[i] = Some(top);
        top = top.saturating_add(buffers[i].size);
    }
    for (k, &i) in cut.iter().enumerate() {
        pinned[i] = Some(sub_plan.offsets[first_cut + k]);
    }
    let fixed: Vec<Buffer> = buffers
        .iter()
        .zip(&pinned)
        .map(|(b, p)| {
            let b = Buffer::new(b.id.clone(), b.start, b.end, b.size);
            match p {
                Some(offset) => b.pinned_at(*offset),
                None => b,
            }
        })
        .collect();
    let fixed = Problem::new(fixed, None).map_err(|e| Halt::Unsupported(format!("the stretch's plan: {e}")))?;
    let order = Order::Size.arrange(fixed.buffers(), options.seed);
    let placement = place(&fixed, &order, Fit::First, deadline)?;
    let plan = Plan::new(problem, placement.offsets, placement.order);
    let mut stats = Stats::new();
    stats.insert("peak".into(), peak.into());
    stats.insert("stretch".into(), StatValue::Text(format!("[{low}, {high})")));
    stats.insert("stretch_buffers".into(), sub.len().into());
    stats.insert("stretch_makespan".into(), sub_plan.makespan.into());
    stats.insert("stretch_stopped".into(), StatValue::Text(format!("{:?}", solved.stopped)));
    let visited = match solved.stats.get("nodes") {
        Some(StatValue::Count(nodes)) => *nodes,
        _ => 0,
    };
    stats.insert("stretch_nodes".into(), visited.into());
    Ok(Some(Solved {
        plan,
        stats,
        stopped: solved.stopped,
        lower_bound: solved.lower_bound,
        buffers: sub.len(),
        budget: nodes,
        nodes: visited,
    }))
}

/// MiniMalloc's node budget for a stretch: what `auto` gives it at high effort on an instance of
/// that size (four times its normal work in nodes of this instance, capped per buffer, at least a
/// million nodes). Counted in nodes, so the plan does not depend on the machine.
fn stretch_budget(sub: &Problem) -> u64 {
    const WORK: u64 = 2_000_000_000;
    const NODES_PER_BUFFER: u64 = 4_000;
    let normal = (WORK / minimalloc::node_cost(sub).max(1)).min(NODES_PER_BUFFER.saturating_mul(sub.len() as u64));
    normal.saturating_mul(4).max(1_000_000)
}

/// The node budget of a wider stretch, whose own would be `own`, after the narrower one's search
/// visited `nodes` nodes: at most those nodes, or [`DIVE`] per buffer (`buffers`) of the wider
/// stretch if that is more.
///
/// Why no more: the wider stretch holds the narrower one, its search branches over the same
/// buffers and more, each node costing more: where the narrower one took few nodes per buffer
/// the wider one's dive should too, and where it did not, a long search of the wider stretch
/// seldom pays. On generated traces (load heavy all along) every search of a stretch that went
/// past 100,000 nodes ran its whole budget or nearly (0.9 to 1 M nodes), and only one of those
/// five gave a better plan of the whole than a narrower stretch (by 0.3 %); where the narrower stretch took a long search (up to its budget), the wider one
/// is given as long a search again, not less.
fn wider_budget(own: u64, nodes: u64, buffers: usize) -> u64 {
    own.min(nodes.max(DIVE.saturating_mul(buffers as u64)))
}

/// Nodes per buffer of a wider stretch's budget at least: what lets MiniMalloc's first probe, at
/// the bound, dive to a plan. Its descent gives that probe a quarter of the budget, shared by its
/// three orderings, and a dive that meets the bound visits a node per buffer (S_1's stretch of
/// 1,551 buffers: 1,551 nodes); two per buffer for each ordering leave room for a few backtracks.
const DIVE: u64 = 4 * 3 * 2;

/// The earliest time at which the load is highest; `None` when no buffer has bytes.
pub(crate) fn peak_time(problem: &Problem) -> Option<u64> {
    let mut events: Vec<(u64, i128)> = Vec::with_capacity(2 * problem.len());
    for b in problem.buffers().iter().filter(|b| b.size > 0 && b.start < b.end) {
        events.push((b.start, i128::from(b.size)));
        events.push((b.end, -i128::from(b.size)));
    }
    events.sort_unstable();
    let (mut load, mut best) = (0i128, None::<(i128, u64)>);
    let mut k = 0;
    while k < events.len() {
        let time = events[k].0;
        while k < events.len() && events[k].0 == time {
            load += events[k].1;
            k += 1;
        }
        if best.is_none_or(|(l, _)| load > l) {
            best = Some((load, time));
        }
    }
    best.filter(|&(l, _)| l > 0).map(|(_, t)| t)
}

/// The stretch `[low, high)` around `peak`, the narrowest (growing both ways alike) in which at
/// least `window` starts and ends fall ([`Timeline::stretch`], the search `lns` widens its windows
/// with), cut to the trace; the whole trace when none holds that many.
pub(crate) fn stretch(problem: &Problem, peak: u64, window: u64) -> (u64, u64) {
    let buffers = problem.buffers();
    let first = buffers.iter().map(|b| b.start).min().unwrap_or(0);
    let last = buffers.iter().map(|b| b.end).max().unwrap_or(0);
    let wanted = usize::try_from(window).unwrap_or(usize::MAX);
    let (low, high) = Timeline::new(problem).stretch(peak, wanted, 0.5);
    (low.max(first).min(peak), high.min(last).max(peak + 1))
}

/// The stretch `[low, high)` as an instance of its own: one buffer as large as all those alive
/// across it (first, when there are any), then every other buffer alive in it, cut to it. Returns
/// the instance, the buffers across and the others in the instance's order.
pub(crate) fn cut_out(problem: &Problem, low: u64, high: u64) -> Result<(Problem, Vec<usize>, Vec<usize>), Halt> {
    let buffers = problem.buffers();
    let (mut across, mut cut) = (Vec::new(), Vec::new());
    for (i, b) in buffers.iter().enumerate() {
        if b.start < high && b.end > low {
            if b.start <= low && b.end >= high { across.push(i) } else { cut.push(i) }
        }
    }
    // Saturating: on inputs whose load passes u64 no plan exists, and MiniMalloc says so.
    let block: u64 = across.iter().map(|&i| buffers[i].size).fold(0, u64::saturating_add);
    let mut sub = Vec::with_capacity(cut.len() + 1);
    if !across.is_empty() {
        sub.push(Buffer::new("0", low, high, block));
    }
    for &i in &cut {
        let b = &buffers[i];
        sub.push(Buffer::new(sub.len().to_string(), b.start.max(low), b.end.min(high), b.size));
    }
    let sub = Problem::new(sub, None).map_err(|e| Halt::Unsupported(format!("the stretch around the peak: {e}")))?;
    Ok((sub, across, cut))
}

#[cfg(test)]
mod tests;
