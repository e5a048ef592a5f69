//! The stretch around the peak, against the brute-force oracle: it holds the peak, a wider one
//! holds the narrower, and cut out (the buffers across it merged into one) it never needs more than
//! the whole instance.

use proptest::prelude::*;

use super::{cut_out, peak_time, stretch};
use crate::model::{Buffer, Problem};
use crate::test_support::{brute_force_optimum, instances};

/// [`instances`] without alignment or pinned buffers (what `peak` takes).
fn plain(max_buffers: usize, max_size: u64) -> impl Strategy<Value = Problem> {
    instances(max_buffers, max_size).prop_map(|problem| {
        let buffers = problem.buffers().iter().map(|b| Buffer::new(b.id.clone(), b.start, b.end, b.size)).collect();
        Problem::new(buffers, None).unwrap()
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// The stretch with the buffers across it merged into one is a relaxation: on tiny instances
    /// its optimum is never above the whole instance's.
    #[test]
    fn the_stretch_never_needs_more_than_the_whole(problem in plain(7, 20), window in 1u64..6) {
        let peak = peak_time(&problem).unwrap();
        let (low, high) = stretch(&problem, peak, window);
        prop_assert!(low <= peak && peak < high);
        let (sub, across, cut) = cut_out(&problem, low, high).unwrap();
        prop_assert_eq!(sub.len(), cut.len() + usize::from(!across.is_empty()));
        prop_assert!(brute_force_optimum(&sub) <= brute_force_optimum(&problem));
        // Every buffer alive at the peak is in the stretch, so it needs at least the max load.
        prop_assert_eq!(sub.max_load(), problem.max_load());
    }

    /// Each wider stretch (twice the starts and ends) holds the narrower one, so its cut-out is no
    /// easier: a stretch is only widened because the plan around the narrower one was above L.
    #[test]
    fn a_wider_stretch_holds_the_narrower(problem in plain(40, 60), window in 1u64..40) {
        let peak = peak_time(&problem).unwrap();
        let (low, high) = stretch(&problem, peak, window);
        let (wide_low, wide_high) = stretch(&problem, peak, 2 * window);
        prop_assert!(wide_low <= low && high <= wide_high, "[{low}, {high}) not in [{wide_low}, {wide_high})");
    }
}
