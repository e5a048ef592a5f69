//! TelaMalloc's search against the oracles: every plan valid and within the capacity; on tiny
//! instances, a plan whenever the brute-force optimum fits the capacity and never one when it does
//! not (with a proof once the complete search is exhausted); limits and cancels honoured.

mod common;

use std::time::Duration;

use common::{brute_force_optimum, instances};
use memplan::generate;
use memplan::model::StatValue;
use memplan::{Buffer, Params, Problem, SolveError, SolveOptions, run, validate};
use proptest::prelude::*;

fn solve(problem: &Problem, options: &SolveOptions) -> Result<memplan::Solution, SolveError> {
    run::solve(problem, "telamalloc", options)
}

fn at_capacity(capacity: u64) -> SolveOptions {
    SolveOptions { capacity: Some(capacity), ..SolveOptions::default() }
}

fn count(solution: &memplan::Solution, name: &str) -> u64 {
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
        let solution = solve(&problem, &options).unwrap();
        let report = validate::validate_solution(&problem, &solution, Some(optimum));
        prop_assert!(report.is_valid(), "{}", report.describe(&problem));
        prop_assert!(solution.feasible && solution.makespan <= optimum);
        if optimum > 1 {
            options.capacity = Some(optimum - 1);
            match solve(&problem, &options) {
                Err(SolveError::Infeasible(_)) => {}
                other => prop_assert!(false, "below the optimum: {:?}", other.map(|s| s.makespan)),
            }
        }
    }

    /// Whatever the capacity, a plan that claims to fit is valid and fits, and a refusal is a proof
    /// (checked against the brute-force optimum).
    #[test]
    fn never_claims_a_plan_that_does_not_fit(problem in instances(8, 30), slack in 0u64..40) {
        let optimum = brute_force_optimum(&problem);
        let capacity = (problem.max_load() + slack).max(1);
        match solve(&problem, &at_capacity(capacity)) {
            Ok(solution) => {
                let report = validate::validate_solution(&problem, &solution, solution.feasible.then_some(capacity));
                prop_assert!(report.is_valid(), "{}", report.describe(&problem));
                prop_assert_eq!(solution.feasible, solution.makespan <= capacity);
                prop_assert!(solution.feasible || optimum > capacity, "gave up although {optimum} fits {capacity}");
            }
            Err(SolveError::Infeasible(reason)) => prop_assert!(optimum > capacity, "refused {capacity} >= {optimum}: {reason}"),
            Err(other) => prop_assert!(false, "{other}"),
        }
    }

    /// Without a capacity the peak is minimised: valid, reproducible, never below the optimum, and
    /// optimal only when it is.
    #[test]
    fn minimises_the_peak(problem in instances(8, 16)) {
        let optimum = brute_force_optimum(&problem);
        let solution = solve(&problem, &SolveOptions::default()).unwrap();
        let report = validate::validate_solution(&problem, &solution, None);
        prop_assert!(report.is_valid(), "{}", report.describe(&problem));
        prop_assert!(solution.makespan >= optimum);
        prop_assert_eq!(solution.optimal, solution.makespan == optimum, "optimal flag vs {}", optimum);
        let again = solve(&problem, &SolveOptions::default()).unwrap();
        prop_assert_eq!(again.plan, solution.plan);
    }

    /// Larger random instances at a capacity between L and the greedy plans: every plan fits.
    #[test]
    fn plans_within_the_capacity_are_valid(problem in instances(40, 1000), percent in 100u64..130) {
        let capacity = problem.lower_bound() * percent / 100;
        let options = SolveOptions { params: Params::new().with("max_steps", "20000"), ..at_capacity(capacity.max(1)) };
        if let Ok(solution) = solve(&problem, &options) {
            let report = validate::validate_solution(&problem, &solution, solution.feasible.then_some(capacity));
            prop_assert!(report.is_valid(), "{}", report.describe(&problem));
        }
    }
}

