//! Jobs: the buffers to box and the boxes that boxing makes of them (the paper's "jobs", §3.1),
//! and interval graph colouring, which boxing, unboxing and the one-size case all use.
//!
//! Jobs live in one flat arena per boxing ([`Jobs`]), named by index: the input jobs (movable
//! buffers and the dummy) first, then the boxes in the order they were made, each box's contents a
//! range of one shared member list: one arena per iteration, not a tree of vectors.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A job's index in its [`Jobs`] arena.
pub(super) type JobId = u32;

/// A time as boxing sees it: the rank of a lifetime endpoint among the problem's distinct
/// endpoints. Boxing and unboxing only compare times, so ranks give the same boxes as the times
/// themselves, in half the bytes (on 2·10^6 buffers the job records were a third of the heap).
pub(super) type Time = u32;

/// A buffer or a box: a height (`size`) alive during `[start, end)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Record {
    pub size: u64,
    pub start: Time,
    pub end: Time,
    /// The size of the largest input buffer inside (its own for a buffer, 0 for the dummy job):
    /// unboxing stacks the rows holding the largest buffers first. For a buffer it is its real
    /// size, which unboxing stacks by (`size` may have been rounded up).
    pub largest: u64,
    /// A box's contents are `members[first..first + count]`; `count` is 0 for an input job, whose
    /// `first` is its buffer index ([`DUMMY`] for the dummy job): unboxing finds a buffer's index
    /// and size in the one record, where a separate index list cost a second dependent cache
    /// miss per buffer (on 2·10^6 buffers most of the unboxing walk's time).
    first: u32,
    count: u32,
}

/// What a job holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Contents<'a> {
    /// An input buffer, by its index in the problem.
    Buffer(usize),
    /// A box (one Matryoshka of Fig. 4): jobs of one height, all alive at one time (every box of
    /// Theorem 2 comes from the jobs alive at a critical point), whose load never exceeds the box's
    /// size, in the order unboxing stacks them.
    Boxed(&'a [JobId]),
    /// The dummy job of §5.6 that lifts h_max / h_min to inequality 12; unboxing skips it (§5.7).
    Dummy,
}

/// The buffer index that marks the dummy job among the inputs.
const DUMMY: u32 = u32::MAX;

/// Every job of one boxing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Jobs {
    records: Vec<Record>,
    members: Vec<JobId>,
    /// How many input jobs there are; later ids are boxes.
    inputs: u32,
}

impl Jobs {
    /// An input buffer of the problem, by index, as a job of height `size`.
    pub(super) fn add_buffer(&mut self, index: usize, size: u64, start: Time, end: Time) -> JobId {
        // Problems index buffers by u32 in the occupancy index too: 4 × 10^9 buffers never fit here.
        let index = u32::try_from(index).ok().filter(|&i| i != DUMMY).expect("fewer than 2^32 - 1 buffers");
        self.add_input(Record { size, start, end, largest: size, first: index, count: 0 })
    }

    /// The dummy job of §5.6.
    pub(super) fn add_dummy(&mut self, size: u64, start: Time, end: Time) -> JobId {
        self.add_input(Record { size, start, end, largest: 0, first: DUMMY, count: 0 })
    }

    fn add_input(&mut self, record: Record) -> JobId {
        debug_assert_eq!(self.records.len(), self.inputs as usize, "inputs come before boxes");
        self.inputs += 1;
        self.records.push(record);
        (self.records.len() - 1) as JobId
    }

    /// The input jobs, in the order they were added.
    pub(super) fn inputs(&self) -> std::ops::Range<JobId> {
        0..self.inputs
    }

    /// An empty arena with room for `inputs` input jobs exactly (boxes reserve their own room).
    pub(super) fn with_capacity(inputs: usize) -> Jobs {
        Jobs { records: Vec::with_capacity(inputs), members: Vec::new(), inputs: 0 }
    }

    /// How many jobs there are: ids are `0..len()`, input jobs first, then boxes, each made after
    /// its contents.
    pub(super) fn len(&self) -> usize {
        self.records.len()
    }

    pub(super) fn get(&self, id: JobId) -> &Record {
        &self.records[id as usize]
    }

    /// How many jobs' records may be asked for at once ([`Jobs::prefetch`]): 32 bytes each, they
    /// stay in the level-2 cache until read. Boxing asks for a group this small whole, a larger
    /// one a strip or a box at a time.
    pub(super) const PREFETCH_AT_ONCE: usize = 4096;

    /// Asks for the records of `ids` ahead of their use (a hint: nothing is read). Boxing and
    /// unboxing visit jobs in time order or box by box, which scatters their records across the
    /// arena: asked for together, their cache misses overlap instead of waiting each in turn.
    pub(super) fn prefetch(&self, ids: impl IntoIterator<Item = JobId>) {
        for id in ids {
            if let Some(record) = self.records.get(id as usize) {
                crate::occupancy::prefetch(record);
            }
        }
    }

