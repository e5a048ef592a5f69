//! Every planner on every benchmark instance shipped in `public/examples`: each plan passes the
//! independent validator and never goes below L. One test per file, so the harness runs them in
//! parallel.

mod common;

use common::{declines, every_planner};

use memplan::{Problem, SolveOptions, validate};

fn load(path: &str) -> Problem {
    common::read_problem(&format!("../public/examples/{path}"))
}

fn every_plan_is_valid(path: &str) {
    let problem = load(path);
    for solver in every_planner().into_iter().filter(|s| !declines(s.as_ref(), &problem)) {
        // Bounded and reproducible: exact minimisers get a node budget, iterating solvers two
        // iterations. This test is about validity; `memplan bench` measures what more work buys.
        let mut options = SolveOptions::default();
        let declares = |name: &str| solver.parameters().iter().any(|p| p.name == name);
        if declares("budget") {
            options.params.set("budget", "2000");
        }
        if declares("iterations") {
            options.params.set("iterations", "2");
        }
        let solution = solver.solve(&problem, &options).unwrap_or_else(|e| panic!("{}: {e}", solver.name()));
        let report = validate::validate_outcome(&problem, &solution);
        assert!(report.is_valid(), "{} on {path}: {}", solver.name(), report.describe(&problem));
        assert!(solution.makespan().unwrap() >= problem.max_load(), "{} on {path}", solver.name());
    }
}

macro_rules! instances {
    ($($name:ident => $path:literal,)*) => {
        $(#[test] fn $name() { every_plan_is_valid($path); })*
    };
}

instances! {
    minimalloc_a => "minimalloc/challenging/A.1048576.csv",
    minimalloc_b => "minimalloc/challenging/B.1048576.csv",
    minimalloc_c => "minimalloc/challenging/C.1048576.csv",
    minimalloc_d => "minimalloc/challenging/D.1048576.csv",
    minimalloc_e => "minimalloc/challenging/E.1048576.csv",
    minimalloc_f => "minimalloc/challenging/F.1048576.csv",
    minimalloc_g => "minimalloc/challenging/G.1048576.csv",
    minimalloc_h => "minimalloc/challenging/H.1048576.csv",
    minimalloc_i => "minimalloc/challenging/I.1048576.csv",
    minimalloc_j => "minimalloc/challenging/J.1048576.csv",
    minimalloc_k => "minimalloc/challenging/K.1048576.csv",
    minimalloc_example => "minimalloc/examples/input.12.csv",
    idealloc_g1 => "idealloc/iopddl/G_1.csv",
    idealloc_s1 => "idealloc/iopddl/S_1.csv",
    idealloc_y1 => "idealloc/iopddl/Y_1.csv",
    idealloc_resnet50 => "idealloc/somas_tensors/resnet50.csv",
    idealloc_pangu => "idealloc/somas_tensors/pangu_2.6B.csv",
}

/// The shipped instances are the ones the papers describe: same buffer counts and max loads.
#[test]
fn instances_match_their_published_figures() {
    for (path, buffers, max_load) in [
        ("minimalloc/challenging/A.1048576.csv", 154, 1_048_576),
        ("minimalloc/challenging/C.1048576.csv", 203, 1_039_360),
        ("minimalloc/challenging/D.1048576.csv", 213, 986_112),
        ("minimalloc/challenging/J.1048576.csv", 409, 989_184),
        ("idealloc/iopddl/G_1.csv", 816, 3_030_937_746),
        ("idealloc/iopddl/Y_1.csv", 62_185, 497_261_190_115),
        ("idealloc/somas_tensors/resnet50.csv", 1_042, 1_515_472_556),
        ("idealloc/somas_tensors/pangu_2.6B.csv", 18_692, 5_530_099_775),
    ] {
        let problem = load(path);
        assert_eq!((problem.len(), problem.max_load()), (buffers, max_load), "{path}");
    }
}
