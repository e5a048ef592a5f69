//! Every solver's default run ends by itself: without a time limit, each works to a budget counted
//! in work (nodes, steps, iterations) for its effort and says `budget` when the budget, not a
//! proof, ended it. The instances are small ones on which the exact search cannot prove the
//! optimum quickly (alignment and two pinned buffers; windowed gaps), where a solver without a
//! budget would search for minutes.
//!
//! No time is measured: a watchdog cancels a run that is still going after a very long while,
//! and the test then fails on the `cancelled` reason instead of hanging. (A time limit would not
//! do as the safety net: with one, the searches drop their budgets and let the clock decide.)

use std::sync::mpsc;
use std::thread;
use std::time::Duration;

mod common;

use memplan::run::{self, registry};
use memplan::{CancelFlag, Problem, SolveError, SolveOptions, Stopped};

/// Far longer than any budget takes in a test build; only a run without a budget reaches it.
const WATCHDOG: Duration = Duration::from_secs(600);

fn fixture(name: &str) -> Problem {
    common::read_problem(&format!("tests/fixtures/budgets/{name}"))
}

/// Runs `solver` at its defaults (normal effort, no time limit), cancelled by a watchdog if it is
/// still running after [`WATCHDOG`].
fn run_with_watchdog(problem: &Problem, solver: &str) -> Result<run::Run, SolveError> {
    let cancel = CancelFlag::new();
    let (done, finished) = mpsc::channel::<()>();
    let watchdog = {
        let cancel = cancel.clone();
        thread::spawn(move || {
            if finished.recv_timeout(WATCHDOG).is_err() {
                cancel.cancel();
            }
        })
    };
    let options = SolveOptions { cancel, threads: Some(1), ..SolveOptions::default() };
    let result = run::solve(problem, solver, &options);
    // The watchdog may have gone already (it cancelled); a closed channel is no error then.
    let _ = done.send(());
    watchdog.join().expect("the watchdog does not panic");
    result
}

fn every_solver_ends_by_itself_on(name: &str) {
    let problem = fixture(name);
    for solver in registry::all() {
        let solver_name = solver.name();
        let run = match run_with_watchdog(&problem, solver_name) {
            Ok(run) => run,
            // A solver that cannot honour the instance (pinned buffers, windows) says so at once.
            Err(SolveError::Unsupported(_)) => continue,
            Err(other) => panic!("{name}, {solver_name}: {other}"),
        };
        let outcome = &run.outcome;
        assert!(run.is_valid(), "{name}, {solver_name}: {:?}", run.violations);
        assert!(
            !matches!(outcome.stopped, Stopped::Cancelled | Stopped::TimeLimit),
            "{name}, {solver_name}: still running after {WATCHDOG:?} (stopped: {:?}): no budget ended it",
            outcome.stopped
        );
        assert!(outcome.plan.is_some(), "{name}, {solver_name}: no plan ({:?})", outcome.stopped);
        // A run that claims no proof says why it stopped: its budget ran out or it ran its course.
        if !outcome.optimal() {
            assert!(
                matches!(outcome.stopped, Stopped::Budget | Stopped::Completed),
                "{name}, {solver_name}: unproven plan stopped for {:?}",
                outcome.stopped
            );
        }
    }
}

#[test]
fn every_solver_ends_by_itself_on_small_aligned_pinned_instance() {
    every_solver_ends_by_itself_on("aligned_pinned_24.csv");
}

#[test]
fn every_solver_ends_by_itself_on_small_windowed_instance() {
    every_solver_ends_by_itself_on("windowed_20.csv");
}
