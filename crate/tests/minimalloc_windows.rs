//! The exact solver on windowed gaps (a buffer occupies only bytes `[offset + lower, offset +
//! upper)` of itself during such a gap): it plans and proves them. Checked against an exhaustive
//! oracle written here, the slow obvious way: every integer offset of every buffer, with the
//! occupied bytes worked out time step by time step.

mod common;

use common::{checked, rule_sets, with_rules};
use memplan::solvers::Solver;
use memplan::solvers::minimalloc::MiniMalloc;
use memplan::{Buffer, Gap, Problem, SolveOptions, Stopped};
use proptest::prelude::*;

/// The bytes `[low, high)` above its offset that `b` occupies at integer time `t`, if any.
fn occupied(b: &Buffer, t: u64) -> Option<(u64, u64)> {
    if t < b.start || t >= b.end || b.size == 0 {
        return None;
    }
    match b.gaps.iter().find(|g| g.start <= t && t < g.end) {
        None => Some((0, b.size)),
        Some(gap) => gap.window.map(|w| (w.lower, w.upper)),
    }
}

/// Whether `a` at `x` and `b` at `y` share a byte at some integer time.
fn clash(a: &Buffer, x: u64, b: &Buffer, y: u64) -> bool {
    (a.start.max(b.start)..a.end.min(b.end)).any(|t| match (occupied(a, t), occupied(b, t)) {
        (Some((al, ah)), Some((bl, bh))) => x + al < y + bh && y + bl < x + ah,
        _ => false,
    })
}

/// The least makespan of a plan within `capacity` (every offset from 0 to a height no plan needs
/// to pass, aligned, pinned buffers at theirs), or `None` when there is none.
fn exhaustive_optimum(problem: &Problem, capacity: Option<u64>) -> Option<u64> {
    let buffers = problem.buffers();
    let pinned_top = buffers.iter().filter_map(|b| b.pinned.map(|o| o + b.size)).max().unwrap_or(0);
    // Everything unpinned stacked above the pins, each padded to its alignment, is a plan.
    let stacked: u64 = buffers.iter().filter(|b| b.pinned.is_none()).map(|b| b.size + b.alignment() - 1).sum();
    let ceiling = capacity.unwrap_or(pinned_top + stacked);
    let mut offsets = vec![0u64; buffers.len()];
    let mut best = None;
    dfs(buffers, 0, ceiling, &mut offsets, &mut best);
    best
}

fn dfs(buffers: &[Buffer], k: usize, ceiling: u64, offsets: &mut Vec<u64>, best: &mut Option<u64>) {
    if k == buffers.len() {
        let makespan = buffers.iter().zip(offsets.iter()).map(|(b, &o)| o + b.size).max().unwrap_or(0);
        if best.is_none_or(|m| makespan < m) {
            *best = Some(makespan);
        }
        return;
    }
    let b = &buffers[k];
    let choices: Vec<u64> = match b.pinned {
        Some(o) => vec![o],
        None => (0..=ceiling.saturating_sub(b.size)).filter(|o| o % b.alignment() == 0).collect(),
    };
    for o in choices {
        let top = o + b.size;
        // A top at the best makespan already cannot lead to a lower one.
        if top > ceiling || best.is_some_and(|m| top >= m) {
            continue;
        }
        if (0..k).any(|j| clash(b, o, &buffers[j], offsets[j])) {
            continue;
        }
        offsets[k] = o;
        dfs(buffers, k + 1, ceiling, offsets, best);
    }
}

/// Feasibility at `capacity`, after the validator accepted the outcome: a plan within it, or a
/// proof (whose bound must not pass `optimum`, the true least makespan, when there is one).
fn fits(solver: &MiniMalloc, problem: &Problem, capacity: u64, optimum: Option<u64>) -> bool {
    let options = SolveOptions { capacity: Some(capacity), ..SolveOptions::default() };
    let outcome = solver.solve(problem, &options).unwrap();
    match outcome.stopped {
        Stopped::Infeasible => {
            // A plan may come with the proof (pinned buffers and buffers that occupy nothing are
            // placed apart, and their tops alone can pass the capacity), never one within it.
            let over = outcome.plan.as_ref().is_none_or(|plan| plan.makespan > capacity);
            assert!(over && outcome.lower_bound > capacity, "{outcome:?}");
            if let Some(optimum) = optimum {
                assert!(
                    outcome.lower_bound <= optimum,
                    "refuted up to {} past the optimum {optimum}",
                    outcome.lower_bound
                );
            }
            false
        }
        Stopped::Fits | Stopped::LowerBound | Stopped::Optimal => {
            assert!(checked(problem, &outcome).makespan <= capacity);
            true
        }
        other => panic!("no limit: the answer is a proof, not {other:?}"),
    }
}

fn issue_repro() -> Problem {
    Problem::new(
        vec![
            Buffer::new("0", 0, 10, 100).with_gaps(vec![Gap::new(3, 7)]),
            Buffer::new("1", 3, 7, 100),
            Buffer::new("2", 0, 10, 50).with_gaps(vec![Gap::windowed(2, 8, 0, 10)]),
            Buffer::new("3", 2, 8, 40),
        ],
        None,
    )
    .unwrap()
}

