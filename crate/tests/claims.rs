//! Every solver's claims against an exhaustive oracle, on tiny instances with every input feature
//! (plain and windowed gaps, buffers never alive, pins, alignment, zero sizes): every plan valid,
//! `optimal` only at the optimum, every lower bound at most the optimum, `infeasible` only where
//! no plan fits, and `fits` only within the capacity; a plan given with the input (`memplan
//! check`) is held to the same. The oracle (`common::exhaustive_plan`) decides conflicts byte by
//! byte and tries every aligned offset; its own tests come first.

mod common;

use std::time::Duration;

use common::{
    brute_force_optimum, exhaustive_optimum, exhaustive_plan, false_claims_of_every_solver, feasible_within,
    naive_makespan, naive_plan_errors, oracle_instances, to_csv,
};
use memplan::{Buffer, Gap, Problem, SolveOptions, Stopped, validate};
use proptest::prelude::*;

/// A problem of hand-made buffers.
fn problem(buffers: Vec<Buffer>) -> Problem {
    Problem::new(buffers, None).expect("hand-made buffers are valid")
}

/// The oracle's plan at its optimum is a valid plan (by the definition and by memplan's
/// validator), and the optimum is the least capacity a plan fits in.
fn assert_oracle_consistent(problem: &Problem) -> Option<u64> {
    let optimum = exhaustive_optimum(problem);
    if let Some(optimum) = optimum {
        let plan = exhaustive_plan(problem, None).expect("an optimum comes with its plan");
        assert_eq!(naive_plan_errors(problem, &plan, None), Vec::<String>::new());
        assert!(validate::validate(problem, &plan, None).is_valid());
        assert_eq!(naive_makespan(problem, &plan), optimum);
        assert!(feasible_within(problem, optimum));
        if optimum > 0 {
            assert!(!feasible_within(problem, optimum - 1), "a plan fits {} below the optimum", optimum - 1);
        }
    }
    optimum
}

#[test]
fn the_oracle_counts_a_buffer_never_alive_by_its_size_alone() {
    // a's gap covers its whole lifetime: it holds nothing, so b may share its bytes.
    let p = problem(vec![Buffer::new("a", 0, 10, 4).with_gaps(vec![Gap::new(0, 10)]), Buffer::new("b", 0, 10, 4)]);
    assert_eq!(assert_oracle_consistent(&p), Some(4));
}

#[test]
fn the_oracle_accepts_pins_whose_live_pieces_do_not_meet() {
    // x is alive in [7, 9) at bytes [41, 100), y in [9, 10) at [89, 96): their hulls meet, they do not.
    let p = problem(vec![
        Buffer::new("x", 7, 10, 59).pinned_at(41).with_gaps(vec![Gap::new(9, 10)]),
        Buffer::new("y", 7, 10, 7).pinned_at(89).with_gaps(vec![Gap::new(7, 9)]),
    ]);
    assert_eq!(assert_oracle_consistent(&p), Some(100));
    // Without the gaps the same pins meet: no plan at all.
    let hulls = problem(p.buffers().iter().map(Buffer::hull).collect());
    assert_eq!(exhaustive_optimum(&hulls), None);
    assert!(!feasible_within(&hulls, 1000));
}

#[test]
fn the_oracle_places_windowed_buffers_by_their_windows() {
    // During 2-8 buffer 2 holds only its bytes [0, 10): buffer 3 fits above them, inside it.
    let p = problem(vec![
        Buffer::new("0", 0, 10, 100).with_gaps(vec![Gap::new(3, 7)]),
        Buffer::new("1", 3, 7, 100),
        Buffer::new("2", 0, 10, 50).with_gaps(vec![Gap::windowed(2, 8, 0, 10)]),
        Buffer::new("3", 2, 8, 40),
    ]);
    assert_eq!(assert_oracle_consistent(&p), Some(150));
}

#[test]
fn the_oracle_follows_the_definition_on_small_cases() {
    // No buffers: nothing to place.
    assert_eq!(exhaustive_optimum(&problem(Vec::new())), Some(0));
    // A zero-size buffer holds nothing, but a pinned one still has its top.
    let p = problem(vec![Buffer::new("z", 0, 4, 0).pinned_at(12), Buffer::new("a", 0, 4, 5)]);
    assert_eq!(assert_oracle_consistent(&p), Some(12));
    // Alignment: of two 3-byte buffers aligned to 4, the upper one starts at 4, not 3.
    let p = problem(vec![Buffer::new("a", 0, 4, 3).with_alignment(4), Buffer::new("b", 0, 4, 3).with_alignment(4)]);
    assert_eq!(assert_oracle_consistent(&p), Some(7));
    // A window in the middle of the buffer: while b is alive, a holds only its bytes [2, 4), so
    // b fits below them when a sits at 2 (b at 0), and the best top is 8 where the hulls need 10.
    let p =
        problem(vec![Buffer::new("a", 0, 4, 6).with_gaps(vec![Gap::windowed(0, 2, 2, 4)]), Buffer::new("b", 0, 2, 4)]);
    assert_eq!(assert_oracle_consistent(&p), Some(8));
    // Two pinned buffers that meet: no plan.
    let p = problem(vec![Buffer::new("a", 0, 4, 4).pinned_at(0), Buffer::new("b", 2, 6, 4).pinned_at(2)]);
    assert_eq!(exhaustive_optimum(&p), None);
    // Plain gaps that leave the two alive at different times: they share their bytes.
    let p = problem(vec![
        Buffer::new("a", 0, 6, 5).with_gaps(vec![Gap::new(3, 6)]),
        Buffer::new("b", 0, 6, 5).with_gaps(vec![Gap::new(0, 3)]),
    ]);
    assert_eq!(assert_oracle_consistent(&p), Some(5));
}

