//! idealloc end to end: every plan passes the independent validator and is never worse than the
//! SLFF bootstrap; the seed alone decides the plan (not the thread count); the elementary cases are
//! solved optimally; lifespan-1 jobs, alignment, pins, a start address, huge sizes and bad
//! parameters are handled without panics; time limits, cancels, progress and early exits behave.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{brute_force_optimum, instances};
use memplan::generate::{TraceSpec, trace};
use memplan::{Buffer, Outcome, Params, Problem, SolveError, SolveOptions, Solver, Stopped, run, validate};
use proptest::prelude::*;

fn idealloc() -> std::sync::Arc<dyn Solver> {
    memplan::run::registry::by_name("idealloc").expect("idealloc is registered")
}

fn with(params: &[(&str, &str)]) -> SolveOptions {
    let params = params.iter().fold(Params::new(), |params, (name, value)| params.with(*name, *value));
    SolveOptions { params, ..SolveOptions::default() }
}

fn slff(problem: &Problem) -> Outcome {
    run::solve(problem, "slff", &SolveOptions::default()).expect("slff plans every valid problem").outcome
}

/// Solves, validates and checks the SLFF guarantee; returns the solution.
fn solve_checked(problem: &Problem, options: &SolveOptions) -> Outcome {
    let solution = run::solve(problem, "idealloc", options).unwrap_or_else(|e| panic!("idealloc failed: {e}")).outcome;
    let report = validate::validate_outcome(problem, &solution);
    assert!(report.is_valid(), "{}", report.describe(problem));
    assert!(solution.plan.is_some(), "no plan: {:?}", solution.stopped);
    assert!(solution.makespan().unwrap() >= problem.lower_bound());
    assert!(solution.makespan().unwrap() <= slff(problem).makespan().unwrap(), "worse than the SLFF bootstrap");
    solution
}

