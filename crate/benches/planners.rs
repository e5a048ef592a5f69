//! Criterion benchmarks of the greedy planners and the validator, on benchmark instances and on
//! generated traces of growing length (to see the n log n growth as ratios in one run).

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use memplan::format::{self, ReadOptions};
use memplan::generate::{TraceSpec, trace};
use memplan::{Problem, SolveOptions, run, validate};

fn example(path: &str) -> Problem {
    let file = format!("{}/../public/examples/{path}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&file).expect("example exists");
    format::read(&text, &ReadOptions::default()).expect("example parses").problem
}

fn planners(c: &mut Criterion) {
    let mut group = c.benchmark_group("planners");
    group.sample_size(10);
    let instances = [
        ("challenging-A", example("minimalloc/challenging/A.1048576.csv")),
        ("resnet50", example("idealloc/somas_tensors/resnet50.csv")),
        ("iopddl-Y_1", example("idealloc/iopddl/Y_1.csv")),
    ];
    for (name, problem) in &instances {
        for solver in ["slff", "tflite", "tvm", "zant-best"] {
            group.bench_with_input(BenchmarkId::new(solver, name), problem, |b, problem| {
                b.iter(|| run::solve(problem, solver, &SolveOptions::default()).expect("plans"))
            });
        }
    }
    group.finish();
}

fn scaling(c: &mut Criterion) {
    let mut group = c.benchmark_group("scaling");
    group.sample_size(10);
    for buffers in [25_000, 50_000, 100_000, 200_000] {
        let problem = trace(TraceSpec::new(buffers, 1));
        for solver in ["slff", "zant-best"] {
            group.bench_with_input(BenchmarkId::new(solver, buffers), &problem, |b, problem| {
                b.iter(|| run::solve(problem, solver, &SolveOptions::default()).expect("plans"))
            });
        }
    }
    group.finish();
}

fn validator(c: &mut Criterion) {
    let problem = example("idealloc/iopddl/Y_1.csv");
    let plan = run::solve(&problem, "slff", &SolveOptions::default()).expect("plans");
    c.bench_function("validate-Y_1", |b| b.iter(|| validate::validate(&problem, plan.outcome.offsets(), None)));
}

criterion_group!(benches, planners, scaling, validator);
criterion_main!(benches);
