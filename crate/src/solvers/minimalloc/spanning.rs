//! The spanning-buffer reduction: a buffer alive over the whole time span of an
//! instance goes at the bottom, stacked with the other such buffers, and the search sees the rest
//! under the capacity less their total.
//!
//! Why it is exact: a spanning buffer (no gaps, alive from the first start to the last end) is
//! alive together with every other buffer of positive lifetime, so in any plan no other buffer
//! meets its addresses, at any time. The address space is then cut by the spanning buffers into
//! free bands, each other buffer inside one band. Cutting the spanning buffers' strips out and
//! stacking them at the bottom moves every band up by the sizes of the spanning buffers above it:
//! buffers in one band move together, and two bands keep their order, so the plan stays valid and
//! no higher. So the whole fits a capacity `C` exactly when the rest fits `C - height`: a plan of
//! the rest, lifted by the stack's height, with the stack under it, is a plan of the whole, and
//! conversely. Taking them out can make others span what is left (the span shrinks), so it is
//! repeated.
//!
//! Which buffers: those whose moves keep every offset valid. With alignments, the stack's height
//! and every band's move are sums of stacked sizes; a buffer stacks only when its size is a
//! multiple of every alignment in the instance (their least common multiple), so those sums keep
//! every buffer aligned and each stacked buffer sits at such a sum. Pinned buffers cannot move:
//! instances with any are not reduced. Buffers with gaps are not stacked (in a gap they meet no
//! one), but may be among the rest when some live piece of theirs has their whole size: every
//! piece lies inside the span, so at that piece's times all their bytes keep out of the stacked
//! buffers' strips and they sit inside one band. A buffer never alive (gaps over its whole
//! lifetime) meets no one: it goes at 0, apart from the bands (above the stack it would be forced
//! higher than it needs). A buffer alive only in windows could straddle a strip with the bytes
//! outside its windows, so an instance with one is not reduced.
//!
//! Why it helps: the search does not know the stack goes at the bottom and branches on where each
//! spanning buffer goes among the others. On the windows of [`super::windows`] (lifetimes cut to a
//! window, so many span it) and on `peak`'s stretches (whose first buffer spans the stretch) they
//! are common; `scripts/bounds/subset_probe.py` settled a window of D at L in 0.9 s with them
//! stacked, where the search of the unreduced window was unknown after 10 s.

use crate::alignment::lcm;
use crate::model::{Buffer, Piece, Problem};

/// The most buffer visits the scans may make, per buffer: each round visits the buffers starting
/// at the first start, and a nest of many buffers sharing their start could take a round per
/// buffer. Past it the reduction stops where it is (each round on its own is exact).
const VISITS_PER_BUFFER: usize = 8;

/// An instance with its spanning buffers stacked at the bottom: the rest, and how to lift a plan
/// of the rest back to one of the whole.
#[derive(Clone, Debug)]
pub(crate) struct Spanning {
    /// The buffers not stacked, as an instance of their own (no capacity).
    pub rest: Problem,
    /// For each buffer of `rest`, its index in the whole instance.
    pub kept: Vec<usize>,
    /// The stacked buffers (indices in the whole instance) with their offsets, bottom first.
    pub stack: Vec<(usize, u64)>,
    /// The stack's height: the rest is planned on top of it.
    pub height: u64,
    /// The buffers never alive (no live piece), at offset 0.
    pub free: Vec<usize>,
}

impl Spanning {
    /// The reduction of `problem`, or `None` when no buffer can be stacked (or the instance has
    /// pinned buffers, or its alignments have no common multiple in `u64`).
    pub(crate) fn new(problem: &Problem) -> Option<Spanning> {
        let buffers = problem.buffers();
        if buffers.len() < 2 || problem.has_pinned() {
            return None;
        }
        let unit = buffers.iter().try_fold(1u64, |unit, b| lcm(unit, b.alignment().max(1)))?;
        let stackable = |b: &Buffer| !b.has_gaps() && b.size.is_multiple_of(unit);
        let n = buffers.len();
        let pieces: Vec<Vec<Piece>> = buffers.iter().map(Buffer::pieces).collect();
        // A buffer never alive meets no one: it goes at 0, out of the reduction (lifted above the
        // stack it would be forced higher than it needs).
        let free: Vec<usize> = (0..n).filter(|&i| pieces[i].is_empty()).collect();
        // A buffer alive only in windows may straddle a stacked buffer's bytes with the rest of
        // its bytes, and the bands would not hold it: no reduction then.
        if (0..n)
            .any(|i| !pieces[i].is_empty() && !pieces[i].iter().any(|p| p.lower == 0 && p.upper == buffers[i].size))
        {
            return None;
        }
        let mut by_start: Vec<usize> = (0..n).filter(|&i| !pieces[i].is_empty()).collect();
        by_start.sort_unstable_by_key(|&i| (buffers[i].start, i));
        let mut by_end: Vec<usize> = by_start.clone();
        by_end.sort_unstable_by_key(|&i| (std::cmp::Reverse(buffers[i].end), i));
        let mut stacked = vec![false; n];
        for &i in &free {
            stacked[i] = true;
        }
        let n = by_start.len();
        let mut stack = Vec::new();
        let (mut first, mut last) = (0, 0);
        let mut visits = 0usize;
        loop {
            while first < n && stacked[by_start[first]] {
                first += 1;
            }
            while last < n && stacked[by_end[last]] {
                last += 1;
            }
            // One buffer left at most: stacking it gains nothing.
            if n - stack.len() < 2 {
                break;
            }
            let (from, to) = (buffers[by_start[first]].start, buffers[by_end[last]].end);
            let before = stack.len();
            let mut k = first;
            while k < n && buffers[by_start[k]].start == from && n - stack.len() > 1 {
                let i = by_start[k];
                if !stacked[i] && buffers[i].end == to && stackable(&buffers[i]) {
                    stacked[i] = true;
                    stack.push(i);
                }
                k += 1;
            }
            visits += k - first;
            if stack.len() == before || visits > VISITS_PER_BUFFER * n {
                break;
            }
        }
        if stack.is_empty() {
            return None;
        }
        let kept: Vec<usize> = (0..buffers.len()).filter(|&i| !stacked[i]).collect();
        let mut height = 0u64;
        let stack: Vec<(usize, u64)> = stack
            .into_iter()
            .map(|i| {
                let offset = height;
                // No overflow: the stacked buffers are alive together, and the load fits u64.
                height += buffers[i].size;
                (i, offset)
            })
            .collect();
        let rest = Problem::new(kept.iter().map(|&i| buffers[i].clone()).collect(), None).ok()?;
        Some(Spanning { rest, kept, stack, height, free })
    }

