//! The stackings of one live set that fit a target: each an order of its buffers, each buffer at
//! the lowest multiple of its alignment at or above the one below (see [`crate::model::stacking`]
//! for why those orders are enough), with the top at or below the target.

use std::collections::HashSet;

use crate::alignment::align_up;
use crate::model::Buffer;

/// How many search steps one enumeration may take: a live set of 14 buffers has 14! orders, and
/// the first few stackings that fit are what the search needs.
const MAX_STEPS: u64 = 200_000;

/// Up to `wanted` stackings of `set` (buffer indices) whose top is at most `target`, as
/// (buffer, offset) lists bottom to top; in a fixed order (depth first, buffers in the order of
/// `set`), so the result is reproducible.
pub(super) fn stackings(buffers: &[Buffer], set: &[usize], target: u64, wanted: usize) -> Vec<Vec<(usize, u64)>> {
    let mut walk = Walk {
        buffers,
        set,
        target,
        wanted,
        steps: 0,
        dead: HashSet::new(),
        found: Vec::new(),
        path: Vec::with_capacity(set.len()),
    };
    let total: u64 = set.iter().map(|&i| buffers[i].size).sum();
    walk.descend(0, 0, total);
    walk.found
}

struct Walk<'a> {
    buffers: &'a [Buffer],
    set: &'a [usize],
    target: u64,
    wanted: usize,
    steps: u64,
    /// (stacked subset, top) states from which no stacking fits: they recur under other orders.
    dead: HashSet<(u64, u64)>,
    found: Vec<Vec<(usize, u64)>>,
    path: Vec<(usize, u64)>,
}

impl Walk<'_> {
    /// Stacks on from `top` with the buffers not in `stacked` (of total size `left`); whether any
    /// stacking was found below.
    fn descend(&mut self, stacked: u64, top: u64, left: u64) -> bool {
        if self.path.len() == self.set.len() {
            self.found.push(self.path.clone());
            return true;
        }
        if self.found.len() >= self.wanted || self.steps >= MAX_STEPS || self.dead.contains(&(stacked, top)) {
            return false;
        }
        self.steps += 1;
        let mut any = false;
        for (k, &i) in self.set.iter().enumerate() {
            if stacked & (1 << k) != 0 {
                continue;
            }
            let b = &self.buffers[i];
            let Some(offset) = align_up(top, b.alignment()) else { continue };
            // What is left must fit above, packed without padding at best.
            match offset.checked_add(left) {
                Some(reached) if reached <= self.target => {}
                _ => continue,
            }
            self.path.push((i, offset));
            any |= self.descend(stacked | (1 << k), offset + b.size, left - b.size);
            self.path.pop();
            if self.found.len() >= self.wanted || self.steps >= MAX_STEPS {
                return any;
            }
        }
        if !any && self.steps < MAX_STEPS {
            self.dead.insert((stacked, top));
        }
        any
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_stacking_that_fits_and_only_those() {
        // 100 bytes aligned to 4,096 twice and 5,000 bytes aligned to 1: the least top is 8,292
        // (100, then 5,000, then 100 at 8,192), reached by two orders (the aligned buffers swap).
        let buffers = vec![
            Buffer::new("a", 0, 1, 100).with_alignment(4096),
            Buffer::new("b", 0, 1, 100).with_alignment(4096),
            Buffer::new("c", 0, 1, 5000),
        ];
        let found = stackings(&buffers, &[0, 1, 2], 8292, 10);
        assert_eq!(found, vec![vec![(0, 0), (2, 100), (1, 8192)], vec![(1, 0), (2, 100), (0, 8192)]]);
        assert!(stackings(&buffers, &[0, 1, 2], 8291, 10).is_empty());
        // With room, every order fits: 3! of them, and no more than asked.
        assert_eq!(stackings(&buffers, &[0, 1, 2], 20_000, 10).len(), 6);
        assert_eq!(stackings(&buffers, &[0, 1, 2], 20_000, 4).len(), 4);
    }
}
