//! Test helpers shared by the integration tests: random instances, naive placement rules and a
//! brute-force optimum. Everything here is written the slow, obvious way on purpose.
#![allow(dead_code)]

use memplan::solvers::Solver;
use memplan::solvers::greedy::{Fit, Greedy, Order, Pass};
use memplan::solvers::minimalloc::{MiniMalloc, Rules, Settings};
use memplan::{Buffer, Gap, Outcome, Plan, Problem, Stopped, validate};
use proptest::prelude::*;

/// A random instance: up to `max_buffers` buffers with small times, some aligned, some pinned
/// (pinned buffers never overlap one another, so every instance is feasible without a capacity).
pub fn instances(max_buffers: usize, max_size: u64) -> impl Strategy<Value = Problem> {
    let buffer =
        (0u64..40, 1u64..16, 1..=max_size, prop::sample::select(vec![1u64, 1, 1, 2, 4, 8, 16]), 0u8..10, 0u64..200);
    prop::collection::vec(buffer, 1..=max_buffers).prop_map(|specs| {
        let mut buffers: Vec<Buffer> = Vec::new();
        for (i, (start, length, size, alignment, pin_roll, pin_at)) in specs.into_iter().enumerate() {
            let mut buffer = Buffer::new(format!("b{i}"), start, start + length, size).with_alignment(alignment);
            if pin_roll == 0 {
                let offset = pin_at / alignment * alignment;
                let clashes = buffers.iter().any(|o| {
                    o.pinned.is_some_and(|p| o.overlaps_in_time(&buffer) && p < offset + size && offset < p + o.size)
                });
                if !clashes {
                    buffer.pinned = Some(offset);
                }
            }
            buffers.push(buffer);
        }
        Problem::new(buffers, None).expect("generated buffers are valid")
    })
}

/// [`instances`] with gaps: each buffer may get up to two, from cut points inside its lifetime,
/// and (with `windows`) some of them windowed. Gaps only remove conflicts, so the pinned buffers
/// still never clash.
pub fn instances_with_gaps(max_buffers: usize, max_size: u64, windows: bool) -> impl Strategy<Value = Problem> {
    let gap = (prop::collection::vec(0u64..16, 0..=4), any::<bool>(), 0u64..64, 0u64..64);
    (instances(max_buffers, max_size), prop::collection::vec(gap, max_buffers)).prop_map(move |(problem, specs)| {
        let buffers: Vec<Buffer> = problem
            .buffers()
            .iter()
            .zip(specs)
            .map(|(b, (cuts, windowed, low, span))| {
                let mut points: Vec<u64> = cuts.iter().map(|c| b.start + c % (b.lifetime() + 1)).collect();
                points.sort_unstable();
                points.dedup();
                let gaps = points
                    .chunks_exact(2)
                    .map(|pair| {
                        if windows && windowed {
                            let lower = low % b.size;
                            let upper = lower + 1 + span % (b.size - lower);
                            Gap::windowed(pair[0], pair[1], lower, upper)
                        } else {
                            Gap::new(pair[0], pair[1])
                        }
                    })
                    .collect();
                b.clone().with_gaps(gaps)
            })
            .collect();
        Problem::new(buffers, None).expect("gaps inside the lifetimes keep the instance valid")
    })
}

/// Whether two buffers are alive at one time, from the definition: at some start or gap end
/// (where what is alive changes) both are inside their lifetimes and outside their plain gaps.
pub fn naive_alive_together(a: &Buffer, b: &Buffer) -> bool {
    let alive = |x: &Buffer, t: u64| {
        x.start <= t && t < x.end && !x.gaps.iter().any(|g| g.window.is_none() && g.start <= t && t < g.end)
    };
    let times = [a, b].into_iter().flat_map(|x| std::iter::once(x.start).chain(x.gaps.iter().map(|g| g.end)));
    times.clone().any(|t| alive(a, t) && alive(b, t))
}

/// The free gaps among the placed buffers that overlap `buffer` in time, by scanning them all:
/// `(low, Some(high))` bounded gaps, then `(top, None)`.
pub fn naive_gaps(problem: &Problem, offsets: &[u64], placed: &[usize], buffer: usize) -> Vec<(u64, Option<u64>)> {
    let b = problem.buffers();
    let mut taken: Vec<(u64, u64)> = placed
        .iter()
        .filter(|&&j| naive_alive_together(&b[j], &b[buffer]))
        .map(|&j| (offsets[j], offsets[j] + b[j].size))
        .collect();
    taken.sort();
    let mut gaps = Vec::new();
    let mut covered = 0;
    for (low, high) in taken {
        if low > covered {
            gaps.push((covered, Some(low)));
        }
        covered = covered.max(high);
    }
    gaps.push((covered, None));
    gaps
}

