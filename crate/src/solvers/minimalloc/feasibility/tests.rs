//! The quick refutation (pinned buffers that meet, checked before any search) on pinned buffers
//! with gaps and windows: what it refutes must meet in their live pieces, not in their hulls.

use super::quick_refutation;
use crate::model::{Buffer, Gap, Problem};

fn problem(buffers: Vec<Buffer>) -> Problem {
    Problem::new(buffers, None).unwrap()
}

/// Pinned at 41 and 89, x and y overlap in bytes over [89, 96) and their hulls in time, but x is
/// away in [9, 10) and y in [7, 9): they are never alive together, so nothing is refuted, with or
/// without a capacity the pins fit (100).
#[test]
fn pinned_buffers_apart_in_their_live_pieces_are_not_refuted() {
    let pins = problem(vec![
        Buffer::new("x", 7, 10, 59).pinned_at(41).with_gaps(vec![Gap::new(9, 10)]),
        Buffer::new("y", 7, 10, 7).pinned_at(89).with_gaps(vec![Gap::new(7, 9)]),
    ]);
    assert_eq!(quick_refutation(&pins, None), None);
    assert_eq!(quick_refutation(&pins, Some(100)), None);
}

/// With a window, two pinned buffers alive together conflict only where the window's bytes meet
/// the other's: bytes [0, 2) of x at 0 leave [5, 10) to y, bytes [4, 8) do not.
#[test]
fn pinned_buffers_meet_only_in_their_windows() {
    let with_window = |lower, upper| {
        problem(vec![
            Buffer::new("x", 0, 10, 10).pinned_at(0).with_gaps(vec![Gap::windowed(0, 10, lower, upper)]),
            Buffer::new("y", 0, 10, 5).pinned_at(5),
        ])
    };
    assert_eq!(quick_refutation(&with_window(0, 2), None), None);
    let clash = quick_refutation(&with_window(4, 8), None).expect("bytes [5, 8) are taken twice");
    assert!(clash.contains("pinned buffers"), "{clash}");
}

/// The nodes every ordering searched, abandoned ones included, are counted apart from the
/// budget's count, and never fewer.
#[test]
fn every_node_searched_is_counted() {
    use super::{Settings, decide};
    use crate::options::SolveOptions;
    let buffers = (0..12u64).map(|i| Buffer::new(format!("b{i}"), i % 4, i % 4 + 3, 1 + i % 5)).collect();
    let problem = problem(buffers);
    let capacity = problem.lower_bound();
    let report = decide(&problem, capacity + 1, &Settings::default(), &SolveOptions::default().deadline()).unwrap();
    assert!(report.counters.nodes > 0);
    assert!(report.explored >= report.counters.nodes, "{} < {}", report.explored, report.counters.nodes);
}

/// A budgeted search gives the same answer, from the same ordering, with the same nodes counted,
/// on one thread (each ordering of a round whole, in turn) as on two or three (the orderings cut
/// into slices that free threads take): instances where several rounds pass and later orderings
/// decide, at capacities from the bound up.
#[test]
fn the_answer_and_its_count_do_not_depend_on_the_threads() {
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::{Settings, decide};
    use crate::options::SolveOptions;
    let settings = Settings { first_limit: 4, budget: 400_000, ..Settings::default() };
    let pools: Vec<rayon::ThreadPool> =
        [1, 2, 3].iter().map(|&n| rayon::ThreadPoolBuilder::new().num_threads(n).build().unwrap()).collect();
    let (mut later_orderings, mut multi_round, mut decided) = (0, 0, 0);
    for seed in 0..60u64 {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let buffers: Vec<Buffer> = (0..rng.random_range(18..30))
            .map(|i| {
                let start = rng.random_range(0..10u64);
                Buffer::new(format!("b{i}"), start, start + rng.random_range(1..6), rng.random_range(1..24))
            })
            .collect();
        let problem = problem(buffers);
        for extra in 0..3 {
            let capacity = problem.lower_bound() + extra;
            let reports: Vec<_> = pools
                .iter()
                .map(|pool| {
                    pool.install(|| decide(&problem, capacity, &settings, &SolveOptions::default().deadline()).unwrap())
                })
                .collect();
            let one = &reports[0];
            for (threads, other) in [2, 3].iter().zip(&reports[1..]) {
                assert_eq!(other.decision, one.decision, "seed {seed} capacity {capacity}, {threads} threads");
                assert_eq!(other.ordering, one.ordering, "seed {seed} capacity {capacity}, {threads} threads");
                assert_eq!(other.counters, one.counters, "seed {seed} capacity {capacity}, {threads} threads");
                assert_eq!(other.refuted_below, one.refuted_below, "seed {seed} capacity {capacity}");
            }
            later_orderings += usize::from(one.ordering.is_some() && one.ordering != Some(orderings_first()));
            multi_round += usize::from(one.rounds > 1);
            decided += usize::from(one.ordering.is_some());
        }
    }
    assert!(multi_round > 20, "too few searches ran several rounds: {multi_round}");
    assert!(decided > 20, "too few searches decided: {decided}");
    assert!(later_orderings > 0, "no search was decided by an ordering after the first");
}

/// The name of the first pre-ordering, as a report names it.
fn orderings_first() -> String {
    super::orderings::name(&super::ORDERINGS[0])
}
