//! `peak` (the stretch around the heaviest moment solved exactly, the rest greedily) against the
//! validator and a brute-force oracle: every plan valid and never below what its stretch needs, the
//! bound it proves never above the optimum; alignment and pinned buffers declined; one plan per
//! seed. (The stretch itself is tested beside it, in `solvers/peak/tests.rs`; `auto` never above
//! it in `run/tests.rs`.)

mod common;

use common::{brute_force_optimum, checked, instances};
use memplan::StatValue;
use memplan::generate::{TraceSpec, trace};
use memplan::solvers::Solver;
use memplan::solvers::peak::Peak;
use memplan::{Buffer, Outcome, Params, Problem, SolveError, SolveOptions, run};
use proptest::prelude::*;

/// [`instances`] without alignment or pinned buffers (what `peak` takes).
fn plain(max_buffers: usize, max_size: u64) -> impl Strategy<Value = Problem> {
    instances(max_buffers, max_size).prop_map(|problem| {
        let buffers = problem.buffers().iter().map(|b| Buffer::new(b.id.clone(), b.start, b.end, b.size)).collect();
        Problem::new(buffers, None).unwrap()
    })
}

fn solve(problem: &Problem, window: u64) -> Outcome {
    let options = SolveOptions { params: Params::new().with("window", window.to_string()), ..SolveOptions::default() };
    let run = run::solve(problem, "peak", &options).unwrap();
    assert!(run.is_valid(), "{}", run.violations.join("\n"));
    run.outcome
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Valid plans whatever the stretch, each at least as high as the stretch's own plan (its
    /// buffers keep their offsets from it).
    #[test]
    fn plans_are_valid_and_hold_the_stretch(problem in plain(40, 60), window in 1u64..12) {
        let outcome = solve(&problem, window);
        let plan = checked(&problem, &outcome);
        let Some(StatValue::Count(stretch)) = outcome.stats.get("stretch_makespan").cloned() else {
            panic!("no stretch_makespan in {:?}", outcome.stats)
        };
        prop_assert!(plan.makespan >= stretch);
    }

    /// What the stretches' searches prove is a lower bound of the whole (each stretch is a
    /// relaxation): never above the brute-force optimum, and the plan is optimal when it meets it.
    #[test]
    fn the_proven_bound_is_a_bound(problem in plain(7, 20), window in 1u64..6) {
        let outcome = solve(&problem, window);
        let optimum = brute_force_optimum(&problem);
        prop_assert!(outcome.lower_bound <= optimum, "bound {} above the optimum {}", outcome.lower_bound, optimum);
        prop_assert!(outcome.lower_bound >= problem.lower_bound());
        if checked(&problem, &outcome).makespan == outcome.lower_bound {
            prop_assert!(outcome.optimal());
        }
    }
}

/// Alignment or pinned buffers are declined, as its capabilities say, with a reason: the block of
/// buffers across the stretch can hold neither.
#[test]
fn alignment_and_pinned_buffers_are_declined() {
    let aligned =
        Problem::new(vec![Buffer::new("a", 0, 2, 3).with_alignment(4), Buffer::new("b", 1, 3, 2)], None).unwrap();
    let pinned = Problem::new(vec![Buffer::new("a", 0, 2, 3).pinned_at(5), Buffer::new("b", 1, 3, 2)], None).unwrap();
    let capabilities = Peak.capabilities();
    assert!(!capabilities.alignment && !capabilities.pinned);
    for problem in [aligned, pinned] {
        match Peak.solve(&problem, &SolveOptions::default()) {
            Err(SolveError::Unsupported(why)) => assert!(why.contains("alignment or pinned"), "{why}"),
            other => panic!("not declined: {other:?}"),
        }
    }
}

#[test]
fn a_seed_gives_the_same_plan_on_a_generated_trace() {
    let problem = trace(TraceSpec::new(3_000, 11));
    let first = solve(&problem, 200);
    let second = solve(&problem, 200);
    assert_eq!(checked(&problem, &first).offsets, checked(&problem, &second).offsets);
    assert!(first.stats.contains_key("stretch"), "{:?}", first.stats);
}