fn align(value: u64, alignment: u64) -> u64 {
    value.div_ceil(alignment) * alignment
}

/// The placement rules, written from their definitions.
pub fn naive_choose(fit: &str, problem: &Problem, offsets: &[u64], placed: &[usize], i: usize) -> u64 {
    let b = &problem.buffers()[i];
    let gaps = naive_gaps(problem, offsets, placed, i);
    let top = align(gaps.last().unwrap().0, b.alignment());
    let fitting = gaps.iter().filter_map(|&(low, high)| {
        let offset = align(low, b.alignment());
        match high {
            Some(high) if offset + b.size <= high => Some((high - low, offset)),
            _ => None,
        }
    });
    match fit {
        "first" => fitting.map(|(_, o)| o).next().unwrap_or(top),
        "best" => fitting.min_by_key(|&(len, o)| (len, o)).map_or(top, |(_, o)| o),
        "worst" => fitting.max_by_key(|&(len, o)| (len, std::cmp::Reverse(o))).map_or(top, |(_, o)| o),
        "top" => top,
        _ => unreachable!("unknown fit {fit}"),
    }
}

/// Pinned buffers first, then `order` placed by the naive rule.
pub fn naive_place(fit: &str, problem: &Problem, order: &[usize]) -> Vec<u64> {
    let b = problem.buffers();
    let mut offsets = vec![0; b.len()];
    let mut placed: Vec<usize> = Vec::new();
    for (i, buffer) in b.iter().enumerate() {
        if let Some(p) = buffer.pinned {
            offsets[i] = p;
            placed.push(i);
        }
    }
    for &i in order {
        if b[i].pinned.is_none() {
            offsets[i] = naive_choose(fit, problem, &offsets, &placed, i);
            placed.push(i);
        }
    }
    offsets
}

/// The optimal makespan, by first fit over every order: placing the buffers of an optimal plan in
/// increasing offset with first fit never puts one higher, so the best order reaches the optimum.
/// Plain gaps are honoured (two buffers conflict where both are alive); windows are not (a
/// windowed gap counts as alive), so on instances with windows this is the optimum of that.
pub fn brute_force_optimum(problem: &Problem) -> u64 {
    let n = problem.len();
    assert!(n <= 8, "brute force is for tiny instances");
    let mut order: Vec<usize> = (0..n).collect();
    let mut best = u64::MAX;
    permute(&mut order, 0, &mut |order| {
        let offsets = naive_place("first", problem, order);
        best = best.min(memplan::metrics::makespan(problem.buffers(), &offsets));
    });
    best
}

fn permute(items: &mut Vec<usize>, k: usize, visit: &mut impl FnMut(&[usize])) {
    if k == items.len() {
        visit(items);
        return;
    }
    for i in k..items.len() {
        items.swap(k, i);
        permute(items, k + 1, visit);
        items.swap(k, i);
    }
}

/// Every named solver and every `greedy-<order>-<fit>` combination.
pub fn every_planner() -> Vec<std::sync::Arc<dyn Solver>> {
    let mut all = memplan::run::registry::all();
    for order in Order::ALL {
        for fit in Fit::ALL {
            all.push(std::sync::Arc::new(Greedy::combination(Pass::new(order, fit))));
        }
    }
    all
}

/// The plan a search starts from when its caller gives none: the best of XLA's pair of passes
/// (size and lifetime, best fit) and the skyline, built here from the public greedy solver.
pub fn quick_start(problem: &Problem) -> Plan {
    let passes = vec![
        Pass::new(Order::Size, Fit::Best),
        Pass::new(Order::Lifetime, Fit::Best),
        Pass::new(Order::Contention, Fit::Top),
    ];
    let greedy = Greedy::new("quick-start", "the best of the quick passes", passes);
    greedy.solve(problem, &memplan::SolveOptions::default()).unwrap().plan.expect("greedy always plans")
}

/// A deliberately poor plan: first fit in input order.
pub fn first_fit_in_input_order(problem: &Problem) -> Plan {
    let greedy = Greedy::combination(Pass::new(Order::Input, Fit::First));
    greedy.solve(problem, &memplan::SolveOptions::default()).unwrap().plan.expect("greedy always plans")
}

/// Whether `solver` declines `problem` by its capabilities (`peak` takes neither alignment nor
/// pinned buffers): such a solver answers with `SolveError::Unsupported`, which `peak`'s tests check.
pub fn declines(solver: &dyn Solver, problem: &Problem) -> bool {
    let capabilities = solver.capabilities();
    (problem.has_alignment() && !capabilities.alignment) || (problem.has_pinned() && !capabilities.pinned)
}

