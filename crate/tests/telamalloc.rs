//! TelaMalloc's search against the oracles: every plan valid and within the capacity; on tiny
//! instances, a plan whenever the brute-force optimum fits the capacity and never one when it does
//! not (with a proof once the complete search is exhausted); limits and cancels honoured.

mod common;

use std::time::Duration;

use common::{brute_force_optimum, checked, instances};
use memplan::StatValue;
use memplan::generate;
use memplan::{Buffer, Outcome, Params, Problem, SolveOptions, Stopped, run};
use proptest::prelude::*;

/// TelaMalloc through the run (which validates it and passes it a warm start).
fn solve(problem: &Problem, options: &SolveOptions) -> Outcome {
    let run = run::solve(problem, "telamalloc", options).unwrap();
    assert!(run.is_valid(), "{}", run.violations.join("\n"));
    run.outcome
}

/// The reason of a proof of infeasibility (panics on any other outcome).
fn refusal(outcome: Outcome) -> String {
    assert_eq!(outcome.stopped, Stopped::Infeasible, "{outcome:?}");
    outcome.detail.unwrap_or_default()
}

fn at_capacity(capacity: u64) -> SolveOptions {
    SolveOptions { capacity: Some(capacity), ..SolveOptions::default() }
}

fn count(solution: &Outcome, name: &str) -> u64 {
    match solution.stats.get(name) {
        Some(StatValue::Count(n)) => *n,
        other => panic!("statistic {name}: {other:?}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// At the optimum the search finds a plan; one byte below, it proves that none exists.
    #[test]
    fn agrees_with_the_brute_force_optimum(problem in instances(7, 16), baseline in any::<bool>()) {
        let optimum = brute_force_optimum(&problem);
        let mut options = at_capacity(optimum);
        options.params = Params::new().with("baseline", baseline.to_string());
        let outcome = solve(&problem, &options);
        prop_assert!(checked(&problem, &outcome).makespan <= optimum);
        if optimum > 1 {
            options.capacity = Some(optimum - 1);
            let below = solve(&problem, &options);
            prop_assert_eq!(below.stopped, Stopped::Infeasible, "below the optimum: {:?}", below.makespan());
        }
    }

    /// Whatever the capacity, a plan that claims to fit is valid and fits, and a refusal is a proof
    /// (checked against the brute-force optimum).
    #[test]
    fn never_claims_a_plan_that_does_not_fit(problem in instances(8, 30), slack in 0u64..40) {
        let optimum = brute_force_optimum(&problem);
        let capacity = (problem.max_load() + slack).max(1);
        let outcome = solve(&problem, &at_capacity(capacity));
        if outcome.stopped == Stopped::Infeasible {
            prop_assert!(optimum > capacity, "refused {capacity} >= {optimum}: {:?}", outcome.detail);
        } else {
            let plan = checked(&problem, &outcome);
            prop_assert_eq!(outcome.feasible(), plan.makespan <= capacity);
            prop_assert!(outcome.feasible() || optimum > capacity, "gave up although {optimum} fits {capacity}");
        }
    }

    /// Without a capacity the peak is minimised: valid, reproducible, never below the optimum, and
    /// optimal only when it is.
    #[test]
    fn minimises_the_peak(problem in instances(8, 16)) {
        let optimum = brute_force_optimum(&problem);
        let outcome = solve(&problem, &SolveOptions::default());
        let makespan = checked(&problem, &outcome).makespan;
        prop_assert!(makespan >= optimum);
        prop_assert_eq!(outcome.optimal(), makespan == optimum, "optimal flag vs {}", optimum);
        let again = solve(&problem, &SolveOptions::default());
        prop_assert_eq!(again.plan, outcome.plan);
    }

    /// Larger random instances at a capacity between L and the greedy plans: every plan fits.
    #[test]
    fn plans_within_the_capacity_are_valid(problem in instances(40, 1000), percent in 100u64..130) {
        let capacity = problem.lower_bound() * percent / 100;
        let options = SolveOptions { params: Params::new().with("max_steps", "20000"), ..at_capacity(capacity.max(1)) };
        let outcome = solve(&problem, &options);
        if outcome.plan.is_some() {
            checked(&problem, &outcome);
        }
    }
}

#[test]
fn obvious_infeasibility_is_proven_without_search() {
    let problem = Problem::new(vec![Buffer::new("a", 0, 4, 8), Buffer::new("b", 2, 6, 8)], None).unwrap();
    let reason = refusal(solve(&problem, &at_capacity(15)));
    assert!(reason.contains("max load"), "{reason}");
    // b fits under the pinned a (0..4): capacity 12 works, 11 cuts a itself.
    let pinned = Problem::new(vec![Buffer::new("a", 0, 4, 8).pinned_at(4), Buffer::new("b", 2, 6, 2)], None).unwrap();
    assert!(solve(&pinned, &at_capacity(12)).feasible());
    let reason = refusal(solve(&pinned, &at_capacity(11)));
    assert!(reason.contains("does not fit"), "{reason}");
    // c pinned at 0..4 and a at 6..12 leave b (size 4) only 12..16, above the capacity 15 (L = 14):
    // the root propagation proves it.
    let buffers =
        vec![Buffer::new("a", 0, 4, 6).pinned_at(6), Buffer::new("c", 0, 6, 4).pinned_at(0), Buffer::new("b", 2, 6, 4)];
    let wedged = Problem::new(buffers, None).unwrap();
    let reason = refusal(solve(&wedged, &at_capacity(15)));
    assert!(reason.contains("fits nowhere"), "{reason}");
}

/// TelaMalloc's microbenchmarks need no backtracking at all.
#[test]
fn microbenchmarks_solve_without_backtracking() {
    let no_baseline = Params::new().with("baseline", "false");
    for problem in [generate::non_overlapping(1000, 1), generate::full_overlap(300, 1)] {
        let options = SolveOptions { params: no_baseline.clone(), ..SolveOptions::default() };
        let outcome = solve(&problem, &options);
        assert!(outcome.feasible());
        checked(&problem, &outcome);
        assert_eq!(count(&outcome, "minor_backtracks") + count(&outcome, "major_backtracks"), 0);
    }
}

/// Limits are honoured without reading a clock: a step budget stops the search at the same point
/// on every run (the plan is reproducible), a time limit that has already passed stops it at its
/// first look at the clock, and a cancel stops it too. Every plan returned is valid.
#[test]
fn cancel_and_limits_are_honoured() {
    let problem = generate::trace(generate::TraceSpec::new(3000, 5));
    let capacity = problem.max_load(); // tight: the search will not finish within the budget
    let budgeted = SolveOptions { params: Params::new().with("max_steps", "2000"), ..at_capacity(capacity) };
    let outcome = solve(&problem, &budgeted);
    checked(&problem, &outcome);
    assert!(count(&outcome, "steps") <= 2000, "{}", count(&outcome, "steps"));
    if !outcome.feasible() {
        assert_eq!(outcome.stopped, Stopped::Budget);
    }
    assert_eq!(solve(&problem, &budgeted).plan, outcome.plan, "a step budget is reproducible");
    let expired = SolveOptions { time_limit: Some(Duration::ZERO), ..at_capacity(capacity) };
    let outcome = solve(&problem, &expired);
    checked(&problem, &outcome);
    if !outcome.feasible() {
        assert_eq!(outcome.stopped, Stopped::TimeLimit);
    }
    let options = at_capacity(capacity);
    options.cancel.cancel();
    let outcome = solve(&problem, &options);
    assert_eq!(outcome.stopped, Stopped::Cancelled);
}

#[test]
fn is_registered_with_its_capabilities() {
    let solver = memplan::run::registry::by_name("telamalloc").unwrap();
    let capabilities = solver.capabilities();
    assert!(capabilities.capacity && capabilities.minimise && capabilities.alignment && capabilities.pinned);
    let names: Vec<_> = solver.parameters().iter().map(|p| p.name).collect();
    assert!(names.contains(&"subtree-limit") && names.contains(&"candidates"), "{names:?}");
}

/// A warm start (as the portfolio or a caller passes one): the plan is lowered from it, never raised.
#[test]
fn improves_a_given_start_plan() {
    let problem = generate::trace(generate::TraceSpec::new(300, 3));
    let start = run::solve(&problem, "first-fit-start", &SolveOptions::default()).unwrap().outcome;
    let start = std::sync::Arc::new(start.plan.unwrap());
    let options = SolveOptions {
        params: Params::new().with("max_steps", "3000"),
        start: Some(start.clone()),
        ..SolveOptions::default()
    };
    let better = solve(&problem, &options);
    assert_eq!(solve(&problem, &options).plan, better.plan, "a step budget is reproducible");
    let plan = checked(&problem, &better);
    assert!(plan.makespan <= start.makespan);
    assert!(plan.makespan >= problem.lower_bound());
    // The search starts from the lower of the given plan and the quick greedy one (`run::solve`).
    let StatValue::Count(started) = better.stats["start_makespan"] else { panic!("{:?}", better.stats) };
    assert!(started <= start.makespan, "started at {started}, above the given {}", start.makespan);
    assert!(plan.makespan <= started);
}
