//! TVM's conflicts. TVM plans a conflict graph: each buffer lists the buffers it may not share
//! bytes with (`BufferInfo::conflicts`, from its liveness analysis). memplan's buffers have
//! lifetimes, whose conflict graph is "alive at the same time" (over the hull: these planners do
//! not use gaps). Two forms of it, behind one trait for the greedy:
//! - [`Graph`]: explicit lists, as TVM holds them. TVM's own test graphs (some one-sided, one
//!   with a buffer listing itself, which no lifetimes give) and the hill climb, which walks
//!   neighbours of neighbours, use it;
//! - [`Timeline`]: the lifetimes in a segment tree over time, so that the greedy orders plan
//!   instances whose pairs are far too many to list (10^8 and more) in O(n log n).

use crate::model::Buffer;
use crate::options::{Deadline, Halt};

/// What TVM's greedy reads of the conflicts while it places buffers one by one.
pub(crate) trait Conflicts {
    /// How many conflicts buffer `i` lists: TVM's `conflicts.size()`, the greedy's tie-break.
    fn degree(&self, i: usize) -> u64;
    /// The highest reach among the placed conflicts of `i` (0 when none is placed).
    fn highest(&self, i: usize) -> u64;
    /// Records `i` as placed, with `reach` = its top rounded up to its own alignment: where TVM
    /// lets a conflicting buffer start above it.
    fn place(&mut self, i: usize, reach: u64);
}

/// The most neighbour entries (twice the conflicting pairs) a [`Graph`] is built with from
/// lifetimes: 2^25 entries are 128 MiB. TVM lists every pair too; past this the hill climb refuses
/// the instance rather than exhaust memory.
pub(crate) const MAX_ENTRIES: u64 = 1 << 25;

/// Why a graph of `entries` is not built.
pub(super) fn too_many(entries: u64) -> String {
    format!(
        "{} pairs of buffers alive together: more than the {} listed here (TVM plans an explicit conflict graph)",
        entries / 2,
        MAX_ENTRIES / 2
    )
}

/// Conflict lists in one array (compressed rows): the neighbours of `i` are
/// `neighbours[first[i]..first[i + 1]]`.
#[derive(Clone, Debug)]
pub(crate) struct Graph {
    first: Vec<usize>,
    neighbours: Vec<u32>,
}

impl Graph {
    /// The lists as given (TVM's `set_conflicts`), one-sided or not; each index below `lists.len()`.
    #[cfg(test)]
    pub(crate) fn from_lists(lists: &[Vec<usize>]) -> Graph {
        let mut first = Vec::with_capacity(lists.len() + 1);
        let mut neighbours = Vec::new();
        for list in lists {
            first.push(neighbours.len());
            neighbours.extend(list.iter().map(|&j| j as u32));
        }
        first.push(neighbours.len());
        Graph { first, neighbours }
    }

    /// The buffers alive at the same time as each other, by a sweep over starts: O(n log n + pairs).
    /// Refuses (`Unsupported`) past [`MAX_ENTRIES`]; the deadline stops it.
    pub(crate) fn from_lifetimes(buffers: &[Buffer], deadline: &Deadline) -> Result<Graph, Halt> {
        let degrees = crate::metrics::conflicts_per_buffer(buffers);
        let entries: u64 = degrees.iter().sum();
        if entries > MAX_ENTRIES {
            return Err(Halt::Unsupported(too_many(entries)));
        }
        if buffers.len() > u32::MAX as usize {
            return Err(Halt::Unsupported("more than 2^32 buffers".into()));
        }
        let mut first = Vec::with_capacity(buffers.len() + 1);
        let mut at = 0usize;
        for &d in &degrees {
            first.push(at);
            at += d as usize;
        }
        first.push(at);
        let mut fill = first.clone();
        let mut neighbours = vec![0u32; at];
        let mut by_start: Vec<usize> = (0..buffers.len()).collect();
        by_start.sort_unstable_by_key(|&i| buffers[i].start);
        for (step, (p, &i)) in by_start.iter().enumerate().enumerate() {
            deadline.poll(step)?;
            // Every later start before i's end is alive with i (it started no earlier than i).
            for &j in by_start[p + 1..].iter().take_while(|&&j| buffers[j].start < buffers[i].end) {
                neighbours[fill[i]] = j as u32;
                fill[i] += 1;
                neighbours[fill[j]] = i as u32;
                fill[j] += 1;
            }
        }
        Ok(Graph { first, neighbours })
    }

    pub(crate) fn len(&self) -> usize {
        self.first.len() - 1
    }

    pub(crate) fn neighbours(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        self.neighbours[self.first[i]..self.first[i + 1]].iter().map(|&j| j as usize)
    }

    pub(crate) fn degree(&self, i: usize) -> u64 {
        (self.first[i + 1] - self.first[i]) as u64
    }

    /// All entries of all lists (twice the pairs, for symmetric lists).
    pub(crate) fn entries(&self) -> u64 {
        self.neighbours.len() as u64
    }
}

/// A [`Graph`] with the reach of each placed buffer.
pub(crate) struct Placed<'a> {
    graph: &'a Graph,
    reach: Vec<Option<u64>>,
}