/// The outcome's plan, once the independent validator has accepted the outcome (the plan and
/// every claim about it). Panics, naming the solver, when it is invalid or has no plan.
pub fn checked<'a>(problem: &Problem, outcome: &'a Outcome) -> &'a Plan {
    let report = validate::validate_outcome(problem, outcome);
    assert!(report.is_valid(), "{}: {}", outcome.solver, report.describe(problem));
    outcome.plan.as_ref().unwrap_or_else(|| panic!("{} returned no plan ({:?})", outcome.solver, outcome.stopped))
}

/// The exact solver with `rules` and otherwise default settings.
pub fn with_rules(rules: Rules) -> MiniMalloc {
    MiniMalloc::new(Settings { rules, ..Settings::default() })
}

/// Every rule of the exact search switched off in turn (and all on): none may change an answer.
pub fn rule_sets() -> Vec<(&'static str, Rules)> {
    let all = Rules::default();
    vec![
        ("all", all),
        ("canonical", Rules { canonical: false, ..all }),
        ("dominance", Rules { dominance: false, ..all }),
        ("inference", Rules { inference: false, ..all }),
        ("decompose", Rules { decompose: false, ..all }),
        ("memo", Rules { memo: false, ..all }),
        ("symmetry", Rules { symmetry: false, ..all }),
        ("hatless", Rules { hatless: false, ..all }),
        ("tiling", Rules { tiling: false, ..all }),
        ("stacking", Rules { stacking: false, ..all }),
        ("coarse_keys", Rules { coarse_keys: false, ..all }),
        ("windows", Rules { windows: false, ..all }),
        ("spanning", Rules { spanning: false, ..all }),
    ]
}

// The exhaustive oracle: every input feature (plain and windowed gaps, buffers never alive, pins,
// alignment, zero sizes) decided from the definition, byte by byte and time unit by time unit, and
// every aligned offset tried. It shares nothing with memplan's solvers, its validator or
// `Buffer::pieces`, so that a claim it refutes is wrong whatever those say.

/// Whether `buffer`, placed at `offset`, holds byte `address` at time `time`, from the definition:
/// inside its lifetime and its bytes, and either outside every gap or, in a windowed gap, inside
/// the window's bytes.
pub fn holds(buffer: &Buffer, offset: u64, time: u64, address: u64) -> bool {
    if time < buffer.start || time >= buffer.end || address < offset || address - offset >= buffer.size {
        return false;
    }
    let byte = address - offset;
    match buffer.gaps.iter().find(|gap| gap.start <= time && time < gap.end) {
        None => true,
        Some(gap) => gap.window.is_some_and(|window| window.lower <= byte && byte < window.upper),
    }
}

/// Whether two placed buffers hold one byte at one time, by trying every time unit both lifetimes
/// share and every byte both address ranges share.
pub fn naive_conflict(a: &Buffer, a_offset: u64, b: &Buffer, b_offset: u64) -> bool {
    let (first, last) = (a.start.max(b.start), a.end.min(b.end));
    let (low, high) = (a_offset.max(b_offset), (a_offset + a.size).min(b_offset + b.size));
    (first..last)
        .any(|time| (low..high).any(|address| holds(a, a_offset, time, address) && holds(b, b_offset, time, address)))
}

/// What is wrong with `offsets` as a plan of `problem` within `capacity`, by the definition
/// (empty when nothing is): a misaligned or moved offset, a top past the capacity, two buffers
/// that hold one byte at one time. Independent of memplan's validator, which is checked against it.
pub fn naive_plan_errors(problem: &Problem, offsets: &[u64], capacity: Option<u64>) -> Vec<String> {
    let b = problem.buffers();
    if offsets.len() != b.len() {
        return vec![format!("{} offsets for {} buffers", offsets.len(), b.len())];
    }
    let mut errors = Vec::new();
    for (i, (buffer, &offset)) in b.iter().zip(offsets).enumerate() {
        if offset % buffer.alignment() != 0 {
            errors.push(format!("{} at {offset} is not aligned to {}", buffer.id, buffer.alignment()));
        }
        if buffer.pinned.is_some_and(|pinned| pinned != offset) {
            errors.push(format!("{} is pinned at {:?} but placed at {offset}", buffer.id, buffer.pinned));
        }
        if capacity.is_some_and(|capacity| offset + buffer.size > capacity) {
            errors.push(format!("{} ends at {}, past the capacity {capacity:?}", buffer.id, offset + buffer.size));
        }
        for j in 0..i {
            if naive_conflict(&b[j], offsets[j], buffer, offset) {
                errors.push(format!("{} at {} meets {} at {offset}", b[j].id, offsets[j], buffer.id));
            }
        }
    }
    errors
}