    /// Rounds a job's height up (Corollary 15) before it is boxed.
    pub(super) fn set_size(&mut self, id: JobId, size: u64) {
        self.records[id as usize].size = size;
    }

    pub(super) fn contents(&self, id: JobId) -> Contents<'_> {
        let record = &self.records[id as usize];
        match record.first {
            DUMMY if id < self.inputs => Contents::Dummy,
            buffer if id < self.inputs => Contents::Buffer(buffer as usize),
            first => Contents::Boxed(&self.members[first as usize..][..record.count as usize]),
        }
    }

    /// Room for `boxes` more boxes holding `members` jobs in all, exactly: a doubling list held up
    /// to twice what the boxing of millions of buffers needs.
    pub(super) fn reserve_exact(&mut self, boxes: usize, members: usize) {
        self.records.reserve_exact(boxes);
        self.members.reserve_exact(members);
    }

    /// Adds the boxes of `made` and appends their ids to `out`.
    pub(super) fn commit(&mut self, made: Made, out: &mut Vec<JobId>) {
        let base = self.members.len() as u32;
        self.members.extend_from_slice(&made.members);
        for mut record in made.boxes {
            record.first += base;
            out.push(self.records.len() as JobId);
            self.records.push(record);
        }
    }

    /// Calls `visit` with every input buffer inside this job, however deeply boxed.
    #[cfg(test)]
    pub(super) fn for_each_buffer(&self, id: JobId, visit: &mut impl FnMut(usize)) {
        match self.contents(id) {
            Contents::Buffer(index) => visit(index),
            Contents::Boxed(inner) => inner.iter().for_each(|&job| self.for_each_buffer(job, visit)),
            Contents::Dummy => {}
        }
    }
}

/// Boxes made from existing jobs while the arena is shared read-only (by parallel tasks), added to
/// it afterwards with [`Jobs::commit`]. Boxes only ever hold jobs made before them.
#[derive(Debug, Default)]
pub(super) struct Made {
    boxes: Vec<Record>,
    members: Vec<JobId>,
    /// Scratch for [`Made::add_box`]: the contents with their sort keys.
    keyed: Vec<(Reverse<u64>, Time, u32, JobId)>,
}

impl Made {
    /// Room for `jobs` jobs in `boxes` boxes (more boxes grow the list).
    pub(super) fn with_capacity(jobs: usize, boxes: usize) -> Made {
        Made { boxes: Vec::with_capacity(boxes), members: Vec::with_capacity(jobs), keyed: Vec::new() }
    }

    /// A box of height `size` around `contents` (not empty, all of one height and alive at one
    /// time), alive from the first start to the last end among them. The caller guarantees that
    /// their load fits in `size`. The contents are stored in unboxing order: largest buffer first,
    /// then by start.
    pub(super) fn add_box(&mut self, jobs: &Jobs, size: u64, contents: impl IntoIterator<Item = JobId>) {
        let first = self.members.len();
        // Each job's record is read once, for its key and the box's extent (a sort that looked
        // the keys up compared scattered records at every step); the position among the
        // contents keeps ties in the given order, as a stable sort would.
        let (mut start, mut end, mut largest) = (Time::MAX, 0, 0);
        self.keyed.clear();
        for (position, id) in contents.into_iter().enumerate() {
            let record = jobs.get(id);
            start = start.min(record.start);
            end = end.max(record.end);
            largest = largest.max(record.largest);
            self.keyed.push((Reverse(record.largest), record.start, position as u32, id));
        }
        debug_assert!(!self.keyed.is_empty(), "an empty box");
        self.keyed.sort_unstable();
        self.members.extend(self.keyed.iter().map(|&(.., id)| id));
        let count = self.keyed.len() as u32;
        self.boxes.push(Record { size, start, end, largest, first: first as u32, count });
    }

    /// Moves the boxes of `other` after these.
    pub(super) fn append(&mut self, other: Made) {
        let base = self.members.len() as u32;
        self.members.extend_from_slice(&other.members);
        self.boxes.extend(other.boxes.into_iter().map(|record| Record { first: record.first + base, ..record }));
    }

    pub(super) fn len(&self) -> usize {
        self.boxes.len()
    }

    /// How many jobs the boxes hold in all.
    pub(super) fn members(&self) -> usize {
        self.members.len()
    }
}

/// A job as boxing handles it: its lifetime inline, so that partitions and sorts need not look it
/// up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Item {
    pub start: Time,
    pub end: Time,
    pub id: JobId,
}

impl Item {
    pub(super) fn of(jobs: &Jobs, id: JobId) -> Item {
        let record = jobs.get(id);
        Item { start: record.start, end: record.end, id }
    }
}

