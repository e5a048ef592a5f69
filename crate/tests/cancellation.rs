//! A cancel in the middle of a run, for every solver and `auto`: the run comes back with
//! `stopped = cancelled` and its best plan so far (a valid one, when it has any). Each solve is
//! given work that would take far longer than the moment the cancel arrives (an unbounded search,
//! a huge iteration count, hundreds of thousands of buffers), so the cancel lands mid-run (and is
//! sent sooner when a busy machine made it miss). The time from the cancel to the return is
//! printed (`--nocapture`), not asserted: timed tests are not benchmarks.

mod common;

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use common::checked;
use memplan::{Effort, Params, Problem, SolveOptions, Stopped, run};

/// How long a solve runs before it is cancelled: the first wait, then shorter ones. A busy machine
/// can oversleep a wait until the solve has ended (or passed its last look at the cancel flag), so
/// a run that comes back without having been cancelled is tried again with the cancel sooner. A
/// solver that ignores the flag completes every time and fails.
const WAITS_BEFORE_CANCEL: [Duration; 4] =
    [Duration::from_millis(300), Duration::from_millis(120), Duration::from_millis(40), Duration::from_millis(10)];

fn challenging(name: &str) -> Problem {
    common::read_problem(&format!("../public/examples/minimalloc/challenging/{name}.1048576.csv"))
}

/// A trace large enough that one greedy pass takes about a second or more.
fn huge() -> &'static Problem {
    static HUGE: OnceLock<Problem> = OnceLock::new();
    HUGE.get_or_init(|| memplan::generate::trace(memplan::generate::TraceSpec::new(500_000, 1)))
}

/// Solves on another thread, cancels after each of [`WAITS_BEFORE_CANCEL`] in turn until a run
/// comes back cancelled, and checks that outcome.
fn cancel_midway(name: &str, problem: &Problem, options: SolveOptions) {
    let mut missed = Vec::new();
    for wait in WAITS_BEFORE_CANCEL {
        let options = SolveOptions { cancel: memplan::CancelFlag::new(), ..options.clone() };
        let (run, latency) = std::thread::scope(|scope| {
            let solving = scope.spawn(|| run::solve(problem, name, &options).unwrap());
            std::thread::sleep(wait);
            let cancelled_at = Instant::now();
            options.cancel.cancel();
            let finished = solving.join().unwrap_or_else(|_| panic!("{name} panicked"));
            (finished, cancelled_at.elapsed())
        });
        assert!(run.is_valid(), "{name}: {}", run.violations.join("\n"));
        let outcome = run.outcome;
        if outcome.stopped != Stopped::Cancelled {
            missed.push(format!("cancelled after {wait:?}: {:?} ({:?})", outcome.stopped, outcome.detail));
            continue;
        }
        if outcome.plan.is_some() {
            checked(problem, &outcome);
        }
        for miss in &missed {
            eprintln!("{name}: missed, {miss}");
        }
        eprintln!(
            "{name}: returned {:.1} ms after the cancel, {}",
            latency.as_secs_f64() * 1000.0,
            outcome.makespan().map_or("without a plan".into(), |m| format!("with a plan of makespan {m}"))
        );
        return;
    }
    panic!("{name} never came back cancelled:\n{}", missed.join("\n"));
}

#[test]
fn searches_return_their_best_plan_when_cancelled() {
    let d = challenging("D");
    // Unbounded: MiniMalloc minimising D runs for minutes; at a capacity between its plans and L
    // the search is as long.
    cancel_midway("minimalloc", &d, SolveOptions::default());
    cancel_midway("minimalloc", &d, SolveOptions { capacity: Some(1_000_000), ..SolveOptions::default() });
    let endless = Params::new().with("max_steps", "1000000000000");
    cancel_midway("telamalloc", &d, SolveOptions { params: endless.clone(), ..SolveOptions::default() });
    cancel_midway(
        "telamalloc",
        &d,
        SolveOptions { capacity: Some(1_000_000), params: endless, ..SolveOptions::default() },
    );
    cancel_midway("auto", &d, SolveOptions { effort: Effort::High, ..SolveOptions::default() });
}

#[test]
fn idealloc_returns_its_best_plan_when_cancelled() {
    let problem = memplan::generate::trace(memplan::generate::TraceSpec::new(5_000, 3));
    let options = SolveOptions { params: Params::new().with("iterations", "100000"), ..SolveOptions::default() };
    cancel_midway("idealloc", &problem, options);
}

#[test]
fn heuristics_stop_midway_when_cancelled() {
    let problem = huge();
    for name in ["auto", "slff", "tflite", "xla", "tvm", "first-fit-start", "skyline", "greedy-random-worst", "zant"] {
        cancel_midway(name, problem, SolveOptions::default());
    }
}

#[test]
fn lns_returns_its_best_plan_when_cancelled() {
    let problem = memplan::generate::trace(memplan::generate::TraceSpec::new(20_000, 3));
    // A warm start, so that the cancel lands among the moves, not in the greedy start plan.
    let start = common::quick_start(&problem);
    let options = SolveOptions {
        params: Params::new().with("budget", u64::MAX.to_string()),
        start: Some(std::sync::Arc::new(start)),
        ..SolveOptions::default()
    };
    cancel_midway("lns", &problem, options);
}
