//! The large-neighbourhood search against the validator: every plan valid (alignment, pinned
//! buffers, gaps and windows) and never above the plan it starts from; a capacity met or not
//! claimed; a generated trace whose greedy plan it lowers; the same plan for a seed on any thread
//! count and on every run.

mod common;

use common::{checked, first_fit_in_input_order, instances, instances_with_gaps, quick_start};
use memplan::generate::{TraceSpec, trace};
use memplan::{Outcome, Params, Problem, SolveOptions, Stopped, run};
use proptest::prelude::*;
use std::sync::Arc;

fn solve(problem: &Problem, options: &SolveOptions) -> Outcome {
    let run = run::solve(problem, "lns", options).unwrap();
    assert!(run.is_valid(), "{}", run.violations.join("\n"));
    run.outcome
}

/// A small budget of work, so that a case takes milliseconds.
fn small(seed: u64) -> SolveOptions {
    SolveOptions { seed, params: Params::new().with("budget", "20000"), ..SolveOptions::default() }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Alignment and pinned buffers: valid plans, never above the greedy start.
    #[test]
    fn plans_are_valid_and_never_above_the_start(problem in instances(14, 40), seed in 0u64..4) {
        let outcome = solve(&problem, &small(seed));
        let plan = checked(&problem, &outcome);
        let start = quick_start(&problem);
        prop_assert!(plan.makespan <= start.makespan);
    }

    /// From a poor warm start: valid, never above it.
    #[test]
    fn plans_from_a_warm_start_are_never_above_it(problem in instances(14, 40), seed in 0u64..4) {
        let start = first_fit_in_input_order(&problem);
        let options = SolveOptions { start: Some(Arc::new(start.clone())), ..small(seed) };
        let outcome = solve(&problem, &options);
        prop_assert!(checked(&problem, &outcome).makespan <= start.makespan);
    }

    /// Gaps and windows: valid plans, never above the greedy start.
    #[test]
    fn plans_with_gaps_are_valid(problem in instances_with_gaps(12, 40, true), seed in 0u64..4) {
        let outcome = solve(&problem, &small(seed));
        let plan = checked(&problem, &outcome);
        let start = quick_start(&problem);
        prop_assert!(plan.makespan <= start.makespan);
    }

    /// With a capacity: a plan, valid, and `fits` exactly when it is within the capacity.
    #[test]
    fn a_capacity_is_met_or_not_claimed(problem in instances(10, 30), slack in 0u64..30) {
        let capacity = problem.lower_bound() + slack;
        let outcome = solve(&problem, &SolveOptions { capacity: Some(capacity), ..small(0) });
        let plan = checked(&problem, &outcome);
        prop_assert_eq!(outcome.stopped == Stopped::Fits || outcome.stopped == Stopped::LowerBound, plan.makespan <= capacity);
    }
}

#[test]
fn a_poor_plan_of_a_generated_trace_is_lowered() {
    let problem = trace(TraceSpec::new(2_000, 7));
    let start = first_fit_in_input_order(&problem);
    let options = SolveOptions {
        start: Some(Arc::new(start.clone())),
        params: Params::new().with("budget", "20000000"),
        ..SolveOptions::default()
    };
    let outcome = solve(&problem, &options);
    let plan = checked(&problem, &outcome);
    assert!(plan.makespan < start.makespan, "{} from {}: {:?}", plan.makespan, start.makespan, outcome.stats);
    assert_eq!(outcome.stopped, Stopped::Budget, "{:?}", outcome.stats);
}

#[test]
fn a_seed_gives_the_same_plan_on_one_thread_and_two_and_every_run() {
    let problem = trace(TraceSpec::new(1_500, 5));
    let plans: Vec<Vec<u64>> = [1, 2, 2]
        .into_iter()
        .map(|threads| {
            let options = SolveOptions {
                seed: 3,
                threads: Some(threads),
                params: Params::new().with("budget", "5000000"),
                ..SolveOptions::default()
            };
            checked(&problem, &solve(&problem, &options)).offsets.clone()
        })
        .collect();
    assert_eq!(plans[0], plans[1]);
    assert_eq!(plans[1], plans[2]);
}

#[test]
fn a_cancelled_run_says_so_and_still_has_a_valid_plan() {
    let problem = trace(TraceSpec::new(1_000, 2));
    let start = first_fit_in_input_order(&problem);
    // With a warm start there is a plan before the first move, so the cancel ends the moves.
    let options = SolveOptions { start: Some(Arc::new(start.clone())), ..SolveOptions::default() };
    options.cancel.cancel();
    let outcome = solve(&problem, &options);
    assert_eq!(outcome.stopped, Stopped::Cancelled);
    assert_eq!(checked(&problem, &outcome).offsets, start.offsets);
}
