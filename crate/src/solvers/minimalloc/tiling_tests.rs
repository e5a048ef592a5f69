//! The tiling search (MiniMalloc's first search at a tight capacity): on tight instances (every
//! section with a live buffer exactly full) it agrees with the canonical search and with the
//! brute-force oracle, every plan passes the validator, and it stays out of the way where the
//! capacity is not tight.

use proptest::prelude::*;

use crate::Solver;
use crate::generate::{PerfectSpec, perfect_with_plan};
use crate::model::{Buffer, Outcome, Plan, Problem, StatValue, Stopped};
use crate::options::{Deadline, SolveOptions};
use crate::solvers::minimalloc::Rules;
use crate::solvers::tiling::{Ending, Tiling};
use crate::test_support::{brute_force_optimum, checked, instances, with_rules};

/// A small perfect packing (feasible at its height), maybe with some buffers given an alignment,
/// which may make it infeasible.
fn perfect_packings() -> impl Strategy<Value = Problem> {
    (
        3usize..=12,
        any::<u64>(),
        4u64..=24,
        1usize..=4,
        prop::collection::vec(prop::sample::select(vec![1u64, 1, 2, 4]), 12),
    )
        .prop_map(|(buffers, seed, height, alive, alignments)| {
            let spec = PerfectSpec { buffers, seed, height, alive };
            let (list, _) = perfect_with_plan(spec);
            let list = list.into_iter().zip(alignments.iter().cycle()).map(|(b, &a)| b.with_alignment(a)).collect();
            Problem::new(list, None).expect("a perfect packing is valid")
        })
}

/// Random buffers with one-section fillers added wherever a section has room, so that every
/// section holds exactly the peak load: tight, and feasible or not.
fn filled_instances(max_buffers: usize) -> impl Strategy<Value = Problem> {
    prop::collection::vec((0u64..8, 1u64..5, 1u64..8), 1..=max_buffers).prop_map(|specs| {
        let mut buffers: Vec<Buffer> = specs
            .iter()
            .enumerate()
            .map(|(i, &(start, length, size))| Buffer::new(format!("b{i}"), start, start + length, size))
            .collect();
        let end = buffers.iter().map(|b| b.end).max().unwrap_or(0);
        let load =
            |t: u64, list: &[Buffer]| list.iter().filter(|b| b.start <= t && t < b.end).map(|b| b.size).sum::<u64>();
        let peak = (0..end).map(|t| load(t, &buffers)).max().unwrap_or(0);
        for t in 0..end {
            let room = peak - load(t, &buffers);
            if room > 0 {
                buffers.push(Buffer::new(format!("f{t}"), t, t + 1, room));
            }
        }
        Problem::new(buffers, None).expect("generated buffers are valid")
    })
}

/// Feasibility at `capacity` by MiniMalloc with `rules` (plans validated), and which search
/// decided it.
fn decide(rules: Rules, problem: &Problem, capacity: u64) -> (bool, Option<String>) {
    let options = SolveOptions { capacity: Some(capacity), ..SolveOptions::default() };
    let outcome = with_rules(rules).solve(problem, &options).unwrap();
    let ordering = match outcome.stats.get("ordering") {
        Some(StatValue::Text(name)) => Some(name.clone()),
        _ => None,
    };
    let fits = match outcome.stopped {
        Stopped::Infeasible => false,
        Stopped::Fits | Stopped::LowerBound | Stopped::Optimal => {
            assert!(checked(problem, &outcome).makespan <= capacity);
            true
        }
        other => panic!("no limit: the answer is a proof, not {other:?}"),
    };
    (fits, ordering)
}

/// The tiling search alone, to the end: a validated plan, or `false` for a proof.
fn tiling_fits(problem: &Problem, capacity: u64) -> bool {
    let mut tiling = Tiling::new(problem, capacity).expect("the instance is tight");
    match tiling.run(u64::MAX, &Deadline::none()) {
        Ending::Solved { offsets, placement_order } => {
            let plan = Plan::new(problem, offsets, placement_order);
            let outcome = Outcome::new("tiling", problem, Some(capacity), Some(plan), 0, Stopped::Fits);
            assert!(checked(problem, &outcome).makespan <= capacity);
            true
        }
        Ending::Exhausted => false,
        Ending::Stopped => panic!("no limit, yet stopped"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 192, ..ProptestConfig::default() })]

    /// On tight instances, with the tiling search on (which then decides) or off, MiniMalloc gives
    /// the same answer at the peak load, and so does the tiling search alone; on small ones the
    /// brute-force optimum agrees too.
    #[test]
    fn tiling_agrees_on_tight_instances(problem in prop_oneof![perfect_packings(), filled_instances(6)]) {
        let capacity = problem.max_load();
        let (reference, _) = decide(Rules { tiling: false, ..Rules::default() }, &problem, capacity);
        // Without the window bound, which may refute the capacity before any search runs.
        let (with_tiling, ordering) = decide(Rules { windows: false, ..Rules::default() }, &problem, capacity);
        prop_assert_eq!(with_tiling, reference);
        prop_assert_eq!(ordering.as_deref(), Some("tiling"), "a tight capacity is decided by the tiling search");
        prop_assert_eq!(tiling_fits(&problem, capacity), reference);
        if problem.len() <= 7 {
            prop_assert_eq!(brute_force_optimum(&problem) == capacity, reference);
        }
    }

    /// Where the capacity is not tight (above the peak, or sections below it) the tiling search
    /// does not apply, and the answers are the canonical search's.
    #[test]
    fn tiling_stays_out_where_the_capacity_has_room(problem in instances(7, 16), extra in 0u64..3) {
        let capacity = problem.max_load() + extra;
        let tight = Tiling::new(&problem, capacity).is_some();
        if tight {
            prop_assert!(extra == 0 && !problem.has_pinned());
        }
        let (reference, _) = decide(Rules { tiling: false, ..Rules::default() }, &problem, capacity);
        let (with_tiling, _) = decide(Rules::default(), &problem, capacity);
        prop_assert_eq!(with_tiling, reference);
    }
}
