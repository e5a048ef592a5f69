//! Pinned buffers with gaps and windows, and buffers that occupy nothing, on every planner:
//! whatever a planner plans (hulls, or the problem itself), a pinned buffer is
//! only where its live pieces are, so pins whose hulls meet but whose pieces do not determine a
//! plan, never a proof of infeasibility. Claims are checked against a brute force of this file's
//! own that honours windows (the shared one places whole buffers).

mod common;

use common::{declines, every_planner};
use memplan::{Buffer, Gap, Problem, SolveOptions, Stopped};
use proptest::prelude::*;

fn options_for(solver: &dyn memplan::Solver, capacity: Option<u64>) -> SolveOptions {
    let mut options = SolveOptions { capacity, ..SolveOptions::default() };
    if solver.capabilities().minimise {
        options.params = memplan::Params::new().with("budget", "20000");
    }
    options
}

/// Two pinned buffers over [7, 10): x is gone at 9, y until 9, so they never live together though
/// their hulls overlap in bytes 89..96. The pins are the plan, at makespan 100.
fn crossing_pins() -> Problem {
    let x = Buffer::new("x", 7, 10, 59).pinned_at(41).with_gaps(vec![Gap::new(9, 10)]);
    let y = Buffer::new("y", 7, 10, 7).pinned_at(89).with_gaps(vec![Gap::new(7, 9)]);
    Problem::new(vec![x, y], None).unwrap()
}

#[test]
fn pins_whose_hulls_meet_are_planned_not_refuted() {
    let problem = crossing_pins();
    for solver in every_planner() {
        if declines(solver.as_ref(), &problem) {
            continue;
        }
        for capacity in [None, Some(100)] {
            let outcome = solver.solve(&problem, &options_for(solver.as_ref(), capacity)).unwrap();
            assert_ne!(outcome.stopped, Stopped::Infeasible, "{}: {:?}", solver.name(), outcome.detail);
            let report = memplan::validate::validate_outcome(&problem, &outcome);
            assert!(report.is_valid(), "{}: {}", solver.name(), report.describe(&problem));
            assert_eq!(outcome.makespan(), Some(100), "{}: {:?}", solver.name(), outcome.detail);
            assert_eq!(outcome.offsets(), &[41, 89]);
        }
    }
}

/// Pins whose live pieces do meet have no plan: a planner that says so is right, and none
/// returns one.
#[test]
fn pins_whose_pieces_meet_have_no_plan() {
    let x = Buffer::new("x", 0, 10, 8).pinned_at(0).with_gaps(vec![Gap::new(2, 4)]);
    let y = Buffer::new("y", 5, 12, 8).pinned_at(4);
    let problem = Problem::new(vec![x, y], None).unwrap();
    for solver in every_planner() {
        if declines(solver.as_ref(), &problem) {
            continue;
        }
        let outcome = solver.solve(&problem, &options_for(solver.as_ref(), None)).unwrap();
        assert!(outcome.plan.is_none(), "{}: {:?}", solver.name(), outcome.offsets());
    }
    let outcome = memplan::run::solve(&problem, "slff", &SolveOptions::default()).unwrap().outcome;
    assert_eq!(outcome.stopped, Stopped::Infeasible);
    assert!(outcome.detail.as_deref().is_some_and(|d| d.contains("x (live piece 2)")), "{:?}", outcome.detail);
}

/// With an unpinned buffer besides the pins, the planners that plan hulls put it clear of the
/// pins' pieces (here in the hole the two pins leave at [7, 9) above 100).
#[test]
fn an_unpinned_buffer_goes_around_pinned_pieces() {
    let x = Buffer::new("x", 0, 10, 8).pinned_at(0).with_gaps(vec![Gap::new(4, 10)]);
    let y = Buffer::new("y", 0, 10, 8).pinned_at(4).with_gaps(vec![Gap::new(0, 6)]);
    let z = Buffer::new("z", 0, 10, 4);
    let problem = Problem::new(vec![x, y, z], None).unwrap();
    for solver in every_planner() {
        if declines(solver.as_ref(), &problem) {
            continue;
        }
        let outcome = solver.solve(&problem, &options_for(solver.as_ref(), None)).unwrap();
        let report = memplan::validate::validate_outcome(&problem, &outcome);
        assert!(report.is_valid(), "{}: {}", solver.name(), report.describe(&problem));
        assert!(outcome.plan.is_some(), "{}: {:?} {:?}", solver.name(), outcome.stopped, outcome.detail);
    }
}

