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
use crate::range_max::RangeMax;

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
    tree: RangeMax,
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
            tree: RangeMax::new(times.len().saturating_sub(1)),
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
}