fn stat(solution: &Outcome, name: &str) -> Option<u64> {
    match solution.stats.get(name)? {
        memplan::StatValue::Count(count) => Some(*count),
        _ => None,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Random small instances with aligned and pinned buffers, default settings (100 iterations).
    #[test]
    fn plans_are_valid_reproducible_and_never_worse_than_slff(problem in instances(40, 1000), seed in any::<u64>()) {
        let options = SolveOptions { seed, ..SolveOptions::default() };
        let solution = solve_checked(&problem, &options);
        let again = run::solve(&problem, "idealloc", &options).unwrap().outcome;
        prop_assert_eq!(&again.plan, &solution.plan);
        prop_assert_eq!(solution.plan.as_ref().unwrap().placement_order.len(), problem.len());
    }

    /// Both ways of choosing ε beyond calibration, and a start address, on random instances.
    #[test]
    fn sampled_and_fixed_epsilon_and_a_start_address_give_valid_plans(
        problem in instances(30, 5000),
        seed in any::<u64>(),
        start in 0u64..100,
    ) {
        let start = start.to_string();
        for params in [vec![("sample-epsilon", "true")], vec![("epsilon", "0.3")], vec![("start-address", start.as_str())]] {
            let options = SolveOptions { seed, ..with(&params) };
            let solution = run::solve(&problem, "idealloc", &options).unwrap().outcome;
            let report = validate::validate_outcome(&problem, &solution);
            prop_assert!(report.is_valid(), "{:?}: {}", params, report.describe(&problem));
        }
        let options = SolveOptions { seed, ..with(&[("start-address", &start)]) };
        let solution = run::solve(&problem, "idealloc", &options).unwrap().outcome;
        let start: u64 = start.parse().unwrap();
        for (buffer, &offset) in problem.buffers().iter().zip(solution.offsets()) {
            prop_assert!(buffer.pinned.is_some() || offset >= start, "{} below the start address", buffer.id);
        }
    }

    /// Larger generated traces (a few iterations): valid, never worse than SLFF, and the same plan
    /// with one thread as with two.
    #[test]
    fn traces_plan_the_same_with_one_or_two_threads(buffers in 200usize..1500, seed in any::<u64>()) {
        let problem = trace(TraceSpec::new(buffers, seed));
        let options = SolveOptions { seed, threads: Some(1), ..with(&[("iterations", "6")]) };
        let one = solve_checked(&problem, &options);
        let two = run::solve(&problem, "idealloc", &SolveOptions { threads: Some(2), ..options }).unwrap().outcome;
        prop_assert_eq!(&one.plan, &two.plan);
    }

    #[test]
    fn never_below_the_brute_force_optimum(problem in instances(6, 16)) {
        let optimum = brute_force_optimum(&problem);
        let solution = idealloc().solve(&problem, &SolveOptions::default()).unwrap();
        prop_assert!(solution.makespan().unwrap() >= optimum);
        if solution.optimal() {
            prop_assert_eq!(solution.makespan().unwrap(), optimum);
        }
    }
}

/// Every buffer of lifespan 1 (`end = start + 1`), many at the same step: the reference
/// implementation panics on these.
#[test]
fn lifespan_one_jobs() {
    let buffers =
        (0..600u64).map(|i| Buffer::new(format!("b{i}"), i % 37, i % 37 + 1, 1 + (i * 7919) % 5000)).collect();
    let problem = Problem::new(buffers, None).unwrap();
    let solution = solve_checked(&problem, &SolveOptions::default());
    assert!(solution.lower_bound >= problem.max_load());
    // Mixed with long-lived buffers.
    let mut buffers: Vec<Buffer> =
        (0..300u64).map(|i| Buffer::new(format!("s{i}"), i, i + 1, 1 + (i * 31) % 900)).collect();
    buffers.extend((0..30u64).map(|i| Buffer::new(format!("l{i}"), i * 9, i * 9 + 120, 64 + i * 1000)));
    solve_checked(&Problem::new(buffers, None).unwrap(), &SolveOptions::default());
}

/// One size: interval graph colouring packs it at the max load.
#[test]
fn one_size_is_optimal() {
    let buffers = (0..500u64).map(|i| Buffer::new(format!("b{i}"), (i * 13) % 400, (i * 13) % 400 + 1 + i % 50, 96));
    let problem = Problem::new(buffers.collect(), None).unwrap();
    let solution = solve_checked(&problem, &SolveOptions::default());
    assert_eq!(solution.makespan().unwrap(), problem.max_load());
    assert!(solution.optimal());
    assert_eq!(solution.stats.get("case"), Some(&memplan::StatValue::Text("one size".into())));
}

/// No two buffers alive at once: all at 0 (or at the start address, aligned).
#[test]
fn non_overlapping_buffers_all_go_to_the_start() {
    let buffers: Vec<Buffer> =
        (0..100u64).map(|i| Buffer::new(format!("b{i}"), i * 3, i * 3 + 3, 1 + i * 11).with_alignment(8)).collect();
    let problem = Problem::new(buffers, None).unwrap();
    let solution = solve_checked(&problem, &SolveOptions::default());
    assert!(solution.offsets().iter().all(|&o| o == 0));
    assert!(solution.optimal());
    let shifted = run::solve(&problem, "idealloc", &with(&[("start-address", "13")])).unwrap().outcome;
    assert!(shifted.offsets().iter().all(|&o| o == 16), "13 rounded up to the alignment 8");
}

#[test]
fn aligned_buffers_get_aligned_offsets() {
    let alignments = [1u64, 2, 64, 256, 4096];
    let buffers = (0..800u64)
        .map(|i| {
            let start = (i * 17) % 700;
            Buffer::new(format!("b{i}"), start, start + 1 + i % 40, 1 + (i * 7919) % 9000)
                .with_alignment(alignments[i as usize % alignments.len()])
        })
        .collect();
    let problem = Problem::new(buffers, None).unwrap();
    let solution = solve_checked(&problem, &with(&[("iterations", "20")]));
    for (buffer, offset) in problem.buffers().iter().zip(solution.offsets()) {
        assert_eq!(offset % buffer.alignment(), 0, "{}", buffer.id);
    }
}

#[test]
fn pinned_buffers_stay_put_and_colliding_pins_are_infeasible() {
    let mut buffers: Vec<Buffer> = (0..300u64)
        .map(|i| {
            let start = (i * 7) % 200;
            Buffer::new(format!("b{i}"), start, start + 1 + i % 30, 8 + (i * 131) % 2000)
        })
        .collect();
    buffers.push(Buffer::new("p0", 0, 250, 1000).pinned_at(5000));
    buffers.push(Buffer::new("p1", 20, 90, 64).pinned_at(0));
    let problem = Problem::new(buffers.clone(), None).unwrap();
    let solution = solve_checked(&problem, &with(&[("iterations", "20")]));
    let n = problem.len();
    assert_eq!(&solution.offsets()[n - 2..], &[5000, 0]);
    // Nothing to move at all.
    let pinned_only: Vec<Buffer> = buffers.iter().filter(|b| b.pinned.is_some()).cloned().collect();
    let solution = solve_checked(&Problem::new(pinned_only, None).unwrap(), &SolveOptions::default());
    assert_eq!(solution.offsets(), vec![5000, 0]);
    buffers.push(Buffer::new("p2", 50, 60, 64).pinned_at(32));
    let clash = Problem::new(buffers, None).unwrap();
    let outcome = idealloc().solve(&clash, &SolveOptions::default()).unwrap();
    assert_eq!(outcome.stopped, Stopped::Infeasible);
    let reason = outcome.detail.unwrap_or_default();
    assert!(reason.contains("p2 and p1"), "{reason}");
}

/// Sizes close to u64::MAX / 4: no overflow panic, and a valid plan.
#[test]
fn huge_sizes_do_not_overflow() {
    let big = u64::MAX / 8;
    let buffers = vec![
        Buffer::new("a", 0, 10, big),
        Buffer::new("b", 5, 15, big / 3),
        Buffer::new("c", 12, 20, 1),
        Buffer::new("d", 0, 20, 7),
        Buffer::new("e", 8, 9, big / 2),
    ];
    let problem = Problem::new(buffers, None).unwrap();
    solve_checked(&problem, &SolveOptions::default());
}

#[test]
fn an_empty_problem_has_an_empty_plan() {
    let problem = Problem::new(Vec::new(), None).unwrap();
    let solution = idealloc().solve(&problem, &SolveOptions::default()).unwrap();
    assert!(solution.offsets().is_empty());
    assert_eq!(solution.makespan().unwrap(), 0);
}

#[test]
fn bad_parameters_are_refused_by_name() {
    let problem = trace(TraceSpec::new(50, 1));
    for (params, mentions) in [
        (vec![("iterations", "many")], "iterations"),
        (vec![("target-frag", "-1")], "target-frag"),
        (vec![("target-frag", "NaN")], "target-frag"),
        (vec![("epsilon", "-0.5")], "epsilon"),
        (vec![("epsilon", "0.5"), ("sample-epsilon", "true")], "exclude"),
        (vec![("sample-epsilon", "maybe")], "sample-epsilon"),
        (vec![("start-address", "-3")], "start-address"),
        (vec![("no-such", "1")], "no-such"),
    ] {
        match run::solve(&problem, "idealloc", &with(&params)) {
            // A value out of range, a name idealloc lacks, or two settings that exclude each other.
            Err(
                error @ (SolveError::InvalidParameter { .. }
                | SolveError::UnknownParameter { .. }
                | SolveError::Unsupported(_)),
            ) => assert!(error.to_string().contains(mentions), "{error}"),
            other => panic!("{params:?}: expected a refusal, got {other:?}"),
        }
    }
}

/// Progress comes after every second finished iteration with a best makespan that never rises, and a
/// cancel from the progress sink stops the solve with the best plan so far.
#[test]
fn progress_is_reported_and_a_cancel_returns_the_best_plan_so_far() {
    let problem = trace(TraceSpec::new(3000, 5));
    let seen: Arc<Mutex<Vec<Option<u64>>>> = Arc::default();
    let mut options = with(&[("iterations", "8")]);
    let sink_seen = seen.clone();
    options.progress = Some(Arc::new(move |progress| sink_seen.lock().unwrap().push(progress.best_makespan)));
    let solution = solve_checked(&problem, &options);
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 4, "one report per two finished iterations");
    assert!(seen.windows(2).all(|w| w[1] <= w[0]));
    assert_eq!(seen.last().copied().flatten(), Some(solution.makespan().unwrap()));

    let mut options = with(&[("iterations", "1000")]);
    let cancel = options.cancel.clone();
    options.progress = Some(Arc::new(move |_| cancel.cancel()));
    let solution = solve_checked(&problem, &options);
    assert!(stat(&solution, "iterations").unwrap() <= 2, "stopped after the first report");
}