/// Every false claim of every solver on `problem`, against the exhaustive optimum, with the
/// instance (as CSV) to reproduce them.
fn every_false_claim(problem: &Problem, seed: u64) -> Vec<String> {
    let optimum = exhaustive_optimum(problem);
    let mut failures = Vec::new();
    if let Some(optimum) = optimum
        && problem.lower_bound() > optimum
    {
        failures.push(format!("the instance's lower bound {} passes the optimum {optimum}", problem.lower_bound()));
    }
    // A bound on each run so that nothing hangs; the claims hold however the run ends.
    let options = SolveOptions { time_limit: Some(Duration::from_millis(500)), seed, ..SolveOptions::default() };
    failures.extend(false_claims_of_every_solver(problem, optimum, &options).iter().map(|f| f.to_string()));
    if !failures.is_empty() {
        failures.push(format!("optimum {optimum:?} of\n{}", to_csv(problem)));
    }
    failures
}

/// What the outcome of a plan given with the input (`memplan::run::given`, as `memplan check`
/// makes it) states falsely, against the definition and the exhaustive optimum, with the instance
/// to reproduce it; empty when every claim holds.
fn given_plan_false_claims(problem: &Problem, offsets: &[u64], capacity: Option<u64>) -> Vec<String> {
    let optimum = exhaustive_optimum(problem);
    let run = memplan::run::given(problem, offsets.to_vec(), capacity);
    let errors = naive_plan_errors(problem, offsets, capacity);
    let outcome = &run.outcome;
    let makespan = naive_makespan(problem, offsets);
    let mut wrong = Vec::new();
    if run.violations.is_empty() != errors.is_empty() {
        wrong.push(format!("the run lists {:?} where the definition finds {errors:?}", run.violations));
    }
    if outcome.stopped.is_optimal() && !(errors.is_empty() && Some(makespan) == optimum) {
        wrong.push(format!("{:?} for a plan of {makespan} with errors {errors:?}", outcome.stopped));
    }
    if let Some(optimum) = optimum {
        if outcome.lower_bound > optimum {
            wrong.push(format!("lower bound {} above the optimum {optimum}", outcome.lower_bound));
        }
        if outcome.stopped == Stopped::Infeasible && capacity.is_none_or(|c| optimum <= c) {
            wrong.push(format!("infeasible at capacity {capacity:?}, but the optimum {optimum} fits"));
        }
    }
    if outcome.stopped == Stopped::Fits && !errors.is_empty() {
        wrong.push(format!("fits the capacity {capacity:?} with errors {errors:?}"));
    }
    if !wrong.is_empty() {
        wrong.push(format!("plan {offsets:?} at capacity {capacity:?}, optimum {optimum:?} of\n{}", to_csv(problem)));
    }
    wrong
}

/// Reads an instance written like memplan's CSV.
fn csv(text: &str) -> Problem {
    memplan::format::read(text, &memplan::format::ReadOptions::default()).expect("a valid instance").problem
}

