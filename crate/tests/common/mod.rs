//! Test helpers shared by the integration tests: random instances, naive placement rules and a
//! brute-force optimum. Everything here is written the slow, obvious way on purpose.
#![allow(dead_code)]

use memplan::solvers::Solver;
use memplan::solvers::greedy::{Fit, Greedy, Order, Run};
use memplan::solvers::minimalloc::{MiniMalloc, Rules, Settings};
use memplan::{Buffer, Gap, Outcome, Plan, Problem, validate};
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
    let top = align(gaps.last().unwrap().0, b.alignment);
    let fitting = gaps.iter().filter_map(|&(low, high)| {
        let offset = align(low, b.alignment);
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
pub fn every_planner() -> Vec<Box<dyn Solver>> {
    let mut all = memplan::run::registry::all();
    for order in Order::ALL {
        for fit in Fit::ALL {
            all.push(Box::new(Greedy::combination(Run::new(order, fit))));
        }
    }
    all
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