/// A time limit ends the iterations; the bootstrap plan is there even with a zero limit (which
/// has passed at the first look, so no clock decides the test). The iteration count is the
/// budget that bounds a run reproducibly.
#[test]
fn a_time_limit_returns_the_best_plan_so_far() {
    let problem = trace(TraceSpec::new(4000, 9));
    let options = SolveOptions { time_limit: Some(Duration::ZERO), ..with(&[("iterations", "1000")]) };
    let solution = solve_checked(&problem, &options);
    assert_eq!(solution.makespan().unwrap(), slff(&problem).makespan().unwrap());
    assert_eq!(stat(&solution, "iterations"), Some(0));
    let options = with(&[("iterations", "3")]);
    let solution = solve_checked(&problem, &options);
    assert!(stat(&solution, "iterations").unwrap() <= 3);
    assert_eq!(solve_checked(&problem, &options).plan, solution.plan);
}

/// A reachable target fragmentation ends the solve at the first plan that meets it.
#[test]
fn target_fragmentation_exits_early() {
    // A trace on which SLFF leaves some fragmentation.
    let problem = (0..)
        .map(|seed| trace(TraceSpec::new(2000, seed)))
        .find(|problem| slff(problem).makespan().unwrap() > problem.max_load())
        .expect("some trace is not packed perfectly by SLFF");
    let bootstrap = slff(&problem);
    let pct = 100.0 * bootstrap.fragmentation(&problem).unwrap() as f64 / problem.max_load() as f64;
    let generous = format!("{}", pct + 1.0);
    let solution = solve_checked(&problem, &with(&[("target-frag", &generous)]));
    assert_eq!(stat(&solution, "iterations"), Some(0));
    let solution = solve_checked(&problem, &with(&[("target-frag", "0"), ("iterations", "4")]));
    assert_eq!(stat(&solution, "iterations"), Some(4));
}

