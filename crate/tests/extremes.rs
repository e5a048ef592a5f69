//! Every solver at the edges of u64: capacities u64::MAX, u64::MAX - 1 and 2^63, sizes, pinned
//! offsets and alignments near u64::MAX. Each answer is a plan the independent validator accepts,
//! or a clean refusal (`SolveError`), never a panic or an invalid plan; refusals that claim a proof
//! never contradict a plan that fits; and the greedy presets agree with one another.

mod common;

use common::{declines, every_planner};
use memplan::solvers::Solver;
use memplan::solvers::greedy::{self, Fit, Greedy, Order, Pass};
use memplan::{Buffer, Effort, Outcome, Params, Problem, SolveError, SolveOptions, Stopped, validate};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

const HALF: u64 = 1 << 63;

/// A size: mostly small, sometimes within a few bytes of u64::MAX, 2^63 or a third of u64::MAX.
fn size() -> impl Strategy<Value = u64> {
    prop_oneof![
        3 => 1u64..9,
        1 => (0u64..8).prop_map(|k| u64::MAX - k),
        1 => (0u64..8).prop_map(|k| HALF - k),
        1 => (0u64..8).prop_map(|k| HALF + k),
        1 => (0u64..8).prop_map(|k| u64::MAX / 3 - k),
    ]
}

/// Where a pinned buffer goes: low, at 2^63, or as high as its size allows (rounded down to its
/// alignment by the generator).
#[derive(Clone, Copy, Debug)]
enum Pin {
    None,
    Low(u64),
    Half,
    Top(u64),
}

fn pin() -> impl Strategy<Value = Pin> {
    prop_oneof![
        6 => Just(Pin::None),
        1 => (0u64..16).prop_map(Pin::Low),
        1 => Just(Pin::Half),
        1 => (0u64..8).prop_map(Pin::Top),
    ]
}

/// Up to `max_buffers` buffers with values near u64::MAX. A buffer that would make the instance
/// invalid (a max load or a pinned top past u64) is left out; pinned buffers may clash.
fn instances(max_buffers: usize) -> impl Strategy<Value = Problem> {
    let alignment = prop::sample::select(vec![1u64, 1, 1, 1, 2, 8, 1 << 62, HALF]);
    let buffer = (0u64..6, 1u64..4, size(), alignment, pin());
    prop::collection::vec(buffer, 1..=max_buffers).prop_map(|specs| {
        let mut buffers: Vec<Buffer> = Vec::new();
        for (i, (start, length, size, alignment, pin)) in specs.into_iter().enumerate() {
            let mut buffer = Buffer::new(format!("b{i}"), start, start + length, size).with_alignment(alignment);
            let highest = u64::MAX - size;
            buffer.pinned = match pin {
                Pin::None => None,
                Pin::Low(at) => Some(at.min(highest)),
                Pin::Half => Some(HALF.min(highest)),
                Pin::Top(below) => Some(highest.saturating_sub(below)),
            }
            .map(|at| at / alignment * alignment);
            buffers.push(buffer);
            if Problem::new(buffers.clone(), None).is_err() {
                buffers.pop();
            }
        }
        Problem::new(buffers, None).expect("each buffer kept leaves a valid instance")
    })
}

/// Capacities at the edges, and some near what the instance needs.
fn capacity(problem: &Problem, pick: u8, slack: u64) -> Option<u64> {
    let need = problem.lower_bound();
    match pick % 10 {
        0 => None,
        9 => Some(0),
        1 => Some(u64::MAX),
        2 => Some(u64::MAX - 1),
        3 => Some(HALF),
        4 => Some(HALF - 1),
        5 => Some(need.saturating_add(slack)),
        6 => Some(need.saturating_sub(slack).max(1)),
        7 => Some(problem.max_load().saturating_add(slack)),
        8 => Some(u64::MAX - slack),
        _ => unreachable!("a pick modulo 10"),
    }
}

/// Small work budgets for every solver that declares one, so that a case stays quick and a run is
/// reproducible; and idealloc's start address, which may be near u64::MAX too.
fn options(solver: &dyn Solver, capacity: Option<u64>, seed: u64, start_address: u64) -> SolveOptions {
    let mut params = Params::new();
    for parameter in solver.parameters() {
        match parameter.name {
            "budget" => params.set("budget", "2000"),
            "max-steps" => params.set("max-steps", "2000"),
            "iterations" => params.set("iterations", "3"),
            "start-address" => params.set("start-address", start_address.to_string()),
            _ => {}
        }
    }
    SolveOptions { capacity, seed, effort: Effort::Normal, params, ..SolveOptions::default() }
}

/// What a solver answered, once checked.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Answer {
    /// A valid plan; `fits` when within the capacity (always without one).
    Plan { fits: bool, makespan: u64 },
    /// A proof that nothing fits.
    Infeasible,
    /// This solver's plan would pass u64.
    Overflow,
}