    /// The capacity the rest must fit for the whole to fit `capacity` (`None`: not even the stack
    /// fits).
    pub(crate) fn capacity(&self, capacity: u64) -> Option<u64> {
        capacity.checked_sub(self.height)
    }

    /// The whole's offsets and placement order from the rest's: the stack first, at its offsets,
    /// then the rest lifted by the stack's height.
    pub(crate) fn lift(&self, offsets: &[u64], order: &[usize]) -> (Vec<u64>, Vec<usize>) {
        let mut whole = vec![0; self.kept.len() + self.stack.len() + self.free.len()];
        for &(i, offset) in &self.stack {
            whole[i] = offset;
        }
        for (k, &i) in self.kept.iter().enumerate() {
            whole[i] = offsets[k] + self.height;
        }
        let mut placed: Vec<usize> = self.free.iter().copied().chain(self.stack.iter().map(|&(i, _)| i)).collect();
        placed.extend(order.iter().map(|&k| self.kept[k]));
        (whole, placed)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::test_support::{brute_force_optimum, with_spanning};

    proptest! {
        #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

        /// The spanning buffers stacked at the bottom: the rest under the capacity less the
        /// stack's height has the brute-force optimum of the whole less that height.
        #[test]
        fn stacking_spanning_buffers_keeps_the_optimum(problem in with_spanning()) {
            let optimum = brute_force_optimum(&problem);
            if let Some(reduced) = Spanning::new(&problem) {
                prop_assert!(!problem.has_pinned());
                prop_assert_eq!(brute_force_optimum(&reduced.rest) + reduced.height, optimum);
            }
        }
    }

    #[test]
    fn nested_spans_are_stacked_in_turn() {
        // a spans [0, 10); without it b spans [1, 9); then c and d are left, neither spanning.
        let problem = Problem::new(
            vec![
                Buffer::new("a", 0, 10, 4),
                Buffer::new("b", 1, 9, 2),
                Buffer::new("c", 1, 5, 3),
                Buffer::new("d", 4, 9, 5),
            ],
            None,
        )
        .unwrap();
        let reduced = Spanning::new(&problem).unwrap();
        assert_eq!(reduced.stack, vec![(0, 0), (1, 4)]);
        assert_eq!(reduced.height, 6);
        assert_eq!(reduced.kept, vec![2, 3]);
        let (offsets, order) = reduced.lift(&[0, 3], &[0, 1]);
        assert_eq!(offsets, vec![0, 4, 6, 9]);
        assert_eq!(order, vec![0, 1, 2, 3]);
    }

    #[test]
    fn alignment_pins_and_gaps_hold_buffers_back() {
        // Size 6 is no multiple of the alignment 4: it stays, and so does the span.
        let aligned =
            Problem::new(vec![Buffer::new("a", 0, 10, 6), Buffer::new("b", 2, 4, 4).with_alignment(4)], None).unwrap();
        assert!(Spanning::new(&aligned).is_none());
        let fits =
            Problem::new(vec![Buffer::new("a", 0, 10, 8), Buffer::new("b", 2, 4, 4).with_alignment(4)], None).unwrap();
        assert_eq!(Spanning::new(&fits).unwrap().stack, vec![(0, 0)]);
        let pinned =
            Problem::new(vec![Buffer::new("a", 0, 10, 8), Buffer::new("b", 2, 4, 4).pinned_at(8)], None).unwrap();
        assert!(Spanning::new(&pinned).is_none());
        let gapped = Problem::new(
            vec![Buffer::new("a", 0, 10, 8).with_gaps(vec![crate::model::Gap::new(3, 5)]), Buffer::new("b", 2, 4, 4)],
            None,
        )
        .unwrap();
        assert!(Spanning::new(&gapped).is_none());
    }

    #[test]
    fn one_buffer_is_left_to_the_search() {
        let problem = Problem::new(vec![Buffer::new("a", 0, 10, 8), Buffer::new("b", 0, 10, 4)], None).unwrap();
        let reduced = Spanning::new(&problem).unwrap();
        assert_eq!(reduced.stack, vec![(0, 0)]);
        assert_eq!(reduced.kept, vec![1]);
    }
}
