//! Every planner on random instances: the independent validator accepts every plan, the makespan
//! is at least L, the same seed gives the same plan, each fit matches its naive definition, and
//! on tiny instances nothing beats the brute-force optimum.

mod common;

use common::{brute_force_optimum, checked, declines, every_planner, instances, instances_with_gaps, naive_place};
use memplan::solvers::Solver;
use memplan::solvers::greedy::{Fit, Greedy, Order, Pass};
use memplan::{Effort, SolveOptions, Stopped};
use proptest::prelude::*;
use std::time::Duration;

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn every_plan_is_valid_and_reproducible(problem in instances(40, 1000), seed in any::<u64>()) {
        for solver in every_planner() {
            if declines(solver.as_ref(), &problem) {
                continue;
            }
            // `auto` at high effort runs the search solvers to their budgets: it has its own
            // test below, on smaller instances.
            let effort = if solver.name() == "auto" { Effort::Normal } else { Effort::High };
            let mut options = SolveOptions { seed, effort, ..SolveOptions::default() };
            if solver.capabilities().minimise {
                // Exact minimisers would prove optimality at any cost: a node budget bounds them
                // and, unlike a time limit, keeps them reproducible.
                options.params = memplan::Params::new().with("budget", "20000");
            }
            let outcome = solver.solve(&problem, &options).unwrap();
            let plan = checked(&problem, &outcome);
            prop_assert!(plan.makespan >= problem.max_load());
            prop_assert!(plan.makespan >= problem.lower_bound());
            // Reproducible as a user sees it: the same input read again (a fresh problem: a clone
            // would share the facts the first run memoised, e.g. MiniMalloc's window bound, and a
            // run that finds one memoised spends its nodes elsewhere).
            let fresh = memplan::Problem::new(problem.buffers().to_vec(), problem.capacity()).unwrap();
            let again = solver.solve(&fresh, &options).unwrap();
            prop_assert_eq!(&again.plan, &outcome.plan, "{} is not reproducible", solver.name());
            prop_assert_eq!(again.stopped, outcome.stopped, "{} stops for another reason", solver.name());
            prop_assert_eq!(plan.placement_order.len(), problem.len());
        }
    }

    /// Gaps and windows: every planner returns a valid plan (those that cannot use gaps plan the
    /// hulls), at least the bound, and claims nothing beyond what it proved of the buffers.
    #[test]
    fn every_plan_is_valid_with_gaps_and_windows(problem in instances_with_gaps(12, 64, true), seed in any::<u64>()) {
        for solver in every_planner() {
            if declines(solver.as_ref(), &problem) {
                continue;
            }
            let mut options = SolveOptions { seed, ..SolveOptions::default() };
            if solver.capabilities().minimise {
                options.params = memplan::Params::new().with("budget", "20000");
            }
            let outcome = solver.solve(&problem, &options).unwrap();
            let plan = checked(&problem, &outcome);
            prop_assert!(plan.makespan >= problem.lower_bound());
            prop_assert!(outcome.lower_bound <= plan.makespan);
            if !solver.capabilities().gaps && plans_looser_buffers(&problem) {
                prop_assert!(!outcome.stopped.is_optimal() || plan.makespan <= problem.lower_bound(), "{}", solver.name());
            }
        }
    }

    #[test]
    fn each_fit_matches_its_naive_definition(problem in instances(30, 64), seed in any::<u64>()) {
        for order in Order::ALL {
            let arranged = order.arrange(problem.buffers(), seed);
            for fit in Fit::ALL {
                let solver = Greedy::combination(Pass::new(order, fit));
                let outcome = solver.solve(&problem, &SolveOptions { seed, ..SolveOptions::default() }).unwrap();
                let expected = naive_place(fit.name(), &problem, &arranged);
                prop_assert_eq!(outcome.offsets(), &expected[..], "{}", solver.name());
            }
        }
    }

    #[test]
    fn nothing_beats_the_brute_force_optimum(problem in instances(6, 16)) {
        let optimum = brute_force_optimum(&problem);
        prop_assert!(optimum >= problem.lower_bound());
        for solver in every_planner().into_iter().filter(|s| !declines(s.as_ref(), &problem)) {
            let outcome = solver.solve(&problem, &SolveOptions::default()).unwrap();
            let plan = checked(&problem, &outcome);
            prop_assert!(plan.makespan >= optimum, "{} beat the optimum", solver.name());
            prop_assert!(outcome.lower_bound <= optimum, "{} proved a bound above the optimum", solver.name());
            if outcome.optimal() {
                prop_assert_eq!(plan.makespan, optimum, "{} claims optimality", solver.name());
            }
        }
    }

    /// At high effort `auto` searches after its quick members: on tiny instances it reaches the
    /// brute-force optimum and proves it, and it meets a capacity equal to that optimum, whether
    /// its searchers race (no time limit) or take turns (one thread and a time limit).
    #[test]
    fn auto_at_high_effort_reaches_and_proves_the_optimum(problem in instances(6, 16), seed in any::<u64>()) {
        let optimum = brute_force_optimum(&problem);
        let racing = SolveOptions { seed, effort: Effort::High, ..SolveOptions::default() };
        let turns = SolveOptions { threads: Some(1), time_limit: Some(Duration::from_secs(60)), ..racing.clone() };
        for options in [racing, turns] {
            let run = memplan::run::solve(&problem, "auto", &options).unwrap();
            prop_assert_eq!(checked(&problem, &run.outcome).makespan, optimum);
            prop_assert!(run.outcome.optimal(), "the optimum {} was reached but not proven", optimum);
            let at_capacity = SolveOptions { capacity: Some(optimum), ..options };
            let fitted = memplan::run::solve(&problem, "auto", &at_capacity).unwrap();
            prop_assert!(checked(&problem, &fitted.outcome).makespan <= optimum);
            prop_assert!(fitted.outcome.feasible());
            if optimum > problem.lower_bound() {
                // One byte less is infeasible, and the search proves it.
                let below = SolveOptions { capacity: Some(optimum - 1), ..at_capacity };
                let refuted = memplan::run::solve(&problem, "auto", &below).unwrap();
                prop_assert!(refuted.is_valid());
                prop_assert_eq!(refuted.outcome.stopped, Stopped::Infeasible);
            }
        }
    }

    /// With no time limit, `auto` at high effort gives the same plan on every run and thread count,
    /// even though its search solvers race.
    #[test]
    fn auto_at_high_effort_is_reproducible(problem in instances(14, 200), seed in any::<u64>()) {
        let options = SolveOptions { seed, effort: Effort::High, threads: Some(2), ..SolveOptions::default() };
        let first = memplan::run::solve(&problem, "auto", &options).unwrap().outcome;
        checked(&problem, &first);
        let again = memplan::run::solve(&problem, "auto", &options).unwrap().outcome;
        prop_assert_eq!(&first.plan, &again.plan);
        let one = memplan::run::solve(&problem, "auto", &SolveOptions { threads: Some(1), ..options }).unwrap().outcome;
        prop_assert_eq!(&first.plan, &one.plan);
    }
}