/// The makespan of `offsets`, from its definition: the highest offset + size (0 without buffers).
pub fn naive_makespan(problem: &Problem, offsets: &[u64]) -> u64 {
    problem.buffers().iter().zip(offsets).map(|(b, &o)| o + b.size).max().unwrap_or(0)
}

/// The exact optimum by exhaustive search: `None` when the pinned buffers meet (no plan exists).
pub fn exhaustive_optimum(problem: &Problem) -> Option<u64> {
    exhaustive_plan(problem, None).map(|offsets| naive_makespan(problem, &offsets))
}

/// Whether some plan has every buffer's top (offset + size) within `capacity`.
pub fn feasible_within(problem: &Problem, capacity: u64) -> bool {
    exhaustive_plan(problem, Some(capacity)).is_some()
}

/// A plan found by trying every aligned offset of every buffer: with `capacity`, the first plan
/// within it; without, one of least makespan. `None` when there is none. For a handful of small
/// buffers only (the search is exponential).
///
/// Why the search is complete: stacking the unpinned buffers one above another over the highest
/// pinned top gives a plan whenever the pins allow one, with a makespan at most `upper` (that top
/// plus every unpinned size and alignment − 1), so an optimal plan has every top within `upper`;
/// offsets are tried from 0 up to there. The search prunes only on a conflict and, minimising, on
/// a top no lower than the best plan's makespan so far. Two shortcuts keep it small, both exact:
/// buffers split into groups that can never meet at any offsets (no time and byte in common
/// whatever the offsets) are searched group by group (the makespan is the highest group's, a
/// group's placement does not constrain another's), and an unpinned buffer that can meet no other
/// sits at 0, its lowest top.
pub fn exhaustive_plan(problem: &Problem, capacity: Option<u64>) -> Option<Vec<u64>> {
    exhaustive_search(problem, capacity, u64::MAX).expect("an unbounded search always ends")
}

/// The optimum of [`exhaustive_optimum`], or `Err(())` when the search needs more than `nodes`
/// placements to be sure (for instances of unknown difficulty).
pub fn exhaustive_optimum_within(problem: &Problem, nodes: u64) -> Result<Option<u64>, ()> {
    Ok(exhaustive_search(problem, None, nodes)?.map(|offsets| naive_makespan(problem, &offsets)))
}

/// [`exhaustive_plan`], giving up (`Err(())`) after `nodes` placements.
fn exhaustive_search(problem: &Problem, capacity: Option<u64>, nodes: u64) -> Result<Option<Vec<u64>>, ()> {
    let b = problem.buffers();
    let n = b.len();
    assert!(n <= 24, "the exhaustive oracle is for small instances");
    let pinned_top = b.iter().filter_map(|x| x.pinned.map(|p| p + x.size)).max().unwrap_or(0);
    let upper = pinned_top + b.iter().filter(|x| x.pinned.is_none()).map(|x| x.size + x.alignment() - 1).sum::<u64>();
    assert!(upper <= 4096, "the exhaustive oracle is for small sizes (bound {upper})");
    let limit = capacity.map_or(upper, |c| c.min(upper));
    if b.iter().any(|x| x.pinned.is_some_and(|p| p + x.size > limit)) {
        return Ok(None);
    }
    let table = ClashTable::new(b, limit);
    let mut offsets = vec![0u64; n];
    let mut nodes_left = nodes;
    for group in table.groups() {
        let order = table.placement_order(b, group);
        let minimise = capacity.is_none();
        let mut search = Search { buffers: b, table: &table, order, minimise, best: None, nodes_left };
        let mut current = vec![0u64; n];
        search.walk(0, &mut current, 0, limit);
        if search.nodes_left == 0 {
            return Err(());
        }
        nodes_left = search.nodes_left;
        let Some((_, found)) = search.best else { return Ok(None) };
        for &i in &search.order {
            offsets[i] = found[i];
        }
    }
    Ok(Some(offsets))
}

/// For every pair of buffers and every difference `d` of their offsets within ±`limit`, whether
/// they meet: by translation, whether they meet depends on the difference alone.
struct ClashTable {
    n: usize,
    limit: u64,
    clash: Vec<bool>,
}