/// The lowest makespan of `problem` by trying every offset of each unpinned buffer (multiples of
/// its alignment up to `limit`), the validator judging each full plan; `None` when none is valid.
fn brute_force(problem: &Problem) -> Option<u64> {
    let buffers = problem.buffers();
    let limit: u64 = buffers.iter().map(|b| b.size + b.alignment()).sum::<u64>()
        + buffers.iter().filter_map(|b| b.pinned.map(|p| p + b.size)).max().unwrap_or(0);
    let free: Vec<usize> = (0..buffers.len()).filter(|&i| buffers[i].pinned.is_none()).collect();
    let mut offsets: Vec<u64> = buffers.iter().map(|b| b.pinned.unwrap_or(0)).collect();
    let mut best = None;
    fn visit(problem: &Problem, free: &[usize], limit: u64, offsets: &mut Vec<u64>, best: &mut Option<u64>) {
        let Some((&i, rest)) = free.split_first() else {
            if memplan::validate::validate(problem, offsets, None).is_valid() {
                let makespan = memplan::metrics::makespan(problem.buffers(), offsets);
                *best = Some(best.map_or(makespan, |b: u64| b.min(makespan)));
            }
            return;
        };
        let buffer = &problem.buffers()[i];
        let mut offset = 0;
        while offset <= limit && best.is_none_or(|b| offset + buffer.size < b) {
            offsets[i] = offset;
            visit(problem, rest, limit, offsets, best);
            offset += buffer.alignment();
        }
    }
    visit(problem, &free, limit, &mut offsets, &mut best);
    best
}

/// Tiny instances with pins, plain and windowed gaps (some over the whole lifetime), alignment and
/// zero sizes. Pins are drawn freely: some instances have no plan at all.
fn tiny() -> impl Strategy<Value = Problem> {
    let buffer = (
        0u64..5,
        1u64..4,
        0u64..5,
        prop::sample::select(vec![1u64, 2, 4]),
        prop::option::weighted(0.5, 0u64..10),
        prop::option::of((0u64..3, 1u64..4, prop::option::of((0u64..4, 1u64..4)))),
    );
    prop::collection::vec(buffer, 1..5).prop_filter_map("a valid problem", |specs| {
        let buffers = specs
            .into_iter()
            .enumerate()
            .map(|(k, (start, length, size, alignment, pin, gap))| {
                let mut b = Buffer::new(k.to_string(), start, start + length, size).with_alignment(alignment);
                if let Some(pin) = pin {
                    b = b.pinned_at(pin * alignment);
                }
                if let Some((from, gap_length, window)) = gap {
                    let (gs, ge) = (start + from.min(length - 1), (start + from + gap_length).min(start + length));
                    let gap = match window {
                        Some((lower, height)) if lower + height <= size => Gap::windowed(gs, ge, lower, lower + height),
                        _ => Gap::new(gs, ge),
                    };
                    b = b.with_gaps(vec![gap]);
                }
                b
            })
            .collect();
        Problem::new(buffers, None).ok()
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// Every claim of every planner here (a bound, optimality, infeasibility, a fit) holds against
    /// the brute force, with no capacity, at the optimum and one byte below it.
    #[test]
    fn claims_hold_against_a_brute_force(problem in tiny()) {
        let optimum = brute_force(&problem);
        prop_assert!(optimum.is_none_or(|o| problem.lower_bound() <= o), "the instance's bound passes the optimum");
        let capacities = match optimum {
            Some(o) => vec![None, Some(o), o.checked_sub(1)],
            None => vec![None],
        };
        for solver in every_planner() {
            if declines(solver.as_ref(), &problem) {
                continue;
            }
            for &capacity in &capacities {
                let outcome = solver.solve(&problem, &options_for(solver.as_ref(), capacity)).unwrap();
                let name = solver.name();
                let report = memplan::validate::validate_outcome(&problem, &outcome);
                prop_assert!(report.is_valid(), "{}: {}", name, report.describe(&problem));
                match optimum {
                    Some(optimum) => {
                        prop_assert!(outcome.lower_bound <= optimum, "{}: bound {} above the optimum {}", name, outcome.lower_bound, optimum);
                        if outcome.optimal() {
                            prop_assert_eq!(outcome.makespan(), Some(optimum), "{} claims optimality", name);
                        }
                        if outcome.stopped == Stopped::Infeasible {
                            prop_assert!(capacity.is_some_and(|c| c < optimum), "{}: infeasible at {:?}, optimum {}", name, capacity, optimum);
                        }
                    }
                    None => prop_assert!(outcome.plan.is_none(), "{}: a plan where none is valid", name),
                }
            }
        }
    }
}
