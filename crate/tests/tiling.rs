//! The tiling search (MiniMalloc's first search at a tight capacity) on generated perfect packings,
//! through MiniMalloc. (Its agreement with the canonical search and the brute-force oracle is
//! tested beside the search, in `solvers/minimalloc/tiling_tests.rs`.)

mod common;

use common::{checked, with_rules};
use memplan::generate::{PerfectSpec, perfect_with_plan};
use memplan::solvers::Solver;
use memplan::solvers::minimalloc::Rules;
use memplan::{Problem, SolveOptions, StatValue};

/// Generated perfect packings of 60 buffers fit their height through the tiling search, and
/// within a small node budget (a reproducible limit; the canonical search alone needs far more).
#[test]
fn perfect_packings_fit_through_the_tiling_search() {
    for seed in 1..=4 {
        let (list, _) = perfect_with_plan(PerfectSpec { buffers: 60, seed, height: 1 << 20, alive: 24 });
        let problem = Problem::new(list, None).unwrap();
        let capacity = problem.max_load();
        let options = SolveOptions {
            capacity: Some(capacity),
            params: memplan::Params::new().with("budget", "20000"),
            ..SolveOptions::default()
        };
        let outcome = with_rules(Rules::default()).solve(&problem, &options).unwrap();
        assert!(outcome.feasible(), "seed {seed}: {:?}", outcome.stats);
        checked(&problem, &outcome);
        assert!(matches!(&outcome.stats["ordering"], StatValue::Text(name) if name == "tiling"));
    }
}
