//! Jobs: the buffers to box and the boxes that boxing makes of them (the paper's "jobs", §3.1),
//! and interval graph colouring, which boxing, unboxing and the one-size case all use.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// What a job holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Contents {
    /// An input buffer, by its index in the problem.
    Buffer(usize),
    /// A box (one Matryoshka of Fig. 4): jobs whose load never exceeds the box's size at any time
    /// and whose lifetimes lie within the box's.
    Boxed(Vec<Job>),
    /// The dummy job of §5.6 that lifts h_max / h_min to inequality 12; unboxing skips it (§5.7).
    Dummy,
}

/// A buffer or a box: a height (`size`) alive during `[start, end)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    pub size: u64,
    pub start: u64,
    pub end: u64,
    pub contents: Contents,
    /// The size of the largest input buffer inside (its own for a buffer, 0 for the dummy job):
    /// unboxing stacks the rows holding the largest buffers first.
    pub largest: u64,
}

impl Job {
    pub fn buffer(index: usize, size: u64, start: u64, end: u64) -> Job {
        Job { size, start, end, contents: Contents::Buffer(index), largest: size }
    }

    /// The dummy job of §5.6.
    pub fn dummy(size: u64, start: u64, end: u64) -> Job {
        Job { size, start, end, contents: Contents::Dummy, largest: 0 }
    }

    /// A box of height `size` around `contents`, alive from the first start to the last end among
    /// them. The caller guarantees that their load fits in `size`. `contents` must not be empty.
    pub fn boxed(size: u64, contents: Vec<Job>) -> Job {
        debug_assert!(!contents.is_empty(), "an empty box");
        let start = contents.iter().map(|j| j.start).min().unwrap_or(0);
        let end = contents.iter().map(|j| j.end).max().unwrap_or(0);
        let largest = contents.iter().map(|j| j.largest).max().unwrap_or(0);
        Job { size, start, end, contents: Contents::Boxed(contents), largest }
    }

    /// Calls `visit` with every input buffer inside this job, however deeply boxed.
    #[cfg(test)]
    pub fn for_each_buffer(&self, visit: &mut impl FnMut(usize)) {
        match &self.contents {
            Contents::Buffer(index) => visit(*index),
            Contents::Boxed(inner) => inner.iter().for_each(|job| job.for_each_buffer(visit)),
            Contents::Dummy => {}
        }
    }
}

/// Interval graph colouring (Fig. 2): the row of each item, lowest free row first, visiting items
/// by start (ties in the given order), and the number of rows. Rows hold items that never overlap
/// in time, and the number of rows is the most items alive at once, which is optimal.
pub fn colour_rows<T>(items: &[T], lifetime: impl Fn(&T) -> (u64, u64)) -> (Vec<usize>, usize) {
    let mut by_start: Vec<usize> = (0..items.len()).collect();
    by_start.sort_by_key(|&i| lifetime(&items[i]).0);
    let mut row_of = vec![0usize; items.len()];
    if all_alive_at_once(items, &lifetime) {
        for (row, &i) in by_start.iter().enumerate() {
            row_of[i] = row;
        }
        return (row_of, items.len());
    }
    // Rows in use, by the end of their current item; rows free again, lowest first.
    let mut busy: BinaryHeap<Reverse<(u64, usize)>> = BinaryHeap::new();
    let mut free: BinaryHeap<Reverse<usize>> = BinaryHeap::new();
    let mut rows = 0;
    for i in by_start {
        let (start, end) = lifetime(&items[i]);
        while let Some(&Reverse((busy_until, row))) = busy.peek() {
            if busy_until > start {
                break;
            }
            busy.pop();
            free.push(Reverse(row));
        }
        let row = match free.pop() {
            Some(Reverse(row)) => row,
            None => {
                rows += 1;
                rows - 1
            }
        };
        row_of[i] = row;
        busy.push(Reverse((end, row)));
    }
    (row_of, rows)
}

/// True when some time lies in every lifetime (Lemma 1's jobs and the unresolved ones): then an
/// optimal colouring gives each item a row of its own, in order of start.
pub fn all_alive_at_once<T>(items: &[T], lifetime: impl Fn(&T) -> (u64, u64)) -> bool {
    let last_start = items.iter().map(|item| lifetime(item).0).max();
    let first_end = items.iter().map(|item| lifetime(item).1).min();
    last_start < first_end
}

/// The items grouped by row, rows in order, items of a row in their given order.
pub fn rows_of<T>(items: Vec<T>, lifetime: impl Fn(&T) -> (u64, u64)) -> Vec<Vec<T>> {
    let (row_of, count) = colour_rows(&items, lifetime);
    let mut rows: Vec<Vec<T>> = (0..count).map(|_| Vec::new()).collect();
    for (item, row) in items.into_iter().zip(row_of) {
        rows[row].push(item);
    }
    rows
}

/// The highest total size of `jobs` alive at one time (their max load).
#[cfg(test)]
pub fn peak_load(jobs: &[Job]) -> u128 {
    let as_buffers: Vec<crate::Buffer> =
        jobs.iter().map(|job| crate::Buffer::new("", job.start, job.end, job.size)).collect();
    crate::metrics::max_load_wide(&as_buffers)
}

/// A 64-bit mix (SplitMix64's finaliser): cheap per-node randomness derived from a seeded
/// ChaCha draw, so that every choice in a boxing follows from the solve's seed.
pub fn mix(seed: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colouring_uses_as_many_rows_as_the_most_alive_at_once() {
        let lifetimes = [(0u64, 4u64), (1, 3), (3, 6), (4, 5), (5, 9), (2, 8)];
        let (row_of, rows) = colour_rows(&lifetimes, |&l| l);
        assert_eq!(rows, 3);
        for (i, a) in lifetimes.iter().enumerate() {
            for (j, b) in lifetimes.iter().enumerate() {
                if i != j && row_of[i] == row_of[j] {
                    assert!(a.1 <= b.0 || b.1 <= a.0, "{a:?} and {b:?} share row {}", row_of[i]);
                }
            }
        }
        // Touching lifetimes share a row: (0,4) then (4,5).
        assert_eq!(row_of[0], row_of[3]);
    }

    #[test]
    fn peak_load_treats_touching_lifetimes_as_disjoint() {
        let jobs = vec![Job::buffer(0, 5, 0, 2), Job::buffer(1, 7, 2, 4), Job::buffer(2, 1, 1, 3)];
        assert_eq!(peak_load(&jobs), 8);
    }
}
