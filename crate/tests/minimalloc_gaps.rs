//! The exact solver on buffers with gaps: what it proves must hold for the live pieces, not for
//! the hulls. Buffers never alive, pinned buffers whose hulls overlap while their pieces do not,
//! and the spanning reduction next to such buffers, each checked against the brute-force optimum.

mod common;

use common::{brute_force_optimum, checked, instances_with_gaps};
use memplan::solvers::Solver;
use memplan::solvers::minimalloc::{MiniMalloc, Rules, Settings};
use memplan::{Buffer, Gap, Problem, SolveOptions, Stopped};
use proptest::prelude::*;

fn problem(buffers: Vec<Buffer>) -> Problem {
    Problem::new(buffers, None).unwrap()
}

/// Whether the exact solver fits `capacity`, after the validator accepted the outcome; panics
/// when it answers anything but a plan or a proof.
fn fits(solver: &MiniMalloc, problem: &Problem, capacity: u64) -> bool {
    let options = SolveOptions { capacity: Some(capacity), ..SolveOptions::default() };
    let outcome = solver.solve(problem, &options).unwrap();
    match outcome.stopped {
        Stopped::Infeasible => {
            // A plan may come with the proof (buffers that occupy nothing are placed apart, and
            // their sizes alone can pass the capacity), but never one within the capacity.
            let over = outcome.plan.as_ref().is_none_or(|plan| plan.makespan > capacity);
            assert!(over && outcome.lower_bound > capacity, "{outcome:?}");
            false
        }
        Stopped::Fits | Stopped::LowerBound | Stopped::Optimal => {
            assert!(checked(problem, &outcome).makespan <= capacity);
            true
        }
        other => panic!("no limit: the answer is a proof, not {other:?}"),
    }
}

/// The optimum, minimised and proven, after the validator accepted the outcome.
fn minimised(solver: &MiniMalloc, problem: &Problem) -> u64 {
    let outcome = solver.solve(problem, &SolveOptions::default()).unwrap();
    let makespan = checked(problem, &outcome).makespan;
    assert!(outcome.optimal(), "{outcome:?}");
    makespan
}

/// A buffer whose gap covers its whole lifetime occupies nothing but still counts in the makespan:
/// next to a buffer alive throughout, both go at 0 (4 bytes), not one above the other.
#[test]
fn a_buffer_never_alive_is_not_lifted_above_the_spanning_stack() {
    let never = problem(vec![Buffer::new("a", 0, 10, 4).with_gaps(vec![Gap::new(0, 10)]), Buffer::new("b", 0, 10, 4)]);
    assert_eq!(brute_force_optimum(&never), 4);
    let solver = MiniMalloc::default();
    assert_eq!(minimised(&solver, &never), 4);
    assert!(fits(&solver, &never, 4));
    assert!(!fits(&solver, &never, 3));
}

/// Pinned at 41 and 89, x and y overlap in bytes over [89, 96) and their hulls in time, but x is
/// away in [9, 10) and y in [7, 9): they are never alive together, and the pins are a plan (100).
/// (The quick refutation's view of the same pins is tested beside it, in `minimalloc/feasibility`.)
#[test]
fn pinned_buffers_apart_in_their_live_pieces_are_a_plan() {
    let pins = problem(vec![
        Buffer::new("x", 7, 10, 59).pinned_at(41).with_gaps(vec![Gap::new(9, 10)]),
        Buffer::new("y", 7, 10, 7).pinned_at(89).with_gaps(vec![Gap::new(7, 9)]),
    ]);
    let solver = MiniMalloc::default();
    assert_eq!(minimised(&solver, &pins), 100);
    assert!(fits(&solver, &pins, 100));
    assert!(!fits(&solver, &pins, 99));
}

/// Up to four buffers with plain gaps (some never alive) beside one to two alive throughout: the
/// exact solver, with the spanning reduction and without, decides and minimises as the brute force.
fn with_spanning_and_gaps() -> impl Strategy<Value = Problem> {
    let extra = prop::collection::vec(1u64..12, 1..=2);
    let never = prop::collection::vec(any::<bool>(), 4);
    (instances_with_gaps(4, 12, false), extra, never).prop_map(|(problem, extra, never)| {
        let mut buffers: Vec<Buffer> = problem
            .buffers()
            .iter()
            .zip(never)
            .map(|(b, never)| {
                let mut b = b.clone().with_alignment(1).with_pin(None);
                if never {
                    b.gaps = vec![Gap::new(b.start, b.end)];
                }
                b
            })
            .collect();
        let first = buffers.iter().map(|b| b.start).min().unwrap();
        let last = buffers.iter().map(|b| b.end).max().unwrap();
        for (k, size) in extra.into_iter().enumerate() {
            buffers.push(Buffer::new(format!("s{k}"), first, last, size));
        }
        Problem::new(buffers, None).unwrap()
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn spanning_beside_gaps_agrees_with_brute_force(problem in with_spanning_and_gaps(), below in 0u64..3) {
        let optimum = brute_force_optimum(&problem);
        let off = MiniMalloc::new(Settings { rules: Rules { spanning: false, ..Rules::default() }, ..Settings::default() });
        for solver in [MiniMalloc::default(), off] {
            prop_assert!(fits(&solver, &problem, optimum), "the optimum {} was refuted", optimum);
            if optimum > below + 1 {
                let capacity = optimum - 1 - below;
                prop_assert!(!fits(&solver, &problem, capacity), "fits {} below the optimum {}", capacity, optimum);
            }
            prop_assert_eq!(minimised(&solver, &problem), optimum);
        }
    }
}