/// Buffer 2 keeps only its first 10 bytes in [2, 8), so 3 fits above them beside 1, at 150; with
/// the window counted alive the best is 190.
#[test]
fn windows_are_planned_and_proven() {
    let problem = issue_repro();
    assert_eq!(exhaustive_optimum(&problem, None), Some(150));
    let solver = MiniMalloc::default();
    let outcome = solver.solve(&problem, &SolveOptions::default()).unwrap();
    assert_eq!(checked(&problem, &outcome).makespan, 150);
    assert!(outcome.optimal(), "{outcome:?}");
    assert!(fits(&solver, &problem, 150, Some(150)));
    assert!(!fits(&solver, &problem, 149, Some(150)));
}

/// Small instances with windowed and plain gaps, alignments and pins (which may clash).
fn windowed_instances() -> impl Strategy<Value = Problem> {
    let gap = (0u64..8, 1u64..8, prop::option::of((0u64..8, 1u64..8)));
    let buffer = (
        0u64..8,
        1u64..8,
        1u64..=8,
        prop::sample::select(vec![1u64, 1, 1, 2, 4]),
        prop::option::of(0u64..16),
        prop::option::of(gap),
    );
    prop::collection::vec(buffer, 1..=5).prop_map(|specs| {
        let buffers = specs
            .into_iter()
            .enumerate()
            .map(|(i, (start, length, size, alignment, pin, gap))| {
                let mut b = Buffer::new(format!("b{i}"), start, start + length, size).with_alignment(alignment);
                // Pins are rarer than the others: one in three of those drawn.
                if let Some(at) = pin.filter(|at| at % 3 == 0) {
                    b = b.pinned_at(at / alignment * alignment);
                }
                if let Some((from, span, window)) = gap {
                    let from = start + from % length;
                    let to = (from + span).min(start + length);
                    let gap = match window {
                        Some((lower, extent)) => {
                            let lower = lower % size;
                            Gap::windowed(from, to, lower, lower + 1 + extent % (size - lower))
                        }
                        None => Gap::new(from, to),
                    };
                    b = b.with_gaps(vec![gap]);
                }
                b
            })
            .collect();
        Problem::new(buffers, None).unwrap()
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// Minimised to the exhaustive optimum and proven; decided at the optimum and below it; and
    /// no proof past what holds (clashing pins included).
    #[test]
    fn windows_agree_with_the_exhaustive_oracle(problem in windowed_instances(), below in 0u64..3) {
        let optimum = exhaustive_optimum(&problem, None);
        let solver = MiniMalloc::default();
        let outcome = solver.solve(&problem, &SolveOptions::default()).unwrap();
        match optimum {
            None => prop_assert_eq!(outcome.stopped, Stopped::Infeasible),
            Some(optimum) => {
                prop_assert_eq!(checked(&problem, &outcome).makespan, optimum);
                prop_assert!(outcome.optimal(), "{:?}", outcome);
                prop_assert_eq!(outcome.lower_bound, optimum);
                prop_assert!(fits(&solver, &problem, optimum, Some(optimum)));
                if optimum > below + 1 {
                    let capacity = optimum - 1 - below;
                    prop_assert!(!fits(&solver, &problem, capacity, Some(optimum)), "fits {} below {}", capacity, optimum);
                }
            }
        }
    }

    /// Every rule switched off in turn gives the same answers.
    #[test]
    fn rule_sets_agree_on_windows(problem in windowed_instances()) {
        let Some(optimum) = exhaustive_optimum(&problem, None) else { return Ok(()) };
        for (name, rules) in rule_sets() {
            let solver = with_rules(rules);
            prop_assert!(fits(&solver, &problem, optimum, Some(optimum)), "{}: the optimum {} was refuted", name, optimum);
            if optimum > 1 {
                prop_assert!(!fits(&solver, &problem, optimum - 1, Some(optimum)), "{}: fits below {}", name, optimum);
            }
        }
    }
}

/// The oracle itself, on a case worked by hand: a window of the lower bytes lets a second buffer
/// sit above it during the gap.
#[test]
fn the_oracle_honours_windows() {
    let a = Buffer::new("a", 0, 10, 8).with_gaps(vec![Gap::windowed(4, 8, 0, 2)]);
    let b = Buffer::new("b", 4, 8, 6);
    let problem = Problem::new(vec![a, b], None).unwrap();
    assert_eq!(exhaustive_optimum(&problem, None), Some(8));
    assert_eq!(exhaustive_optimum(&problem, Some(7)), None);
}

/// Alignments 1 and 1024 would give the search of windows 1024 candidates per touching piece:
/// the solver plans the windows as alive instead, validly, and claims no more than holds.
#[test]
fn windows_beside_far_apart_alignments_are_planned_as_alive() {
    let a = Buffer::new("a", 0, 10, 8).with_gaps(vec![Gap::windowed(4, 8, 0, 2)]);
    let b = Buffer::new("b", 4, 8, 6).with_alignment(1024);
    let c = Buffer::new("c", 0, 3, 5);
    let problem = Problem::new(vec![a, b, c], None).unwrap();
    let optimum = exhaustive_optimum(&problem, None).unwrap();
    let outcome = MiniMalloc::default().solve(&problem, &SolveOptions::default()).unwrap();
    let makespan = checked(&problem, &outcome).makespan;
    assert!(makespan >= optimum && outcome.lower_bound <= optimum, "{outcome:?}");
    assert!(!outcome.optimal() || makespan == optimum, "{outcome:?}");
    let options = SolveOptions { capacity: Some(optimum - 1), ..SolveOptions::default() };
    let outcome = MiniMalloc::default().solve(&problem, &options).unwrap();
    assert!(outcome.lower_bound <= optimum, "{outcome:?}");
}
