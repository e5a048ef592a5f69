//! The large-neighbourhood search against the oracles: every plan valid and never above its start;
//! on instances that one neighbourhood holds whole, the brute-force optimum (each repair is then
//! the exact search on the whole instance); perfect packings packed to their height; a capacity
//! met when a plan within it is known to exist; the same plan for a seed on any thread count.

mod common;

use common::{brute_force_optimum, checked, instances, instances_with_gaps};
use memplan::generate::{PerfectSpec, perfect, perfect_with_plan};
use memplan::{Outcome, Problem, SolveOptions, Stopped, run};
use proptest::prelude::*;

fn solve(problem: &Problem, options: &SolveOptions) -> Outcome {
    let run = run::solve(problem, "lns", options).unwrap();
    assert!(run.is_valid(), "{}", run.violations.join("\n"));
    run.outcome
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Eight buffers fit in the first neighbourhood, so every target is decided exactly.
    #[test]
    fn small_instances_reach_the_brute_force_optimum(problem in instances(8, 16), seed in 0u64..4) {
        let outcome = solve(&problem, &SolveOptions { seed, ..SolveOptions::default() });
        prop_assert_eq!(checked(&problem, &outcome).makespan, brute_force_optimum(&problem));
    }

    /// Gaps and windows: valid plans, never above the greedy start.
    #[test]
    fn plans_with_gaps_are_valid(problem in instances_with_gaps(10, 40, true)) {
        let outcome = solve(&problem, &SolveOptions::default());
        let plan = checked(&problem, &outcome);
        let start = memplan::solvers::greedy::quick_plan(&problem, &Default::default()).unwrap();
        prop_assert!(plan.makespan <= start.makespan);
    }

    /// With a capacity: a plan, valid, and `fits` exactly when it is within the capacity.
    #[test]
    fn a_capacity_is_met_or_not_claimed(problem in instances(10, 30), slack in 0u64..30) {
        let capacity = problem.lower_bound() + slack;
        let outcome = solve(&problem, &SolveOptions { capacity: Some(capacity), ..SolveOptions::default() });
        let plan = checked(&problem, &outcome);
        prop_assert_eq!(outcome.stopped == Stopped::Fits || outcome.stopped == Stopped::LowerBound, plan.makespan <= capacity);
    }
}

#[test]
fn perfect_packings_of_a_few_hundred_buffers_are_packed_to_their_height() {
    for seed in 0..3 {
        let problem = perfect(PerfectSpec::new(300, seed));
        let outcome = solve(&problem, &SolveOptions { seed, ..SolveOptions::default() });
        let plan = checked(&problem, &outcome);
        assert_eq!(plan.makespan, problem.max_load(), "seed {seed}: {:?}", outcome.stats);
        assert_eq!(outcome.stopped, Stopped::LowerBound);
    }
}

#[test]
fn the_capacity_of_a_perfect_packing_is_met() {
    let spec = PerfectSpec::new(200, 11);
    let (buffers, witness) = perfect_with_plan(spec);
    let problem = Problem::new(buffers, None).unwrap();
    assert!(memplan::validate::validate(&problem, &witness, Some(spec.height)).is_valid());
    let outcome = solve(&problem, &SolveOptions { capacity: Some(spec.height), ..SolveOptions::default() });
    assert!(checked(&problem, &outcome).makespan <= spec.height, "{:?}", outcome.stats);
}

#[test]
fn a_seed_gives_the_same_plan_on_one_thread_and_two() {
    let problem = perfect(PerfectSpec::new(400, 5));
    let plans: Vec<Vec<u64>> = [1, 2]
        .into_iter()
        .map(|threads| {
            let options = SolveOptions { seed: 3, threads: Some(threads), ..SolveOptions::default() };
            checked(&problem, &solve(&problem, &options)).offsets.clone()
        })
        .collect();
    assert_eq!(plans[0], plans[1]);
}