impl ClashTable {
    fn new(b: &[Buffer], limit: u64) -> ClashTable {
        let n = b.len();
        let width = 2 * limit as usize + 1;
        let mut clash = vec![false; n * n * width];
        for i in 0..n {
            for j in 0..i {
                for d in 0..width {
                    // Buffer i at `limit`, buffer j at `d`: their offsets differ by d − limit.
                    let meets = naive_conflict(&b[i], limit, &b[j], d as u64);
                    clash[(i * n + j) * width + d] = meets;
                    clash[(j * n + i) * width + (width - 1 - d)] = meets;
                }
            }
        }
        ClashTable { n, limit, clash }
    }

    /// Whether buffer `i` at `i_offset` and buffer `j` at `j_offset` meet (both within `limit`).
    fn meets(&self, i: usize, i_offset: u64, j: usize, j_offset: u64) -> bool {
        let width = 2 * self.limit as usize + 1;
        let d = (j_offset + self.limit - i_offset) as usize;
        self.clash[(i * self.n + j) * width + d]
    }

    fn ever_meet(&self, i: usize, j: usize) -> bool {
        let width = 2 * self.limit as usize + 1;
        self.clash[(i * self.n + j) * width..(i * self.n + j + 1) * width].iter().any(|&m| m)
    }

    /// The order in which the search places `group`: pinned buffers first, then repeatedly the
    /// largest buffer that can meet one already placed (the largest of all when none can), so
    /// that conflicts prune early.
    fn placement_order(&self, buffers: &[Buffer], mut rest: Vec<usize>) -> Vec<usize> {
        let mut order: Vec<usize> = Vec::with_capacity(rest.len());
        rest.sort_by_key(|&i| (buffers[i].pinned.is_none(), std::cmp::Reverse(buffers[i].size), i));
        while !rest.is_empty() {
            let next = rest
                .iter()
                .position(|&i| buffers[i].pinned.is_some() || order.iter().any(|&j| self.ever_meet(i, j)))
                .unwrap_or(0);
            order.push(rest.remove(next));
        }
        order
    }

    /// The buffers in groups that can never meet one another across groups.
    fn groups(&self) -> Vec<Vec<usize>> {
        let n = self.n;
        let mut seen = vec![false; n];
        let mut groups = Vec::new();
        for root in 0..n {
            if seen[root] {
                continue;
            }
            let mut members = vec![root];
            seen[root] = true;
            let mut k = 0;
            while k < members.len() {
                let i = members[k];
                let joining: Vec<usize> = (0..n).filter(|&j| !seen[j] && self.ever_meet(i, j)).collect();
                for j in joining {
                    seen[j] = true;
                    members.push(j);
                }
                k += 1;
            }
            groups.push(members);
        }
        groups
    }
}

struct Search<'a> {
    buffers: &'a [Buffer],
    table: &'a ClashTable,
    order: Vec<usize>,
    minimise: bool,
    /// The best plan so far: its makespan over the group and the offsets.
    best: Option<(u64, Vec<u64>)>,
    /// Placements the search may still try; at 0 it stops, unsure.
    nodes_left: u64,
}

impl Search<'_> {
    /// Places `order[k..]` on top of `order[..k]` (at `offsets`, highest top `top`), every top
    /// within `limit`. Returns true to stop (a plan found when not minimising).
    fn walk(&mut self, k: usize, offsets: &mut Vec<u64>, top: u64, limit: u64) -> bool {
        if self.nodes_left == 0 {
            return true;
        }
        self.nodes_left -= 1;
        if k == self.order.len() {
            self.best = Some((top, offsets.clone()));
            return !self.minimise;
        }
        let i = self.order[k];
        let buffer = &self.buffers[i];
        // The highest top allowed now: the limit, or below the best plan's makespan.
        let ceiling = |best: &Option<(u64, Vec<u64>)>| match best {
            Some((makespan, _)) => makespan.checked_sub(1),
            None => Some(limit),
        };
        let alone = (0..self.buffers.len()).all(|j| j == i || !self.table.ever_meet(i, j));
        let mut offset = buffer.pinned.unwrap_or(0);
        loop {
            let Some(ceiling) = ceiling(&self.best) else { return false };
            if offset + buffer.size > ceiling {
                return false;
            }
            let free = self.order[..k].iter().all(|&j| !self.table.meets(j, offsets[j], i, offset));
            if free {
                offsets[i] = offset;
                if self.walk(k + 1, offsets, top.max(offset + buffer.size), limit) {
                    return true;
                }
            }
            if buffer.pinned.is_some() || alone {
                return false;
            }
            offset += buffer.alignment();
        }
    }
}