/// The idealloc instances shipped with the repository (the small ones; the large ones are in the
/// benchmarks test and in `memplan bench`): valid and never worse than SLFF.
#[test]
fn shipped_instances() {
    for path in ["idealloc/somas_tensors/resnet50.csv", "idealloc/iopddl/G_1.csv"] {
        let problem = common::read_problem(&format!("../public/examples/{path}"));
        solve_checked(&problem, &with(&[("iterations", "10")]));
    }
}

fn memplan_cli(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_memplan")).args(args).output().expect("memplan runs")
}

/// `--iterations` and `--target-frag` are sugar for the parameters; a bench passes each solver
/// only the parameters it declares.
#[test]
fn cli_flags_map_to_parameters() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("idealloc");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("trace.csv");
    let out = memplan_cli(&["generate", "--buffers", "400", "--seed", "2", "--out", file.to_str().unwrap()]);
    assert!(out.status.success());
    let file = file.to_str().unwrap();
    let out = memplan_cli(&["solve", file, "--solver", "idealloc", "--iterations", "3"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let line: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(line["stats"]["iterations"], 3);
    let out = memplan_cli(&["solve", file, "--solver", "idealloc", "--target-frag", "1000"]);
    let line: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(line["stats"]["iterations"], 0);
    let out = memplan_cli(&["bench", file, "--solvers", "slff,idealloc", "--iterations", "2"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().filter(|l| l.starts_with("| trace")).count(), 2);
    let out = memplan_cli(&["bench", file, "--solvers", "slff", "--iterations", "2"]);
    assert_eq!(out.status.code(), Some(2), "no solver of the bench iterates");
}
