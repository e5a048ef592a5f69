//! Every solver's claims against optima OR-Tools CP-SAT proved (an oracle that shares nothing
//! with memplan), on small instances with every input feature: plain and windowed gaps, buffers
//! never alive, pins across gaps, alignment and zero sizes (`tests/fixtures/oracle/`, made and
//! solved by `scripts/oracle/gapped_fixtures.py`, run by hand). Each solver, and `auto` through the
//! run at low and normal effort, is run without a capacity, at the optimum and one below it, and
//! every plan must be valid, `optimal` only at the optimum, every lower bound at most the
//! optimum, `infeasible` only below it, and `fits` only within the capacity.

mod common;

use std::path::PathBuf;
use std::time::Duration;

use common::{false_claims_of_every_solver, naive_plan_errors};
use memplan::format::{self, ReadOptions};
use memplan::{Problem, SolveOptions};

/// One row of `optima.csv`: the instance's file, its proven optimum, and whether CP-SAT proved
/// that nothing fits one byte below it.
struct Record {
    instance: String,
    optimum: u64,
    below_infeasible: bool,
}

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/oracle")
}

fn records() -> Vec<Record> {
    let text = std::fs::read_to_string(fixtures().join("optima.csv")).expect("the oracle fixtures are in the repository");
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("instance,buffers,optimum,below,seconds"));
    lines
        .map(|line| {
            let cells: Vec<&str> = line.split(',').collect();
            Record {
                instance: cells[0].to_string(),
                optimum: cells[2].parse().expect("an optimum is an integer"),
                below_infeasible: cells[3] == "infeasible",
            }
        })
        .collect()
}

fn read(instance: &str) -> Problem {
    let text = std::fs::read_to_string(fixtures().join(instance)).expect("every recorded instance has its file");
    format::read(&text, &ReadOptions::default()).unwrap_or_else(|e| panic!("{instance}: {e}")).problem
}

/// A bound on each run so that nothing hangs; the claims must hold however a run ends.
const TIME_LIMIT: Duration = Duration::from_millis(500);

/// Every false claim of every solver on one instance, each line naming the instance.
fn false_claims_on(record: &Record) -> Vec<String> {
    let problem = read(&record.instance);
    let mut failures = Vec::new();
    if problem.lower_bound() > record.optimum {
        failures.push(format!("{}: the instance's lower bound {} passes the optimum", record.instance, problem.lower_bound()));
    }
    let options = SolveOptions { time_limit: Some(TIME_LIMIT), ..SolveOptions::default() };
    let found = false_claims_of_every_solver(&problem, Some(record.optimum), &options);
    failures.extend(found.iter().map(|f| format!("{} (optimum {}): {f}", record.instance, record.optimum)));
    failures
}

/// The records are what CP-SAT proved: at least the instance itself holds (every file reads, and
/// the set is the size the README says, with every optimum proven below).
#[test]
fn the_fixture_set_is_complete() {
    let records = records();
    assert!(records.len() >= 100, "{} instances", records.len());
    for record in &records {
        let problem = read(&record.instance);
        assert!((8..=20).contains(&problem.len()), "{}: {} buffers", record.instance, problem.len());
        assert!(record.below_infeasible, "{}: optimum - 1 not proven infeasible", record.instance);
        // The pins come from a valid plan: they never meet one another.
        let pins: Vec<u64> = problem.buffers().iter().map(|b| b.pinned.unwrap_or(0)).collect();
        let pinned: Vec<usize> = (0..problem.len()).filter(|&i| problem.buffers()[i].pinned.is_some()).collect();
        let only_pinned = Problem::new(pinned.iter().map(|&i| problem.buffers()[i].clone()).collect(), None).unwrap();
        let offsets: Vec<u64> = pinned.iter().map(|&i| pins[i]).collect();
        assert_eq!(naive_plan_errors(&only_pinned, &offsets, None), Vec::<String>::new(), "{}", record.instance);
    }
}

/// Every solver, every claim, on every recorded instance (spread over the machine's threads).
#[test]
fn every_claim_of_every_solver_holds_on_the_fixtures() {
    let records = records();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(8);
    let failures: Vec<String> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                let records = &records;
                scope.spawn(move || {
                    records.iter().skip(t).step_by(threads).flat_map(false_claims_on).collect::<Vec<String>>()
                })
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().expect("a worker panicked")).collect()
    });
    assert!(failures.is_empty(), "{} false claims:\n{}", failures.len(), failures.join("\n"));
}