/// Tiny instances with every input feature, for the exhaustive oracle: up to `max_buffers`
/// buffers, sizes up to 8 (some 0), times below 12, alignments from {1, 2, 4, 8}; about 30 % of
/// the buffers get plain gaps, 20 % windowed ones, 10 % are never alive (gaps over their whole
/// lifetime), and about a quarter are pinned. Pins come from a random valid plan (each buffer, in
/// turn, at the first aligned offset from a random one that meets none placed before), so the
/// pins of a plan always allow one; a few (1 in 20) are pinned anywhere, which may allow none.
pub fn oracle_instances(max_buffers: usize) -> impl Strategy<Value = Problem> {
    let buffer = (
        (0u64..6, 1u64..=5, 0u8..10, 1u64..=8, prop::sample::select(vec![1u64, 1, 1, 2, 4, 8])),
        (0u8..10, prop::collection::vec(0u64..6, 2..=4), 0u64..8, 0u64..8),
        (0u8..20, 0u64..24),
    );
    prop::collection::vec(buffer, 1..=max_buffers).prop_map(|specs| {
        let mut buffers: Vec<Buffer> = Vec::new();
        let mut plan: Vec<u64> = Vec::new();
        for (i, ((start, length, zero_roll, size, alignment), (gap_roll, cuts, low, span), (pin_roll, at))) in
            specs.into_iter().enumerate()
        {
            let end = start + length;
            let size = if zero_roll == 0 { 0 } else { size };
            let mut points: Vec<u64> = cuts.iter().map(|c| start + c % (length + 1)).collect();
            points.sort_unstable();
            points.dedup();
            let gaps = match gap_roll {
                // Plain gaps between cut points.
                0..=2 => points.chunks_exact(2).map(|pair| Gap::new(pair[0], pair[1])).collect(),
                // Windowed gaps (plain when there are no bytes to window).
                3..=4 => points
                    .chunks_exact(2)
                    .map(|pair| {
                        if size == 0 {
                            return Gap::new(pair[0], pair[1]);
                        }
                        let lower = low % size;
                        Gap::windowed(pair[0], pair[1], lower, lower + 1 + span % (size - lower))
                    })
                    .collect(),
                // Never alive: gaps over the whole lifetime, cut in two at an inner point sometimes.
                5 => match points.iter().find(|&&p| start < p && p < end) {
                    Some(&cut) if low % 2 == 0 => vec![Gap::new(start, cut), Gap::new(cut, end)],
                    _ => vec![Gap::new(start, end)],
                },
                _ => Vec::new(),
            };
            let mut buffer = Buffer::new(format!("b{i}"), start, end, size).with_alignment(alignment).with_gaps(gaps);
            let mut offset = at.div_ceil(alignment) * alignment;
            while buffers.iter().zip(&plan).any(|(other, &o)| naive_conflict(other, o, &buffer, offset)) {
                offset += alignment;
            }
            match pin_roll {
                0..=4 => buffer.pinned = Some(offset),
                5 => buffer.pinned = Some(at.div_ceil(alignment) * alignment),
                _ => {}
            }
            plan.push(offset);
            buffers.push(buffer);
        }
        Problem::new(buffers, None).expect("generated buffers are valid")
    })
}

/// Everything `outcome` states that is false, given the instance's true optimum (`None` when no
/// plan exists at all): what the validator finds, what the definition finds wrong with the plan,
/// a plan below the optimum (the oracle itself would be wrong), an optimality claim off the
/// optimum, a lower bound above it, a proof of infeasibility at a capacity the optimum fits in, or
/// a plan said to fit a capacity it passes. Empty when every claim holds.
pub fn false_claims(problem: &Problem, outcome: &Outcome, optimum: Option<u64>) -> Vec<String> {
    let mut wrong = Vec::new();
    let report = validate::validate_outcome(problem, outcome);
    if !report.is_valid() {
        wrong.push(format!("the validator refuses it: {}", report.describe(problem).replace('\n', "; ")));
    }
    let capacity = outcome.capacity;
    if let Some(plan) = &outcome.plan {
        let fits = outcome.stopped == Stopped::Fits;
        let errors = naive_plan_errors(problem, &plan.offsets, capacity.filter(|_| fits));
        if !errors.is_empty() {
            wrong.push(format!("invalid plan: {}", errors.join("; ")));
        }
        let makespan = naive_makespan(problem, &plan.offsets);
        if plan.makespan != makespan {
            wrong.push(format!("states makespan {} for a plan of {makespan}", plan.makespan));
        }
        match optimum {
            None if errors.is_empty() => wrong.push(format!("a valid plan of {makespan} where the oracle has none")),
            Some(optimum) if errors.is_empty() && makespan < optimum => {
                wrong.push(format!("a valid plan of {makespan} below the oracle's optimum {optimum}"))
            }
            Some(optimum) if outcome.stopped.is_optimal() && makespan != optimum => {
                wrong.push(format!("{:?} at {makespan}, but the optimum is {optimum}", outcome.stopped))
            }
            _ => {}
        }
    } else if outcome.stopped.is_optimal() || outcome.stopped == Stopped::Fits {
        wrong.push(format!("{:?} without a plan", outcome.stopped));
    }
    if let Some(optimum) = optimum {
        if outcome.lower_bound > optimum {
            wrong.push(format!("lower bound {} above the optimum {optimum}", outcome.lower_bound));
        }
        if outcome.stopped == Stopped::Infeasible && capacity.is_none_or(|capacity| optimum <= capacity) {
            wrong.push(format!("infeasible at capacity {capacity:?}, but the optimum {optimum} fits"));
        }
    }
    wrong
}