/// Whether a planner that cannot use gaps is given looser buffers than the problem's: an unpinned
/// buffer that occupies something has gaps, and is planned as its hull. (A pinned buffer with gaps
/// is given as its live pieces, exactly where they are, so what is proven of them holds.)
fn plans_looser_buffers(problem: &memplan::Problem) -> bool {
    problem.buffers().iter().any(|b| b.pinned.is_none() && b.size > 0 && b.has_gaps() && !b.pieces().is_empty())
}

/// Found by `every_plan_is_valid_with_gaps_and_windows`: the only buffer with gaps is pinned, so
/// planners that do not use gaps see its pieces, and the pin at 7 (alive with both large buffers)
/// lifts them over it. Their proof of 61 is a proof for the buffers, as brute force confirms.
#[test]
fn a_proof_over_pinned_pieces_holds_for_the_buffers() {
    use memplan::{Buffer, Gap};
    let buffers = vec![
        Buffer::new("b0", 10, 11, 36),
        Buffer::new("b1", 0, 11, 17),
        Buffer::new("b2", 5, 11, 1).pinned_at(7),
        Buffer::new("b3", 2, 12, 2).pinned_at(0).with_gaps(vec![Gap::new(2, 11)]),
    ];
    let problem = memplan::Problem::new(buffers, None).unwrap();
    assert!(!plans_looser_buffers(&problem) && problem.lower_bound() < 61);
    assert_eq!(brute_force_optimum(&problem), 61);
    for solver in every_planner().into_iter().filter(|s| !declines(s.as_ref(), &problem)) {
        let outcome = solver.solve(&problem, &SolveOptions::default()).unwrap();
        let plan = checked(&problem, &outcome);
        assert!(plan.makespan >= 61, "{} beat the optimum", solver.name());
        assert!(!outcome.stopped.is_optimal() || plan.makespan == 61, "{}", solver.name());
    }
}

