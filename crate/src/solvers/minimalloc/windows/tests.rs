//! The window bound against oracles: never above the brute-force optimum on tiny aligned
//! instances nor above the optima CP-SAT recorded for the aligned set, the same answer whatever ran
//! before on the problem, and a detail in the input's own time semantics.

use proptest::prelude::*;

use super::{WindowBound, window_bound};
use crate::Solver;
use crate::model::{Problem, Semantics};
use crate::options::{Deadline, SolveOptions};
use crate::solvers::minimalloc::{MiniMalloc, Rules, Settings};
use crate::test_support::{brute_force_optimum, instance, recorded, tiny_aligned};

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// The window bound (the buffers of a few consecutive sections, their lifetimes cut, searched
    /// alone) never passes the optimum and never falls below the instance's bound; asked to stop
    /// at a target, it never claims more than it proved (at most the optimum still).
    #[test]
    fn the_window_bound_never_passes_the_oracle(problem in tiny_aligned(7), slack in 0u64..30) {
        let optimum = brute_force_optimum(&problem);
        let known = problem.lower_bound();
        let settings = Settings::default();
        let found = window_bound(&problem, known, u64::MAX, &settings, u64::MAX, &Deadline::none());
        prop_assert!(found.bound >= known);
        prop_assert!(found.bound <= optimum, "window bound {} above the optimum {}: {:?}", found.bound, optimum, found.window);
        if found.bound > known {
            prop_assert!(found.window.is_some() && found.detail(Semantics::HalfOpen).is_some());
        }
        // Built anew, so that the first answer (kept with the problem) does not answer this one.
        let target = known + slack;
        let anew = Problem::new(problem.buffers().to_vec(), None).unwrap();
        let stopped = window_bound(&anew, known, target, &settings, u64::MAX, &Deadline::none());
        prop_assert!(stopped.bound >= known && stopped.bound <= optimum);
        prop_assert!(stopped.bound >= target.min(found.bound), "stopped at {} short of {}", stopped.bound, target.min(found.bound));
    }
}

/// On generated aligned instances the window bound raises the instance's own bound (which is where
/// MiniMalloc and the stacking solver got stuck before it: aligned-18, 19, 21, 48 and 50 of the
/// set), never above the optimum CP-SAT recorded; MiniMalloc with and without it proves the same
/// optimum on small ones.
#[test]
fn the_window_bound_agrees_with_the_recorded_optima() {
    let mut raised = 0;
    for row in recorded() {
        let problem = instance(&row);
        let name = format!("{} seed {:?}", row.instance, row.seed);
        let found =
            window_bound(&problem, problem.lower_bound(), u64::MAX, &Settings::default(), 50_000, &Deadline::none());
        assert!(
            found.bound <= row.makespan,
            "{name}: window bound {} above CP-SAT's plan {}",
            found.bound,
            row.makespan
        );
        if found.bound > problem.lower_bound() {
            raised += 1;
            assert!(found.detail(Semantics::HalfOpen).is_some(), "{name}");
        }
    }
    assert!(raised >= 5, "the window bound raised only {raised} bounds of the set: it tested little");
}

/// Each window is searched once per problem, and what was searched before changes nothing: asked
/// again (MiniMalloc after the stacking solver, as in `auto`), through the problem or a clone, the
/// memo answers every window's probe with the same bound and the same nodes counted, so a budgeted
/// run's answer does not depend on which solver ran first. Any other ask (budget, target, rules)
/// gives what a problem built anew gives.
#[test]
fn the_window_bound_is_the_same_whatever_ran_before() {
    // Generated aligned-11: the instance's bound is 35,083, the optimum 35,085, which a window proves.
    let problem = crate::generate::aligned(20, 11);
    let (known, settings, none) = (problem.lower_bound(), Settings::default(), Deadline::none());
    let anew = || Problem::new(problem.buffers().to_vec(), None).unwrap();
    let first = window_bound(&problem, known, u64::MAX, &settings, 100_000, &none);
    assert!(first.bound > known && first.nodes > 0 && first.reused == 0, "{first:?}");
    let again = window_bound(&problem.clone(), known, u64::MAX, &settings, 100_000, &none);
    assert_eq!(again.reused, again.searched, "every window's probe comes from the memo");
    assert_eq!(WindowBound { reused: 0, ..again }, first);
    let other = Settings { rules: Rules { stacking: false, ..settings.rules }, ..settings };
    for (target, budget, settings) in [
        (first.bound, 20_000, settings),
        (known + 1, u64::MAX, settings),
        (u64::MAX, 10, settings),
        (u64::MAX, 100_000, other),
    ] {
        let fresh = window_bound(&anew(), known, target, &settings, budget, &none);
        assert_eq!(fresh.reused, 0);
        let after = window_bound(&problem, known, target, &settings, budget, &none);
        assert_eq!(WindowBound { reused: 0, ..after }, fresh, "target {target}, budget {budget}");
    }
    // A small budget first, then a large one: the large one's answer is its own.
    let held = anew();
    let _ = window_bound(&held, known, u64::MAX, &settings, 10, &none);
    assert_eq!(WindowBound { reused: 0, ..window_bound(&held, known, u64::MAX, &settings, 100_000, &none) }, first);
}

/// The window's detail names its times as the input wrote them: an instance read with inclusive
/// lifetimes hears of `[t0, t1 - 1]`.
#[test]
fn the_window_detail_speaks_the_inputs_semantics() {
    let mut problem = crate::generate::aligned(20, 11);
    let found =
        window_bound(&problem, problem.lower_bound(), u64::MAX, &Settings::default(), 100_000, &Deadline::none());
    let (t0, t1, _) = found.window.expect("aligned-11's optimum comes from a window");
    for semantics in Semantics::ALL {
        problem.set_semantics(semantics);
        let outcome = MiniMalloc::default().solve(&problem, &SolveOptions::default()).unwrap();
        let detail = outcome.detail.unwrap_or_default();
        let expected = format!("alive in {},", semantics.interval(t0, t1));
        assert!(detail.contains(&expected), "{semantics:?}: {detail}");
    }
    assert_eq!(Semantics::Inclusive.interval(t0, t1), format!("[{t0}, {}]", t1 - 1));
}