/// The instance in memplan's CSV (`id,lower,upper,size,alignment,offset,gaps`), pinned offsets in
/// the `offset` column: to paste into `memplan solve` when a test fails.
pub fn to_csv(problem: &Problem) -> String {
    let mut csv = String::from("id,lower,upper,size,alignment,offset,gaps\n");
    for b in problem.buffers() {
        let gaps: Vec<String> = b
            .gaps
            .iter()
            .map(|g| match g.window {
                None => format!("{}-{}", g.start, g.end),
                Some(w) => format!("{}-{}@{}:{}", g.start, g.end, w.lower, w.upper),
            })
            .collect();
        let pinned = b.pinned.map(|p| p.to_string()).unwrap_or_default();
        csv.push_str(&format!(
            "{},{},{},{},{},{},{}\n",
            b.id,
            b.start,
            b.end,
            b.size,
            b.alignment(),
            pinned,
            gaps.join(" ")
        ));
    }
    csv
}

/// One run checked against the truth: the solver (or `auto` through the run, with its effort),
/// the capacity it was given, what it claimed and every claim that is false ([`false_claims`]).
#[derive(Clone, Debug)]
pub struct Checked {
    pub solver: String,
    pub capacity: Option<u64>,
    pub stopped: Stopped,
    /// Its lower bound passed the instance's own (a bound the solver proved itself).
    pub proved_bound: bool,
    pub wrong: Vec<String>,
}

impl std::fmt::Display for Checked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} at capacity {:?}: {}", self.solver, self.capacity, self.wrong.join("; "))
    }
}

/// Runs every solver ([`every_planner`], skipping those that decline the instance) and `auto`
/// through [`memplan::run::solve`] at low and normal effort, without a capacity, at the optimum
/// and one below it (only without one when no plan exists), each with `options` otherwise, and
/// checks every outcome against the true `optimum`.
pub fn check_every_solver(problem: &Problem, optimum: Option<u64>, options: &memplan::SolveOptions) -> Vec<Checked> {
    let mut capacities = vec![None];
    if let Some(optimum) = optimum {
        capacities.push(Some(optimum));
        capacities.extend(optimum.checked_sub(1).map(Some));
    }
    let mut checked = Vec::new();
    let mut check = |solver: &str, capacity: Option<u64>, result: Result<Outcome, memplan::SolveError>| {
        let (stopped, proved_bound, wrong) = match result {
            Ok(outcome) => {
                (outcome.stopped, outcome.lower_bound > problem.lower_bound(), false_claims(problem, &outcome, optimum))
            }
            Err(e) => (Stopped::Completed, false, vec![format!("refused: {e}")]),
        };
        checked.push(Checked { solver: solver.to_string(), capacity, stopped, proved_bound, wrong });
    };
    for capacity in capacities {
        let options = memplan::SolveOptions { capacity, ..options.clone() };
        for solver in every_planner() {
            if declines(solver.as_ref(), problem) {
                continue;
            }
            match solver.solve(problem, &options) {
                Err(memplan::SolveError::Unsupported(_)) => {}
                result => check(solver.name(), capacity, result),
            }
        }
        for effort in [memplan::Effort::Low, memplan::Effort::Normal] {
            let name = format!("auto (run, effort {})", effort.name());
            let result = memplan::run::solve(problem, "auto", &memplan::SolveOptions { effort, ..options.clone() });
            check(&name, capacity, result.map(|run| run.outcome));
        }
    }
    checked
}

/// The runs of [`check_every_solver`] with a false claim.
pub fn false_claims_of_every_solver(
    problem: &Problem,
    optimum: Option<u64>,
    options: &memplan::SolveOptions,
) -> Vec<Checked> {
    check_every_solver(problem, optimum, options).into_iter().filter(|c| !c.wrong.is_empty()).collect()
}