/// The one place that reads `Solver::solve`'s result: every outcome must pass the validator
/// (with the capacity when it claims to fit), claim to fit exactly when its plan does, and an
/// outcome without a plan must be a proof of infeasibility or an overflow (a heuristic that ran
/// its course without a plan: its offsets would pass u64).
fn check(
    problem: &Problem,
    name: &str,
    capacity: Option<u64>,
    result: Result<Outcome, SolveError>,
) -> Result<Answer, TestCaseError> {
    let outcome = result.map_err(|error| TestCaseError::fail(format!("{name} at capacity {capacity:?}: {error}")))?;
    let report = validate::validate_outcome(problem, &outcome);
    prop_assert!(report.is_valid(), "{} at capacity {:?}: {}", name, capacity, report.describe(problem));
    match &outcome.plan {
        Some(plan) => {
            let fits = capacity.is_none_or(|c| plan.makespan <= c);
            prop_assert_eq!(outcome.feasible(), fits, "{} at capacity {:?}: feasible flag", name, capacity);
            Ok(Answer::Plan { fits, makespan: plan.makespan })
        }
        None if outcome.stopped == Stopped::Infeasible => Ok(Answer::Infeasible),
        None => {
            prop_assert_eq!(outcome.stopped, Stopped::Completed, "{} at capacity {:?}", name, capacity);
            Ok(Answer::Overflow)
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn every_solver_plans_or_refuses_cleanly(
        problem in instances(6),
        pick in any::<u8>(),
        slack in 0u64..4,
        seed in any::<u64>(),
        start_address in prop_oneof![3 => Just(0u64), 1 => 1u64..9, 1 => Just(HALF), 1 => (0u64..9).prop_map(|k| u64::MAX - k)],
    ) {
        let capacity = capacity(&problem, pick, slack);
        let mut answers = Vec::new();
        for solver in every_planner().into_iter().filter(|s| !declines(s.as_ref(), &problem)) {
            let result = solver.solve(&problem, &options(solver.as_ref(), capacity, seed, start_address));
            answers.push((solver.name().to_string(), check(&problem, solver.name(), capacity, result)?));
        }
        // A proof that nothing fits never meets a plan that fits.
        let fitted = answers.iter().find(|(_, a)| matches!(a, Answer::Plan { fits: true, .. }));
        let refuted = answers.iter().find(|(_, a)| *a == Answer::Infeasible);
        if let (Some((planner, plan)), Some((prover, _))) = (fitted, refuted) {
            prop_assert!(false, "{} proved infeasible at {:?}, {} found {:?}", prover, capacity, planner, plan);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Larger instances (up to 16 buffers, so that the searches branch) scaled so that their max
    /// load comes within a factor of two of u64::MAX: sizes and pinned offsets are multiplied, and
    /// a plan of the original scales into one of these. At the scaled lower bound, one byte less,
    /// and u64::MAX, every solver plans or refuses cleanly.
    #[test]
    fn scaled_instances_plan_or_refuse_cleanly(problem in common::instances(16, 64), pick in 0u8..4, seed in any::<u64>()) {
        let factor = u64::MAX / 2 / problem.lower_bound().max(1);
        let buffers: Vec<Buffer> = problem
            .buffers()
            .iter()
            .map(|b| {
                let mut scaled = b.clone();
                scaled.size = b.size * factor;
                scaled.pinned = b.pinned.map(|p| p * factor);
                scaled
            })
            .collect();
        let scaled = Problem::new(buffers, None).expect("scaling keeps an instance valid");
        let capacity = match pick {
            0 => None,
            1 => Some(scaled.lower_bound()),
            2 => Some(scaled.lower_bound() - 1),
            _ => Some(u64::MAX),
        };
        for solver in every_planner().into_iter().filter(|s| !declines(s.as_ref(), &scaled)) {
            let result = solver.solve(&scaled, &options(solver.as_ref(), capacity, seed, 0));
            check(&scaled, solver.name(), capacity, result)?;
        }
    }
}

/// One greedy run written from its definition in u128, so that a top past u64 is seen rather
/// than refused: the offsets, or `None` when two pinned buffers clash.
fn naive_run(problem: &Problem, run: Pass, seed: u64) -> Option<Vec<u128>> {
    let b = problem.buffers();
    let mut offsets = vec![0u128; b.len()];
    let mut placed: Vec<usize> = Vec::new();
    let overlaps = |offsets: &[u128], i: usize, j: usize, at: u128| {
        b[i].overlaps_in_time(&b[j]) && offsets[j] < at + b[i].size as u128 && at < offsets[j] + b[j].size as u128
    };
    for (i, buffer) in b.iter().enumerate() {
        if let Some(at) = buffer.pinned {
            if placed.iter().any(|&j| overlaps(&offsets, i, j, at as u128)) {
                return None;
            }
            offsets[i] = at as u128;
            placed.push(i);
        }
    }
    let align = |value: u128, alignment: u64| value.div_ceil(alignment as u128) * alignment as u128;
    for i in run.order.arrange(b, seed) {
        if b[i].pinned.is_some() {
            continue;
        }
        let size = b[i].size as u128;
        // The free gaps among the placed buffers alive with i: bounded ones, then the open top.
        let mut taken: Vec<(u128, u128)> = placed
            .iter()
            .filter(|&&j| b[j].overlaps_in_time(&b[i]))
            .map(|&j| (offsets[j], offsets[j] + b[j].size as u128))
            .collect();
        taken.sort();
        let (mut gaps, mut covered) = (Vec::new(), 0u128);
        for (low, high) in taken {
            if low > covered {
                gaps.push((covered, low));
            }
            covered = covered.max(high);
        }
        let top = align(covered, b[i].alignment());
        let fitting = gaps.iter().filter_map(|&(low, high)| {
            let at = align(low, b[i].alignment());
            (at + size <= high).then_some((high - low, at))
        });
        offsets[i] = match run.fit {
            Fit::First => fitting.map(|(_, at)| at).next(),
            Fit::Best => fitting.min_by_key(|&(length, at)| (length, at)).map(|(_, at)| at),
            Fit::Worst => fitting.max_by_key(|&(length, at)| (length, std::cmp::Reverse(at))).map(|(_, at)| at),
            Fit::Top => None,
        }
        .unwrap_or(top);
        placed.push(i);
    }
    Some(offsets)
}

/// What a greedy planner must answer by its definition: the plan of its lowest run among those
/// that stay within u64 (the first on ties), `Overflow` when every run passes u64, `Infeasible`
/// when pinned buffers clash.
fn greedy_by_definition(problem: &Problem, planner: &Greedy, seed: u64) -> Result<Vec<u64>, Answer> {
    let mut best: Option<(u128, Vec<u64>)> = None;
    for &run in planner.passes() {
        let offsets = naive_run(problem, run, seed).ok_or(Answer::Infeasible)?;
        let tops = problem.buffers().iter().zip(&offsets).map(|(b, &at)| at + b.size as u128);
        let makespan = tops.max().unwrap_or(0);
        if makespan <= u64::MAX as u128 && best.as_ref().is_none_or(|(m, _)| makespan < *m) {
            best = Some((makespan, offsets.iter().map(|&at| at as u64).collect()));
        }
    }
    best.map(|(_, offsets)| offsets).ok_or(Answer::Overflow)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Each greedy preset and every `greedy-<order>-<fit>` answers as its definition does near
    /// u64::MAX, so they agree on whether a plan exists except where their own orders differ:
    /// where every order fits in u64 (the sizes and alignment slack add up to at most u64::MAX),
    /// all of them plan; where pinned buffers clash, all of them refuse.
    #[test]
    fn greedy_planners_answer_as_defined(problem in instances(6), seed in any::<u64>()) {
        let mut planners = greedy::preset_planners();
        for order in Order::ALL {
            for fit in Fit::ALL {
                planners.push(Greedy::combination(Pass::new(order, fit)));
            }
        }
        let slack: u128 = problem.buffers().iter().map(|b| b.size as u128 + b.alignment() as u128 - 1).sum::<u128>()
            + problem.buffers().iter().filter_map(|b| b.pinned.map(|p| p as u128 + b.size as u128)).max().unwrap_or(0);
        let every_order_fits = slack <= u64::MAX as u128;
        for planner in &planners {
            let options = SolveOptions { seed, ..SolveOptions::default() };
            let answer = check(&problem, planner.name(), None, planner.solve(&problem, &options));
            let expected = greedy_by_definition(&problem, planner, seed);
            match (answer?, expected) {
                (Answer::Plan { .. }, Ok(offsets)) => {
                    let outcome = planner.solve(&problem, &options).unwrap();
                    prop_assert_eq!(outcome.offsets(), &offsets[..], "{}", planner.name());
                }
                (answer, Err(expected)) => prop_assert_eq!(answer, expected, "{}", planner.name()),
                (answer, Ok(_)) => prop_assert!(false, "{} answered {:?} but its definition plans", planner.name(), answer),
            }
            if every_order_fits {
                let clash = greedy_by_definition(&problem, planner, seed) == Err(Answer::Infeasible);
                let planned = planner.solve(&problem, &options).is_ok_and(|outcome| outcome.plan.is_some());
                prop_assert!(clash || planned, "{} refused", planner.name());
            }
        }
    }
}
