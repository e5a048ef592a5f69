//! Every solver's claims against optima OR-Tools CP-SAT proved (an oracle that shares nothing
//! with memplan), on small instances with every input feature: plain and windowed gaps, buffers
//! never alive, pins across gaps, alignment and zero sizes (`tests/fixtures/oracle/`, made and
//! solved by `scripts/oracle/gapped_fixtures.py`, run by hand). Each solver, and `auto` through the
//! run at low and normal effort, is run without a capacity, at the optimum and one below it, and
//! every plan must be valid, `optimal` only at the optimum, every lower bound at most the
//! optimum, `infeasible` only below it, and `fits` only within the capacity.

mod common;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use common::{Checked, check_every_solver, exhaustive_optimum_within, naive_plan_errors, read_problem, table_rows};
use memplan::{Problem, SolveOptions, Stopped};

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
    let text =
        std::fs::read_to_string(fixtures().join("optima.csv")).expect("the oracle fixtures are in the repository");
    table_rows(&text, "instance,buffers,optimum,below,seconds")
        .into_iter()
        .map(|cells| Record {
            instance: cells[0].to_string(),
            optimum: cells[2].parse().expect("an optimum is an integer"),
            below_infeasible: cells[3] == "infeasible",
        })
        .collect()
}

fn read(instance: &str) -> Problem {
    read_problem(&format!("tests/fixtures/oracle/{instance}"))
}

/// A bound on each run so that nothing hangs; the claims must hold however a run ends.
const TIME_LIMIT: Duration = Duration::from_millis(500);

/// Every solver's runs on one instance, checked against its record.
fn check_instance(record: &Record) -> (Vec<String>, Vec<Checked>) {
    let problem = read(&record.instance);
    let mut failures = Vec::new();
    if problem.lower_bound() > record.optimum {
        failures.push(format!(
            "{}: the instance's lower bound {} passes the optimum",
            record.instance,
            problem.lower_bound()
        ));
    }
    let options = SolveOptions { time_limit: Some(TIME_LIMIT), ..SolveOptions::default() };
    let checked = check_every_solver(&problem, Some(record.optimum), &options);
    let wrong = checked.iter().filter(|c| !c.wrong.is_empty());
    failures.extend(wrong.map(|c| format!("{} (optimum {}): {c}", record.instance, record.optimum)));
    (failures, checked)
}

/// Per solver: runs, claims checked (optimal, infeasible, a bound of its own) and runs with a
/// false claim, for people reading the test's output.
fn tally(checked: &[Checked]) -> String {
    let mut rows: BTreeMap<&str, [usize; 5]> = BTreeMap::new();
    for c in checked {
        let row = rows.entry(c.solver.as_str()).or_default();
        row[0] += 1;
        row[1] += c.stopped.is_optimal() as usize;
        row[2] += (c.stopped == Stopped::Infeasible) as usize;
        row[3] += c.proved_bound as usize;
        row[4] += !c.wrong.is_empty() as usize;
    }
    let mut text = format!(
        "{:<32} {:>6} {:>8} {:>10} {:>7} {:>6}\n",
        "solver", "runs", "optimal", "infeasible", "bounds", "wrong"
    );
    for (solver, [runs, optimal, infeasible, bounds, wrong]) in rows {
        text.push_str(&format!("{solver:<32} {runs:>6} {optimal:>8} {infeasible:>10} {bounds:>7} {wrong:>6}\n"));
    }
    text
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

/// Two oracles that share no code agree: the exhaustive search (byte by byte, every aligned
/// offset) confirms CP-SAT's optimum on every instance it finishes within its budget of
/// placements, which is most of them.
#[test]
fn the_exhaustive_oracle_confirms_the_recorded_optima() {
    let records = records();
    let mut confirmed = 0;
    for record in &records {
        if let Ok(optimum) = exhaustive_optimum_within(&read(&record.instance), 100_000) {
            assert_eq!(optimum, Some(record.optimum), "{}", record.instance);
            confirmed += 1;
        }
    }
    assert!(confirmed >= 80, "only {confirmed} of {} instances confirmed", records.len());
}

/// Every solver, every claim, on every recorded instance (spread over the machine's threads).
#[test]
fn every_claim_of_every_solver_holds_on_the_fixtures() {
    let records = records();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(8);
    let results: Vec<(Vec<String>, Vec<Checked>)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                let records = &records;
                scope.spawn(move || records.iter().skip(t).step_by(threads).map(check_instance).collect::<Vec<_>>())
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().expect("a worker panicked")).collect()
    });
    let checked: Vec<Checked> = results.iter().flat_map(|(_, c)| c).cloned().collect();
    println!("{}", tally(&checked));
    let failures: Vec<&String> = results.iter().flat_map(|(f, _)| f).collect();
    assert!(
        failures.is_empty(),
        "{} false claims:\n{}",
        failures.len(),
        failures.iter().map(|f| f.as_str()).collect::<Vec<_>>().join("\n")
    );
}