/// The smallest instances known to have drawn a false claim from some solver (or from a given
/// plan's check), kept here so that every solver meets them on every run, whatever the random
/// instances of the property tests happen to be.
#[test]
fn every_solver_is_truthful_on_the_smallest_known_traps() {
    let traps = [
        // A buffer never alive (its gap covers its lifetime) beside one alive throughout: optimum 4.
        "id,lower,upper,size,gaps\na,0,10,4,0-10\nb,0,10,4,\n",
        // The same, smallest: optimum 1.
        "id,lower,upper,size,gaps\nb1,2,3,1,\nb4,2,3,1,2-3\n",
        // Never alive with others spanning the time: optimum 12.
        "id,lower,upper,size,alignment,gaps\nb0,1,6,2,1,\nb1,1,6,8,1,\nb2,3,4,2,1,\nb3,0,3,0,1,0-1\nb4,2,3,5,2,2-3\n",
        // Pinned buffers whose hulls meet but whose live pieces do not: valid at 100.
        "id,lower,upper,size,offset,gaps\nx,7,10,59,41,9-10\ny,7,10,7,89,7-9\n",
        // The same, smallest: both pinned at 0, one never alive; optimum 1.
        "id,lower,upper,size,offset,gaps\nb0,0,1,1,0,\nb1,0,2,1,0,0-2\n",
        // Pinned across a gap beside an unpinned buffer: optimum 6.
        "id,lower,upper,size,offset,gaps\nb0,0,1,4,2,\nb1,0,1,2,1,0-1\n",
        // Windows: optimum 150 (the hulls need 190).
        "id,lower,upper,size,gaps\n0,0,10,100,3-7\n1,3,7,100,\n2,0,10,50,2-8@0:10\n3,2,8,40,\n",
        // A single buffer never alive: optimum 5.
        "id,lower,upper,size,gaps\nb0,3,6,5,3-6\n",
    ];
    let options = SolveOptions { time_limit: Some(Duration::from_millis(500)), ..SolveOptions::default() };
    let mut failures = Vec::new();
    for text in traps {
        let problem = csv(text);
        let optimum = exhaustive_optimum(&problem);
        let found = false_claims_of_every_solver(&problem, optimum, &options);
        failures.extend(found.iter().map(|f| format!("{f}\n{text}")));
    }
    // A plan given with the input that overlaps, and one that moves a pinned zero-size buffer:
    // neither proves anything.
    let overlapping = csv("id,lower,upper,size\na,0,2,4\nb,1,3,4\n");
    let moved = csv("id,lower,upper,size,offset\nz,0,1,0,9\n");
    for (problem, offsets) in [(&overlapping, vec![0, 2]), (&moved, vec![0])] {
        for capacity in [None, Some(3)] {
            failures.extend(given_plan_false_claims(problem, &offsets, capacity));
        }
    }
    assert!(failures.is_empty(), "false claims:\n{}", failures.join("\n"));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Two oracles that share no code agree where both apply: first fit over every order (which
    /// counts a windowed gap as alive, and sets zero-size buffers apart like others, so they are
    /// left out here) and the exhaustive search on the instance with its windows made plain
    /// alive. The exhaustive plan is valid and nothing fits below its optimum.
    #[test]
    fn the_exhaustive_oracle_agrees_with_first_fit_over_every_order(problem in oracle_instances(5)) {
        let sized: Vec<Buffer> = problem.buffers().iter().filter(|b| b.size > 0).cloned().collect();
        if sized.is_empty() {
            return Ok(());
        }
        let problem = Problem::new(sized, None).unwrap();
        let Some(optimum) = assert_oracle_consistent(&problem) else { return Ok(()) };
        let unwindowed: Vec<Buffer> = problem
            .buffers()
            .iter()
            .map(|b| {
                let gaps = b.gaps.iter().filter(|g| g.window.is_none()).copied().collect();
                b.clone().with_gaps(gaps)
            })
            .collect();
        let unwindowed = Problem::new(unwindowed, None).unwrap();
        // Windows made alive can make pins meet, which first fit does not see: no plan then.
        let Some(unwindowed_optimum) = exhaustive_optimum(&unwindowed) else { return Ok(()) };
        let first_fit = brute_force_optimum(&problem);
        prop_assert_eq!(unwindowed_optimum, first_fit, "{}", to_csv(&problem));
        // A window only removes bytes: the optimum with windows is no higher.
        prop_assert!(optimum <= first_fit);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, max_shrink_iters: 256, ..ProptestConfig::default() })]

    /// Every solver, every claim, against the exhaustive optimum.
    #[test]
    fn every_claim_of_every_solver_holds(problem in oracle_instances(5), seed in 0u64..4) {
        let failures = every_false_claim(&problem, seed);
        prop_assert!(failures.is_empty(), "false claims:\n{}", failures.join("\n"));
    }

    /// A plan given with the input (`memplan check`) proves nothing beyond what the instance does:
    /// `optimal` only for a valid plan at the optimum, a lower bound at most the optimum,
    /// `infeasible` only where nothing fits, `fits` only for a valid plan within the capacity,
    /// and the run lists violations exactly when the definition finds some.
    #[test]
    fn a_given_plan_claims_only_what_is_true(
        problem in oracle_instances(5),
        picks in prop::collection::vec((0u64..24, 0u8..4), 5),
        below in 0u64..3,
    ) {
        let offsets: Vec<u64> = problem
            .buffers()
            .iter()
            .zip(&picks)
            .map(|(b, &(at, keep))| match b.pinned {
                Some(pinned) if keep > 0 => pinned,
                _ => at / b.alignment() * b.alignment(),
            })
            .collect();
        let optimum = exhaustive_optimum(&problem);
        for capacity in [None, optimum.map(|o| o.saturating_sub(below))] {
            let wrong = given_plan_false_claims(&problem, &offsets, capacity);
            prop_assert!(wrong.is_empty(), "{}", wrong.join("\n"));
        }
    }
}