/// A problem of `(start, length, size, alignment)` buffers, named by index.
pub fn problem_of(specs: Vec<(u64, u64, u64, u64)>) -> Problem {
    let buffers = specs
        .into_iter()
        .enumerate()
        .map(|(i, (start, length, size, alignment))| {
            Buffer::new(format!("b{i}"), start, start + length, size).with_alignment(alignment)
        })
        .collect();
    Problem::new(buffers, None).expect("generated buffers are valid")
}

/// Tiny instances shaped like the generated ones: few buffers, alignments up to 32 and sizes that
/// are mostly not multiples of them, lifetimes that overlap a lot.
pub fn tiny_aligned(max_buffers: usize) -> impl Strategy<Value = Problem> {
    let buffer = (0u64..8, 1u64..6, 1u64..=40, prop::sample::select(vec![1u64, 2, 4, 8, 16, 32]));
    prop::collection::vec(buffer, 1..=max_buffers).prop_map(problem_of)
}

/// One row of the recorded optima.
pub struct Recorded {
    pub instance: String,
    pub seed: Option<u64>,
    pub buffers: usize,
    /// CP-SAT proved `makespan` optimal (else it is only the best it found, above `bound`).
    pub proven: bool,
    pub makespan: u64,
    pub bound: u64,
}

/// The optima CP-SAT recorded for the aligned set (`tests/fixtures/aligned/optima.csv`).
pub fn recorded() -> Vec<Recorded> {
    let text = include_str!("../fixtures/aligned/optima.csv");
    table_rows(text, "instance,buffers,seed,status,makespan,bound,seconds")
        .into_iter()
        .map(|cells| Recorded {
            instance: cells[0].to_string(),
            buffers: cells[1].parse().unwrap(),
            seed: (!cells[2].is_empty()).then(|| cells[2].parse().unwrap()),
            proven: cells[3] == "OPTIMAL",
            makespan: cells[4].parse().unwrap(),
            bound: cells[5].parse().unwrap(),
        })
        .collect()
}

/// The instance of a recorded row: generated from its seed, or read from the set's folder.
pub fn instance(row: &Recorded) -> Problem {
    match row.seed {
        Some(seed) => memplan::generate::aligned(row.buffers, seed),
        None => read_problem(&format!("tests/fixtures/aligned/{}", row.instance)),
    }
}

/// The instance in a file of the repository, `path` relative to the crate's folder (e.g.
/// `tests/fixtures/budgets/X.csv`, `../public/examples/...`), read with the default options.
/// A missing or unreadable file fails the test naming the file.
pub fn read_problem(path: &str) -> Problem {
    let file = format!("{}/{path}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{file}: {e}"));
    memplan::format::read(&text, &memplan::format::ReadOptions::default())
        .unwrap_or_else(|e| panic!("{file}: {e}"))
        .problem
}

/// The rows of a small CSV table the tests keep beside their fixtures, after checking its header.
pub fn table_rows<'a>(text: &'a str, header: &str) -> Vec<Vec<&'a str>> {
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some(header), "the table's header");
    lines.map(|line| line.split(',').collect()).collect()
}

/// [`instances`] of up to five buffers, half the time without pinned ones, with one to three more alive
/// from the first start to the last end: most of a size that stacks (a multiple of every
/// alignment), some not.
pub fn with_spanning() -> impl Strategy<Value = Problem> {
    let extra = prop::collection::vec((1u64..5, 0u8..4), 1..=3);
    (instances(5, 16), extra, any::<bool>()).prop_map(|(problem, extra, keep_pins)| {
        let mut buffers: Vec<Buffer> =
            problem.buffers().iter().map(|b| b.clone().with_pin(if keep_pins { b.pinned } else { None })).collect();
        let first = buffers.iter().map(|b| b.start).min().unwrap();
        let last = buffers.iter().map(|b| b.end).max().unwrap();
        let unit = buffers.iter().map(|b| b.alignment()).max().unwrap(); // powers of two: their lcm
        for (k, (units, odd)) in extra.into_iter().enumerate() {
            let size = units * unit + u64::from(odd == 0);
            buffers.push(Buffer::new(format!("s{k}"), first, last, size));
        }
        Problem::new(buffers, None).unwrap()
    })
}

/// A seeded pseudo-random sequence (Knuth's MMIX linear congruential generator) for tests that
/// draw many random ranges and want the same ones every run, without proptest's machinery.
pub struct Lcg(u64);

impl Lcg {
    pub fn new(seed: u64) -> Lcg {
        Lcg(seed)
    }

    /// The next state; its high bits are the random ones.
    pub fn step(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        self.0
    }

    /// A value in `0..bound` (`bound` > 0).
    pub fn below(&mut self, bound: u64) -> u64 {
        (self.step() >> 33) % bound
    }
}