impl<'a> Placed<'a> {
    pub(crate) fn new(graph: &'a Graph) -> Self {
        Placed { graph, reach: vec![None; graph.len()] }
    }
}

impl Conflicts for Placed<'_> {
    fn degree(&self, i: usize) -> u64 {
        self.graph.degree(i)
    }

    fn highest(&self, i: usize) -> u64 {
        self.graph.neighbours(i).filter_map(|j| self.reach[j]).max().unwrap_or(0)
    }

    fn place(&mut self, i: usize, reach: u64) {
        self.reach[i] = Some(reach);
    }
}

/// Lifetimes in a segment tree over their distinct times: placing a buffer raises the reach over
/// its lifetime, and the highest reach a lifetime sees is the highest of its placed conflicts.
pub(crate) struct Timeline {
    /// Each buffer's lifetime as a range of elementary intervals.
    spans: Vec<(usize, usize)>,
    degrees: Vec<u64>,
    tree: MaxTree,
}

impl Timeline {
    pub(crate) fn new(buffers: &[Buffer]) -> Self {
        let mut times: Vec<u64> = buffers.iter().flat_map(|b| [b.start, b.end]).collect();
        times.sort_unstable();
        times.dedup();
        let index = |t: u64| times.partition_point(|&x| x < t);
        let spans = buffers.iter().map(|b| (index(b.start), index(b.end))).collect();
        Timeline {
            spans,
            degrees: crate::metrics::conflicts_per_buffer(buffers),
            tree: MaxTree::new(times.len().saturating_sub(1).max(1)),
        }
    }
}

impl Conflicts for Timeline {
    fn degree(&self, i: usize) -> u64 {
        self.degrees[i]
    }

    fn highest(&self, i: usize) -> u64 {
        let (lo, hi) = self.spans[i];
        self.tree.max(lo, hi)
    }

    fn place(&mut self, i: usize, reach: u64) {
        let (lo, hi) = self.spans[i];
        self.tree.raise(lo, hi, reach);
    }
}

/// Range "raise to at least v" and range maximum, without pushing tags down: `tag[k]` is the
/// most any raise covering node k's whole range set, `top[k]` the most set anywhere inside it.
///
/// Bottom-up over a perfect tree (leaves at `[size, 2 * size)`), in loops rather than recursion:
/// in wasm a call costs more than a node's work. A range is covered by O(log n) whole nodes, and
/// every ancestor of one of them holds the range's first or last leaf, so a raise lifts `top`
/// along those two paths and a query reads the `tag`s along them.
struct MaxTree {
    size: usize,
    tag: Vec<u64>,
    top: Vec<u64>,
}

impl MaxTree {
    fn new(len: usize) -> Self {
        let size = len.next_power_of_two();
        MaxTree { size, tag: vec![0; 2 * size], top: vec![0; 2 * size] }
    }

    fn raise(&mut self, lo: usize, hi: usize, value: u64) {
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

    fn max(&self, lo: usize, hi: usize) -> u64 {
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

    /// Both forms agree with the definition (alive at the same time) on a small trace.
    #[test]
    fn graph_and_timeline_agree_with_the_definition() {
        let problem = crate::generate::trace(crate::generate::TraceSpec::new(60, 5));
        let buffers = problem.buffers();
        let graph = Graph::from_lifetimes(buffers, &Deadline::none()).unwrap();
        let mut placed = Placed::new(&graph);
        let mut timeline = Timeline::new(buffers);
        let mut reach = vec![None; buffers.len()];
        for i in 0..buffers.len() {
            let mut listed: Vec<usize> = graph.neighbours(i).collect();
            listed.sort_unstable();
            let expected: Vec<usize> =
                (0..buffers.len()).filter(|&j| j != i && buffers[j].overlaps_in_time(&buffers[i])).collect();
            assert_eq!(listed, expected);
            assert_eq!(timeline.degree(i), expected.len() as u64);
            let highest = expected.iter().filter_map(|&j| reach[j]).max().unwrap_or(0);
            assert_eq!((placed.highest(i), timeline.highest(i)), (highest, highest), "buffer {i}");
            let value = (i as u64 * 37) % 101;
            reach[i] = Some(value);
            placed.place(i, value);
            timeline.place(i, value);
        }
    }

    /// The tree against a plain array on every length up to 40 (powers of two and not), with
    /// ranges of every shape: each maximum is the largest value raised over any of its points.
    #[test]
    fn max_tree_agrees_with_an_array() {
        let mut state = 7u64;
        let mut next = |bound: u64| {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (state >> 33) % bound
        };
        for len in 1..=40usize {
            let mut tree = MaxTree::new(len);
            let mut plain = vec![0u64; len];
            for _ in 0..200 {
                let lo = next(len as u64) as usize;
                let hi = lo + 1 + next((len - lo) as u64) as usize;
                if next(2) == 0 {
                    let value = next(1000);
                    tree.raise(lo, hi, value);
                    plain[lo..hi].iter_mut().for_each(|v| *v = (*v).max(value));
                } else {
                    assert_eq!(tree.max(lo, hi), plain[lo..hi].iter().copied().max().unwrap(), "len {len}, {lo}..{hi}");
                }
            }
            assert_eq!(tree.max(3, 3), 0);
        }
    }
}
