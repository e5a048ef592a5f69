//! A segment tree for "raise every value in a range to at least v" and "the maximum over a range",
//! both O(log n): TVM's greedy raises each placed buffer's reach over its lifetime and asks the
//! highest reach a lifetime sees, and the contention measure asks the highest load over each
//! lifetime of a profile given whole.

/// Range raise and range maximum, without pushing tags down: `tag[k]` is the most any raise
/// covering node k's whole range set, `top[k]` the most set anywhere inside it.
///
/// Bottom-up over a perfect tree (leaves at `[size, 2 * size)`), in loops rather than recursion:
/// in wasm a call costs more than a node's work. A range is covered by O(log n) whole nodes, and
/// every ancestor of one of them holds the range's first or last leaf, so a raise lifts `top`
/// along those two paths and a query reads the `tag`s along them.
pub(crate) struct RangeMax {
    size: usize,
    tag: Vec<u64>,
    top: Vec<u64>,
}

impl RangeMax {
    /// `len` positions, each 0.
    pub(crate) fn new(len: usize) -> Self {
        let size = len.max(1).next_power_of_two();
        RangeMax { size, tag: vec![0; 2 * size], top: vec![0; 2 * size] }
    }

    /// The positions hold `values`, in O(n) rather than a raise each.
    pub(crate) fn from_values(values: &[u64]) -> Self {
        let mut tree = RangeMax::new(values.len());
        let size = tree.size;
        // A leaf's own raise: its `tag` and `top` both hold it, as `raise` over one position leaves them.
        tree.tag[size..size + values.len()].copy_from_slice(values);
        tree.top[size..size + values.len()].copy_from_slice(values);
        for node in (1..size).rev() {
            tree.top[node] = tree.top[2 * node].max(tree.top[2 * node + 1]);
        }
        tree
    }

    /// Raises every position in `[lo, hi)` to at least `value`.
    pub(crate) fn raise(&mut self, lo: usize, hi: usize, value: u64) {
        if lo >= hi {
            return;
        }
        let (mut l, mut r) = (lo + self.size, hi + self.size);
        while l < r {
            if l & 1 == 1 {
                self.tag[l] = self.tag[l].max(value);
                self.top[l] = self.top[l].max(value);
                l += 1;
            }
            if r & 1 == 1 {
                r -= 1;
                self.tag[r] = self.tag[r].max(value);
                self.top[r] = self.top[r].max(value);
            }
            l >>= 1;
            r >>= 1;
        }
        for leaf in [lo + self.size, hi - 1 + self.size] {
            let mut k = leaf >> 1;
            while k >= 1 {
                self.top[k] = self.top[k].max(value);
                k >>= 1;
            }
        }
    }

    /// The maximum over `[lo, hi)`; 0 for an empty range.
    pub(crate) fn max(&self, lo: usize, hi: usize) -> u64 {
        if lo >= hi {
            return 0;
        }
        let mut best = 0;
        let (mut l, mut r) = (lo + self.size, hi + self.size);
        while l < r {
            if l & 1 == 1 {
                best = best.max(self.top[l]);
                l += 1;
            }
            if r & 1 == 1 {
                r -= 1;
                best = best.max(self.top[r]);
            }
            l >>= 1;
            r >>= 1;
        }
        for leaf in [lo + self.size, hi - 1 + self.size] {
            let mut k = leaf >> 1;
            while k >= 1 {
                best = best.max(self.tag[k]);
                k >>= 1;
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tree against a plain array on every length up to 40 (powers of two and not), started
    /// empty or from values, with ranges of every shape: each maximum is the largest value raised
    /// over (or given at) any of its points.
    #[test]
    fn range_max_agrees_with_an_array() {
        let mut random = crate::test_support::Lcg::new(7);
        let mut next = |bound: u64| random.below(bound);
        for len in 1..=40usize {
            for given in [false, true] {
                let mut plain: Vec<u64> = (0..len).map(|_| if given { next(1000) } else { 0 }).collect();
                let mut tree = if given { RangeMax::from_values(&plain) } else { RangeMax::new(len) };
                for _ in 0..200 {
                    let lo = next(len as u64) as usize;
                    let hi = lo + 1 + next((len - lo) as u64) as usize;
                    if next(2) == 0 {
                        let value = next(1000);
                        tree.raise(lo, hi, value);
                        plain[lo..hi].iter_mut().for_each(|v| *v = (*v).max(value));
                    } else {
                        let expected = plain[lo..hi].iter().copied().max().unwrap();
                        assert_eq!(tree.max(lo, hi), expected, "len {len}, given {given}, {lo}..{hi}");
                    }
                }
                assert_eq!(tree.max(len / 2, len / 2), 0);
            }
        }
    }
}