#[test]
fn obvious_infeasibility_is_proven_without_search() {
    let problem = Problem::new(vec![Buffer::new("a", 0, 4, 8), Buffer::new("b", 2, 6, 8)], None).unwrap();
    match solve(&problem, &at_capacity(15)) {
        Err(SolveError::Infeasible(reason)) => assert!(reason.contains("max load"), "{reason}"),
        other => panic!("{other:?}"),
    }
    // b fits under the pinned a (0..4): capacity 12 works, 11 cuts a itself.
    let pinned = Problem::new(vec![Buffer::new("a", 0, 4, 8).pinned_at(4), Buffer::new("b", 2, 6, 2)], None).unwrap();
    assert!(solve(&pinned, &at_capacity(12)).unwrap().feasible);
    match solve(&pinned, &at_capacity(11)) {
        Err(SolveError::Infeasible(reason)) => assert!(reason.contains("does not fit"), "{reason}"),
        other => panic!("{other:?}"),
    }
    // c pinned at 0..4 and a at 6..12 leave b (size 4) only 12..16, above the capacity 15 (L = 14):
    // the root propagation proves it.
    let buffers =
        vec![Buffer::new("a", 0, 4, 6).pinned_at(6), Buffer::new("c", 0, 6, 4).pinned_at(0), Buffer::new("b", 2, 6, 4)];
    let wedged = Problem::new(buffers, None).unwrap();
    match solve(&wedged, &at_capacity(15)) {
        Err(SolveError::Infeasible(reason)) => assert!(reason.contains("fits nowhere"), "{reason}"),
        other => panic!("{other:?}"),
    }
}

/// TelaMalloc's microbenchmarks need no backtracking at all.
#[test]
fn microbenchmarks_solve_without_backtracking() {
    let no_baseline = Params::new().with("baseline", "false");
    for problem in [generate::non_overlapping(1000, 1), generate::full_overlap(300, 1)] {
        let options = SolveOptions { params: no_baseline.clone(), ..SolveOptions::default() };
        let solution = solve(&problem, &options).unwrap();
        assert!(solution.feasible);
        assert!(validate::validate_solution(&problem, &solution, problem.capacity()).is_valid());
        assert_eq!(count(&solution, "minor_backtracks") + count(&solution, "major_backtracks"), 0);
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
    let solution = solve(&problem, &budgeted).unwrap();
    assert!(validate::validate_solution(&problem, &solution, solution.feasible.then_some(capacity)).is_valid());
    assert!(count(&solution, "steps") <= 2000, "{}", count(&solution, "steps"));
    if !solution.feasible {
        assert_eq!(solution.stats["stopped"], StatValue::Text("steps".into()));
    }
    assert_eq!(solve(&problem, &budgeted).unwrap().plan, solution.plan, "a step budget is reproducible");
    let expired = SolveOptions { time_limit: Some(Duration::ZERO), ..at_capacity(capacity) };
    let solution = solve(&problem, &expired).unwrap();
    assert!(validate::validate_solution(&problem, &solution, solution.feasible.then_some(capacity)).is_valid());
    if !solution.feasible {
        assert_eq!(solution.stats["stopped"], StatValue::Text("time limit".into()));
    }
    let options = at_capacity(capacity);
    options.cancel.cancel();
    match solve(&problem, &options) {
        Ok(solution) => assert!(!solution.feasible || solution.makespan <= capacity),
        Err(error) => assert_eq!(error, SolveError::Cancelled),
    }
}

#[test]
fn is_registered_with_its_capabilities() {
    let solver = memplan::solvers::by_name("telamalloc").unwrap();
    let capabilities = solver.capabilities();
    assert!(capabilities.capacity && capabilities.minimise && capabilities.alignment && capabilities.pinned);
    let names: Vec<_> = solver.parameters().iter().map(|p| p.name).collect();
    assert!(names.contains(&"subtree_limit") && names.contains(&"candidates"), "{names:?}");
}

/// The entry point for a portfolio: lowers any start plan, never raises it.
#[test]
fn improves_a_given_start_plan() {
    let problem = generate::trace(generate::TraceSpec::new(300, 3));
    let start = run::solve(&problem, "first-fit-start", &SolveOptions::default()).unwrap();
    let options = SolveOptions { params: Params::new().with("max_steps", "3000"), ..SolveOptions::default() };
    let better = memplan::solvers::telamalloc::improve(&problem, &options, start.clone()).unwrap();
    let again = memplan::solvers::telamalloc::improve(&problem, &options, start.clone()).unwrap();
    assert_eq!(again.plan, better.plan, "a step budget is reproducible");
    assert!(validate::validate_solution(&problem, &better, None).is_valid());
    assert!(better.makespan <= start.makespan);
    assert!(better.makespan >= problem.lower_bound());
    assert_eq!(better.optimal, better.makespan == better.lower_bound);
}
