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
