//! A caller's warm start (`SolveOptions::start`, `memplan solve --warm`): checked against the
//! instance first, the start of the search solvers and `auto`, and never beaten by the answer of
//! any solver (the run keeps the better of the solver's plan and the start).

use std::sync::Arc;

use memplan::generate::{TraceSpec, trace};
use memplan::run::{self, WARM_WINNER, registry};
use memplan::{Plan, SolveError, SolveOptions};

#[test]
fn no_solver_answers_above_a_warm_plan() {
    let problem = trace(TraceSpec::new(80, 7));
    // A good height: auto's plan, which the greedy passes alone do not reach.
    let best = run::solve(&problem, "auto", &SolveOptions::default()).unwrap();
    let warm = Arc::new(best.outcome.plan.clone().unwrap());
    for solver in registry::all() {
        let name = solver.name();
        // Exact search is bounded by a node budget where the solver has one (reproducible).
        let params = if solver.parameters().iter().any(|p| p.name == "budget") {
            memplan::Params::new().with("budget", "20000")
        } else {
            memplan::Params::new()
        };
        let options = SolveOptions { start: Some(warm.clone()), params, ..SolveOptions::default() };
        let done = run::solve(&problem, name, &options).unwrap();
        assert!(done.is_valid(), "{name}: {:?}", done.violations);
        let makespan = done.outcome.makespan().unwrap();
        assert!(makespan <= warm.makespan, "{name}: {makespan} above the warm plan's {}", warm.makespan);
        assert_eq!(done.warm_start, Some(warm.makespan));
        if makespan == warm.makespan {
            assert_eq!(done.outcome.winner.as_deref(), Some(WARM_WINNER), "{name}");
        }
    }
}

#[test]
fn a_warm_plan_that_breaks_a_rule_is_refused_naming_it() {
    let problem = trace(TraceSpec::new(10, 1));
    let zeros = Arc::new(Plan::new(&problem, vec![0; problem.len()], Vec::new()));
    let options = SolveOptions { start: Some(zeros), ..SolveOptions::default() };
    match run::solve(&problem, "slff", &options) {
        Err(SolveError::InvalidStart(what)) => assert!(what.contains("overlaps"), "{what}"),
        other => panic!("expected InvalidStart, got {other:?}"),
    }
    let short = Arc::new(Plan { offsets: vec![0], placement_order: Vec::new(), makespan: 0 });
    let options = SolveOptions { start: Some(short), ..SolveOptions::default() };
    assert!(matches!(run::solve(&problem, "auto", &options), Err(SolveError::InvalidStart(_))));
}

/// A search solver's time covers its whole run, the start plan it searches from included, and
/// its statistics say how it splits: `warm_start_ms` (the start plan) and `search_ms` (the search).
/// With a capacity the search runs first and needs no start plan when it settles the question.
#[test]
fn a_search_solvers_time_includes_its_start_plan() {
    let problem = trace(TraceSpec::new(60, 3));
    let ms = |outcome: &memplan::Outcome, key: &str| match outcome.stats.get(key) {
        Some(memplan::StatValue::Ratio(value)) => *value,
        other => panic!("{key}: {other:?}"),
    };
    for solver in ["minimalloc", "telamalloc", "lns"] {
        for capacity in [None, Some(problem.max_load() * 2)] {
            let options = SolveOptions { capacity, ..SolveOptions::default() };
            let outcome = run::solve(&problem, solver, &options).unwrap().outcome;
            let (warm, search) = (ms(&outcome, "warm_start_ms"), ms(&outcome, "search_ms"));
            let elapsed = outcome.elapsed.as_secs_f64() * 1000.0;
            // Each part is rounded to the microsecond.
            assert!(warm + search <= elapsed + 0.002, "{solver} {capacity:?}: {warm} + {search} > {elapsed}");
            if capacity.is_some() && outcome.feasible() {
                assert_eq!(warm, 0.0, "{solver}: a plan within the capacity needs no start plan");
            }
        }
    }
}