/// Interval graph colouring (Fig. 2): the row of each item, lowest free row first, visiting items
/// by start (ties in the given order), and the number of rows. Rows hold items that never overlap
/// in time, and the number of rows is the most items alive at once, which is optimal.
pub(super) fn colour_rows<T, K: Ord + Copy>(items: &[T], lifetime: impl Fn(&T) -> (K, K)) -> (Vec<usize>, usize) {
    // Each lifetime read once, beside its position (which keeps ties in the given order, as a
    // stable sort would): a sort that looked the items up compared scattered job records at
    // every step when unboxing colours the top-level boxes.
    let mut by_start: Vec<(K, usize, K)> =
        items.iter().map(&lifetime).enumerate().map(|(i, (s, e))| (s, i, e)).collect();
    by_start.sort_unstable_by_key(|&(start, i, _)| (start, i));
    let mut row_of = vec![0usize; items.len()];
    if all_alive_at_once(&by_start, |&(s, _, e)| (s, e)) {
        for (row, &(_, i, _)) in by_start.iter().enumerate() {
            row_of[i] = row;
        }
        return (row_of, items.len());
    }
    // Rows in use, by the end of their current item; rows free again, lowest first.
    let mut busy: BinaryHeap<Reverse<(K, usize)>> = BinaryHeap::new();
    let mut free: BinaryHeap<Reverse<usize>> = BinaryHeap::new();
    let mut rows = 0;
    for (start, i, end) in by_start {
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
pub(super) fn all_alive_at_once<T, K: Ord + Copy>(items: &[T], lifetime: impl Fn(&T) -> (K, K)) -> bool {
    let last_start = items.iter().map(|item| lifetime(item).0).max();
    let first_end = items.iter().map(|item| lifetime(item).1).min();
    last_start < first_end
}

/// The highest total size of `jobs` alive at one time (their max load).
#[cfg(test)]
pub(super) fn peak_load(jobs: &Jobs, ids: &[JobId]) -> u128 {
    let as_buffers: Vec<crate::Buffer> = ids
        .iter()
        .map(|&id| {
            let record = jobs.get(id);
            crate::Buffer::new("", record.start.into(), record.end.into(), record.size)
        })
        .collect();
    crate::metrics::max_load_wide(&as_buffers)
}

/// A 64-bit mix (SplitMix64's finaliser): cheap per-node randomness derived from a seeded
/// ChaCha draw, so that every choice in a boxing follows from the solve's seed.
pub(super) fn mix(seed: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]
        /// The colouring gives each item the row that a direct greedy scan gives it (by start,
        /// ties in the given order, the lowest row free at its start), and no more rows than
        /// items alive at once.
        #[test]
        fn colouring_matches_a_direct_greedy_scan(
            raw in prop::collection::vec((0u32..60, 1u32..20), 1..120),
        ) {
            let lifetimes: Vec<(u32, u32)> = raw.iter().map(|&(s, l)| (s, s + l)).collect();
            let (row_of, rows) = colour_rows(&lifetimes, |&l| l);
            let mut order: Vec<usize> = (0..lifetimes.len()).collect();
            order.sort_by_key(|&i| lifetimes[i].0);
            let mut expected = vec![usize::MAX; lifetimes.len()];
            for &i in &order {
                let (s, e) = lifetimes[i];
                let taken = |row: usize| {
                    (0..lifetimes.len()).any(|j| expected[j] == row && lifetimes[j].0 < e && s < lifetimes[j].1)
                };
                expected[i] = (0..).find(|&row| !taken(row)).unwrap();
            }
            prop_assert_eq!(&row_of, &expected);
            let most_alive = (0..80u32).map(|t| lifetimes.iter().filter(|l| l.0 <= t && t < l.1).count()).max();
            prop_assert_eq!(Some(rows), most_alive);
        }
    }

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
        let mut jobs = Jobs::default();
        let ids = [jobs.add_buffer(0, 5, 0, 2), jobs.add_buffer(1, 7, 2, 4), jobs.add_buffer(2, 1, 1, 3)];
        assert_eq!(peak_load(&jobs, &ids), 8);
    }

    #[test]
    fn boxes_span_their_contents_in_unboxing_order() {
        let mut jobs = Jobs::default();
        let a = jobs.add_buffer(7, 4, 2, 9);
        let b = jobs.add_buffer(3, 6, 1, 5);
        let dummy = jobs.add_dummy(100, 0, 10);
        let mut made = Made::default();
        made.add_box(&jobs, 12, [a, b]);
        let mut ids = Vec::new();
        jobs.commit(made, &mut ids);
        let outer = ids[0];
        let record = *jobs.get(outer);
        assert_eq!((record.size, record.start, record.end, record.largest), (12, 1, 9, 6));
        assert_eq!(jobs.contents(outer), Contents::Boxed(&[b, a]), "largest first");
        assert_eq!(jobs.contents(a), Contents::Buffer(7));
        assert_eq!(jobs.contents(dummy), Contents::Dummy);
        jobs.set_size(a, 5);
        assert_eq!(jobs.get(a).size, 5);
    }
}
