//! `auto` and the exact search's budget through the run, checked against internals that are not
//! public: the portfolio's members and quick phase, its size limit for the exact search, `peak`'s
//! default window and the exact search's default budget. (They sit here, in the run, because they
//! solve through [`solve`], which only the run may reach.)

use proptest::prelude::*;

use super::solve;
use crate::format::{self, ReadOptions};
use crate::generate::{TraceSpec, trace};
use crate::model::{Outcome, Problem, StatValue, Stopped};
use crate::options::{Effort, Params, SolveOptions};
use crate::solvers::{minimalloc, peak, portfolio};
use crate::test_support::{checked, instances};

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// `auto` never does worse than any of its members, and its thread count does not change it.
    #[test]
    fn auto_keeps_the_best_member_whatever_the_threads(problem in instances(40, 1000), seed in any::<u64>()) {
        let options = SolveOptions { seed, threads: Some(1), ..SolveOptions::default() };
        let one = solve(&problem, "auto", &options).unwrap().outcome;
        let two = solve(&problem, "auto", &SolveOptions { threads: Some(2), ..options.clone() }).unwrap();
        prop_assert_eq!(&one.plan, &two.outcome.plan);
        for member in portfolio::members(&problem, options.effort, seed, false) {
            let outcome = member.solver.solve(&problem, &member.options(&options)).unwrap();
            prop_assert!(one.makespan() <= outcome.makespan(), "auto lost to {}", member.solver.name());
        }
    }
}

/// `peak` with its window set, through the run, its plan validated.
fn peak_with_window(problem: &Problem, window: u64) -> Outcome {
    let options = SolveOptions { params: Params::new().with("window", window.to_string()), ..SolveOptions::default() };
    let run = solve(problem, "peak", &options).unwrap();
    assert!(run.is_valid(), "{}", run.violations.join("\n"));
    run.outcome
}

/// Past the exact search's size limit `auto` runs `peak` among its quick members: its answer is
/// valid and never above `peak`'s own plan.
#[test]
fn auto_runs_peak_past_the_search_limit() {
    let problem = trace(TraceSpec::new(portfolio::SEARCH_MAX + 400, 4));
    let own = peak_with_window(&problem, peak::WINDOW);
    let outcome = solve(&problem, "auto", &SolveOptions::default()).unwrap();
    assert!(outcome.is_valid(), "{}", outcome.violations.join("\n"));
    let plan = checked(&problem, &outcome.outcome);
    assert!(plan.makespan <= checked(&problem, &own).makespan);
}

/// Past the exact search's size limit, `auto` hands its best quick plan to `lns`: the answer is
/// valid, says so, and is never above the quick phase's.
#[test]
fn auto_runs_lns_past_the_search_limit() {
    // Aligned to the sizes' granularity (which changes no plan's makespan), so that `peak`, which
    // refuses alignment and meets the max load on such a trace, does not settle it first.
    let plain = trace(TraceSpec::new(portfolio::SEARCH_MAX + 400, 4));
    let aligned = plain.buffers().iter().map(|b| b.clone().with_alignment(64)).collect();
    let problem = Problem::new(aligned, None).unwrap();
    let options = SolveOptions::default();
    let quick = portfolio::quick_phase_outcome(&problem, &options).unwrap();
    let outcome = solve(&problem, "auto", &options).unwrap();
    assert!(outcome.is_valid(), "{}", outcome.violations.join("\n"));
    let outcome = outcome.outcome;
    let plan = checked(&problem, &outcome);
    assert!(plan.makespan <= quick.makespan().unwrap());
    let search = format!("{:?}", outcome.stats.get("search"));
    assert!(search.contains("lns"), "{search}");
    assert!(matches!(outcome.stopped, Stopped::Budget | Stopped::LowerBound), "{:?}", outcome.stopped);
}

fn budgets_fixture(name: &str) -> Problem {
    let path = format!("{}/tests/fixtures/budgets/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    format::read(&text, &ReadOptions::default()).unwrap_or_else(|e| panic!("{path}: {e}")).problem
}

/// The exact search's budget grows with the effort, and its default is what an explicit
/// `--param budget` of the same size gives: the same nodes, the same answer, `budget` as reason.
/// (On the windowed instance: the aligned and pinned one is proven optimal at normal effort.)
#[test]
fn the_exact_search_stops_on_its_effort_budget() {
    let problem = budgets_fixture("windowed_20.csv");
    let mut nodes = Vec::new();
    for effort in [Effort::Low, Effort::Normal] {
        let options = SolveOptions { effort, threads: Some(1), ..SolveOptions::default() };
        let run = solve(&problem, "minimalloc", &options).unwrap();
        assert_eq!(run.outcome.stopped, Stopped::Budget, "{effort:?}");
        let budget = minimalloc::default_budget(&problem, effort);
        let spent = match run.outcome.stats.get("nodes") {
            Some(StatValue::Count(n)) => *n,
            other => panic!("nodes: {other:?}"),
        };
        // A search checks its share of the budget between nodes: it may pass it by a few.
        let slack = budget / 100 + problem.len() as u64;
        assert!(spent >= budget && spent <= budget + slack, "{effort:?}: {spent} nodes, budget {budget}");
        let explicit = SolveOptions {
            effort,
            threads: Some(1),
            params: Params::new().with("budget", budget.to_string()),
            ..SolveOptions::default()
        };
        let again = solve(&problem, "minimalloc", &explicit).unwrap();
        assert_eq!(again.outcome.makespan(), run.outcome.makespan(), "{effort:?}");
        assert_eq!(again.outcome.lower_bound, run.outcome.lower_bound, "{effort:?}");
        nodes.push(spent);
    }
    assert!(nodes[0] < nodes[1], "low effort spends fewer nodes than normal: {nodes:?}");
}
