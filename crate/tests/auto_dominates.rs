//! `auto` is never worse than any of its members run alone at the same effort. It runs each
//! search from the start the search has alone, with the same budget and seed, and the cheap
//! members as they run alone (on small instances every member is cheap), so on every instance
//! here its makespan is at most each solver's, at low, normal and high effort. Small instances of
//! every kind: generated traces, mixed alignments, and the small hard ones with alignment and pins
//! or windowed gaps; and MiniMalloc's challenging D, which the searches do not settle.

mod common;

use memplan::generate::{TraceSpec, aligned, trace};
use memplan::run::{self, registry};
use memplan::{Effort, Problem, SolveError, SolveOptions};

fn fixture(name: &str) -> Problem {
    common::read_problem(&format!("tests/fixtures/budgets/{name}"))
}

/// The corpus, by name. Each run gets a fresh copy of the instance: a problem remembers what an
/// earlier solve computed (the window bound), which would let a later run spend its budget
/// elsewhere.
fn corpus() -> Vec<(String, Box<dyn Fn() -> Problem>)> {
    let mut instances: Vec<(String, Box<dyn Fn() -> Problem>)> = Vec::new();
    for (buffers, seed) in [(12, 1), (20, 2), (30, 3), (40, 4), (60, 5)] {
        instances.push((format!("trace {buffers}/{seed}"), Box::new(move || trace(TraceSpec::new(buffers, seed)))));
    }
    for (buffers, seed) in [(10, 1), (16, 2), (24, 3)] {
        instances.push((format!("aligned {buffers}/{seed}"), Box::new(move || aligned(buffers, seed))));
    }
    for name in ["aligned_pinned_24.csv", "windowed_20.csv", "windowed_4.csv"] {
        instances.push((name.to_string(), Box::new(move || fixture(name))));
    }
    instances
}

/// MiniMalloc's challenging instance D (213 buffers): the exact search does not settle it, and
/// `peak` alone (the exact search of its stretch, here the whole instance, with its own budget)
/// once ended 0.3 % below `auto`, which did not run it below 512 buffers.
fn challenging_d() -> Problem {
    common::read_problem("../public/examples/minimalloc/challenging/D.1048576.csv")
}

/// Runs `auto` and every other solver alone on `instance` with `options`, and fails when one of
/// them finds a lower plan.
fn assert_auto_never_above(name: &str, instance: &dyn Fn() -> Problem, options: &SolveOptions) {
    let problem = instance();
    let auto = run::solve(&problem, "auto", options).unwrap();
    assert!(auto.is_valid(), "{name}: {:?}", auto.violations);
    let best = auto.outcome.makespan().unwrap_or_else(|| panic!("{name}: auto has no plan"));
    for solver in registry::all().into_iter().filter(|s| s.name() != "auto") {
        let alone = match run::solve(&instance(), solver.name(), options) {
            Ok(alone) => alone,
            // A solver that cannot honour the instance (pinned buffers) is no rival on it.
            Err(SolveError::Unsupported(_)) => continue,
            Err(other) => panic!("{name}, {}: {other}", solver.name()),
        };
        if let Some(makespan) = alone.outcome.makespan() {
            assert!(
                best <= makespan,
                "{name}: auto {best} (winner {:?}) above {} alone, {makespan}",
                auto.outcome.winner,
                solver.name()
            );
        }
    }
}

/// On an instance the searches do not settle, `auto` runs `peak` as it runs alone (with its own
/// budget, counted in nodes, so the comparison does not depend on the machine).
#[test]
fn auto_on_challenging_d_is_never_above_any_member_alone() {
    let options = SolveOptions { effort: Effort::Low, seed: 0, threads: Some(2), ..SolveOptions::default() };
    assert_auto_never_above("D", &challenging_d, &options);
}

#[test]
fn auto_at_low_effort_is_never_above_any_member_alone() {
    let options = SolveOptions { effort: Effort::Low, seed: 3, threads: Some(2), ..SolveOptions::default() };
    for (name, instance) in corpus() {
        assert_auto_never_above(&name, &instance, &options);
    }
}

#[test]
fn auto_at_normal_effort_is_never_above_any_member_alone() {
    let options = SolveOptions { effort: Effort::Normal, seed: 5, threads: Some(2), ..SolveOptions::default() };
    for (name, instance) in corpus() {
        assert_auto_never_above(&name, &instance, &options);
    }
}

/// The bound too: every member's bound is a proof, so `auto`'s is at least the best of them. On
/// the 24-buffer instance with alignment and pins the stacking member proves 144 (its window
/// bound) where the instance's own bound is 138; the portfolio once kept only the latter.
#[test]
fn auto_keeps_the_best_bound_its_members_prove() {
    let options = SolveOptions { seed: 3, threads: Some(2), ..SolveOptions::default() };
    let stacking = run::solve(&fixture("aligned_pinned_24.csv"), "stacking", &options).unwrap();
    let problem = fixture("aligned_pinned_24.csv");
    assert!(stacking.outcome.lower_bound > problem.lower_bound(), "{:?}", stacking.outcome.lower_bound);
    let auto = run::solve(&problem, "auto", &options).unwrap();
    assert!(
        auto.outcome.lower_bound >= stacking.outcome.lower_bound,
        "auto's bound {} below stacking's {}",
        auto.outcome.lower_bound,
        stacking.outcome.lower_bound
    );
}

#[test]
fn auto_at_high_effort_is_never_above_any_member_alone() {
    let options = SolveOptions { effort: Effort::High, seed: 7, threads: Some(2), ..SolveOptions::default() };
    for (name, instance) in corpus() {
        assert_auto_never_above(&name, &instance, &options);
    }
}
