//! Criterion benchmarks of the TelaMalloc search on the paper's microbenchmarks (§7.1, Table 1),
//! at growing sizes: the time per step should grow no faster than the conflicts per buffer (none
//! for non-overlapping-N, N - 1 for full-overlap-N). The baseline heuristic is off, so that the
//! search itself places every buffer.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use memplan::generate::{full_overlap, non_overlapping};
use memplan::{Params, SolveOptions, run};

fn search_only() -> SolveOptions {
    SolveOptions { params: Params::new().with("baseline", "false"), ..SolveOptions::default() }
}

fn microbenchmarks(c: &mut Criterion) {
    let mut group = c.benchmark_group("telamalloc");
    group.sample_size(10);
    let options = search_only();
    for buffers in [1_000, 10_000, 100_000] {
        let problem = non_overlapping(buffers, 1);
        group.bench_with_input(BenchmarkId::new("non-overlapping", buffers), &problem, |b, problem| {
            b.iter(|| run::solve(problem, "telamalloc", &options).expect("plans"))
        });
    }
    for buffers in [100, 300, 1_000] {
        let problem = full_overlap(buffers, 1);
        group.bench_with_input(BenchmarkId::new("full-overlap", buffers), &problem, |b, problem| {
            b.iter(|| run::solve(problem, "telamalloc", &options).expect("plans"))
        });
    }
    group.finish();
}

criterion_group!(benches, microbenchmarks);
criterion_main!(benches);