#[test]
fn overlapping_pinned_buffers_are_infeasible() {
    let buffers =
        vec![memplan::Buffer::new("a", 0, 4, 8).pinned_at(0), memplan::Buffer::new("b", 2, 6, 8).pinned_at(4)];
    let problem = memplan::Problem::new(buffers, None).unwrap();
    for solver in every_planner().into_iter().filter(|s| !declines(s.as_ref(), &problem)) {
        let outcome = solver.solve(&problem, &SolveOptions::default()).unwrap();
        assert_eq!((outcome.stopped, outcome.plan.is_none()), (Stopped::Infeasible, true), "{}", solver.name());
        assert!(memplan::validate::validate_outcome(&problem, &outcome).is_valid());
    }
}

#[test]
fn offsets_past_u64_leave_no_plan_not_a_wrapped_one() {
    // L = (MAX - 20) + 11 fits, but b fits neither below a (10 bytes) nor above it.
    let buffers =
        vec![memplan::Buffer::new("a", 0, 4, u64::MAX - 20).pinned_at(10), memplan::Buffer::new("b", 2, 6, 11)];
    let problem = memplan::Problem::new(buffers, None).unwrap();
    for solver in every_planner().into_iter().filter(|s| !declines(s.as_ref(), &problem)) {
        let outcome = solver.solve(&problem, &SolveOptions::default()).unwrap();
        assert!(outcome.plan.is_none(), "{}: {:?}", solver.name(), outcome.plan);
        assert!(!outcome.stopped.is_optimal() && outcome.stopped != Stopped::Fits, "{}", solver.name());
    }
}

#[test]
fn a_solve_cancelled_before_it_starts_says_so() {
    let buffers: Vec<_> = (0..5000u64).map(|i| memplan::Buffer::new(i.to_string(), i, i + 50, 1 + i % 7)).collect();
    let problem = memplan::Problem::new(buffers, None).unwrap();
    let options = SolveOptions::default();
    options.cancel.cancel();
    for name in ["slff", "greedy-random-best", "auto", "minimalloc", "telamalloc", "idealloc", "zant"] {
        let outcome = memplan::run::solve(&problem, name, &options).unwrap().outcome;
        assert_eq!((outcome.stopped, outcome.plan.is_none()), (Stopped::Cancelled, true), "{name}");
    }
    // A time limit is different: `auto` still answers, as its first member always finishes.
    let options = SolveOptions { time_limit: Some(Duration::ZERO), ..SolveOptions::default() };
    let outcome = memplan::run::solve(&problem, "auto", &options).unwrap().outcome;
    assert_eq!(outcome.stats["finished"], memplan::StatValue::Count(1));
    assert_eq!(outcome.stopped, Stopped::TimeLimit);
    assert!(outcome.plan.is_some());
}

#[test]
fn presets_reproduce_what_compilers_do_on_a_known_case() {
    // Three buffers: big [0,10) size 4; small [0,5) size 2; mid [5,10) size 3.
    let buffers = vec![
        memplan::Buffer::new("big", 0, 10, 4),
        memplan::Buffer::new("small", 0, 5, 2),
        memplan::Buffer::new("mid", 5, 10, 3),
    ];
    let problem = memplan::Problem::new(buffers, None).unwrap();
    let solve = |name: &str| memplan::run::solve(&problem, name, &SolveOptions::default()).unwrap().outcome;
    // SLFF: big at 0, mid at 4, small at 4 (lifetimes disjoint from mid): makespan 7 = L.
    assert_eq!(solve("slff").offsets(), [0, 4, 4]);
    assert_eq!(solve("slff").stopped, Stopped::LowerBound);
    // Start order: big 0, small 4, mid 4.
    assert_eq!(solve("first-fit-start").offsets(), [0, 4, 4]);
}

/// LiteRT's arena places the tensors alive for the whole run first, by index, whatever their size
/// (found with a loop whose graph inputs are 4 and 128 bytes, `crate/tests/import_tflite.rs`);
/// the others by size, descending.
#[test]
fn the_tflite_preset_places_whole_run_buffers_by_index() {
    let buffers = vec![
        memplan::Buffer::new("small-input", 0, 4, 4).with_alignment(64),
        memplan::Buffer::new("big-input", 0, 4, 128).with_alignment(64),
        memplan::Buffer::new("temporary", 1, 2, 256).with_alignment(64),
    ];
    let problem = memplan::Problem::new(buffers, None).unwrap();
    let outcome = memplan::run::solve(&problem, "tflite", &SolveOptions::default()).unwrap().outcome;
    assert_eq!(outcome.offsets(), [0, 64, 192]);
}

/// The run resolves the capacity once and every solver obeys that one: a request's capacity
/// replaces the problem's, in both directions (an ample one where the problem's is below the
/// lower bound, a tight one where the problem's is ample).
#[test]
fn every_solver_obeys_the_resolved_capacity_not_the_problems() {
    let buffers: Vec<_> = (0..12u64).map(|i| memplan::Buffer::new(i.to_string(), i, i + 4, 8 + i % 3)).collect();
    let free = memplan::Problem::new(buffers, None).unwrap();
    let bound = free.lower_bound();
    for solver in memplan::run::registry::all().iter().filter(|s| s.capabilities().capacity) {
        let name = solver.name();
        // The problem's own capacity is below the bound; the request's is ample.
        let tight = memplan::Problem::new(free.buffers().to_vec(), Some(bound - 1)).unwrap();
        let ample = SolveOptions { capacity: Some(bound * 4), ..SolveOptions::default() };
        let outcome = memplan::run::solve(&tight, name, &ample).unwrap().outcome;
        assert_eq!(outcome.capacity, Some(bound * 4), "{name}");
        assert!(outcome.feasible() && outcome.stopped != Stopped::Infeasible, "{name}: {:?}", outcome.stopped);
        // The problem's own capacity is ample; the request's is below the bound.
        let roomy = memplan::Problem::new(free.buffers().to_vec(), Some(bound * 4)).unwrap();
        let below = SolveOptions { capacity: Some(bound - 1), ..SolveOptions::default() };
        let outcome = memplan::run::solve(&roomy, name, &below).unwrap().outcome;
        assert_eq!(outcome.capacity, Some(bound - 1), "{name}");
        assert!(!outcome.feasible(), "{name}: a plan within {} below the bound {bound}", bound - 1);
    }
}

/// A time limit counts from when the run started ([`SolveOptions::started`]), not from when
/// each solver (or portfolio member) is called: a solve whose run began past its limit stops as
/// one with a zero limit does.
#[test]
fn a_time_limit_counts_from_the_runs_start_not_from_each_solver() {
    let buffers: Vec<_> = (0..5000u64).map(|i| memplan::Buffer::new(i.to_string(), i, i + 50, 1 + i % 7)).collect();
    let problem = memplan::Problem::new(buffers, None).unwrap();
    // An instant safely in the past on any machine that has been up for a few seconds.
    let Some(long_ago) = std::time::Instant::now().checked_sub(Duration::from_secs(5)) else { return };
    let spent =
        SolveOptions { time_limit: Some(Duration::from_secs(1)), started: Some(long_ago), ..SolveOptions::default() };
    let zero = SolveOptions { time_limit: Some(Duration::ZERO), ..SolveOptions::default() };
    // (MiniMalloc and the stacking solver end this instance before their first look at the clock.)
    for name in ["auto", "slff", "telamalloc", "idealloc", "zant", "lns", "peak"] {
        let past = memplan::run::solve(&problem, name, &spent).unwrap().outcome;
        let none_left = memplan::run::solve(&problem, name, &zero).unwrap().outcome;
        assert_eq!(past.stopped, none_left.stopped, "{name}");
        assert!(past.stopped.is_interrupted(), "{name}: {:?}", past.stopped);
    }
}
