//! Unboxing (§4, Fig. 6): the offsets of the outermost boxes, found by interval graph colouring,
//! are carried down through every level of boxes to the buffers, from a watermark that rises row by
//! row. The result is a valid but sparse placement (heights were rounded up, boxes are rarely
//! full): the loose offsets, which the squeeze uses as its order.

use std::cmp::Reverse;

use super::jobs::{Contents, JobId, Jobs, Time, all_alive_at_once, colour_rows};

/// Loose offsets of every buffer inside the jobs `top` of `jobs`, written into `loose` (indexed by
/// buffer), from offset 0. A row's watermark rises to the top of what it holds (MaxAddr): by the
/// buffers' real sizes (each input job's `largest`), not their rounded heights. Returns the
/// highest address used.
///
/// A job's contents are stacked each on top of the one before, so what a job takes above the
/// watermark it is placed at (its stack height) does not depend on that watermark: the heights
/// are summed bottom-up first (a box is made after its contents, so in id order), the top-level
/// jobs are placed by them, and the offsets are carried down box by box (in reverse id order, a
/// box before its contents). Each pass visits the records in order, and its scattered accesses
/// do not wait on each other, where a walk down the boxes waited on a cache miss per job.
/// (Saturating sums of nonnegative terms are associative, so the offsets are those of the walk.)
pub(super) fn unbox(jobs: &Jobs, top: &[JobId], loose: &mut [u64]) -> u64 {
    // Per box (ids from `first_box` on): its stack height until its offset is known, then its
    // offset. An input job's height is its record's real size (0 for the dummy job), and its offset
    // goes straight to `loose`: no entry for the inputs, half the jobs.
    let first_box = jobs.inputs().end;
    let mut at = vec![0u64; jobs.len() - first_box as usize];
    for id in first_box..jobs.len() as JobId {
        if let Contents::Boxed(inner) = jobs.contents(id) {
            let height =
                inner.iter().fold(0u64, |height, &child| height.saturating_add(stack_height(jobs, &at, child)));
            at[(id - first_box) as usize] = height;
        }
    }
    let mut unboxing = Unboxing { jobs, first_box, at: &mut at, loose };
    let highest = unboxing.all(top, 0);
    for id in (first_box..jobs.len() as JobId).rev() {
        if let Contents::Boxed(inner) = jobs.contents(id) {
            let mut offset = unboxing.at[(id - first_box) as usize];
            for &child in inner {
                offset = unboxing.place(child, offset);
            }
        }
    }
    highest
}

/// A job's stack height: an input job's real size (0 for the dummy job), a box's from `at`.
fn stack_height(jobs: &Jobs, at: &[u64], id: JobId) -> u64 {
    match id.checked_sub(jobs.inputs().end) {
        Some(k) => at[k as usize],
        None => jobs.get(id).largest,
    }
}

struct Unboxing<'a> {
    jobs: &'a Jobs,
    /// The id of the first box.
    first_box: JobId,
    /// Each box's stack height, replaced by its offset once it is placed.
    at: &'a mut [u64],
    loose: &'a mut [u64],
}

impl Unboxing<'_> {
    /// UnboxAll: one size → rows by colouring; no overlap → each job at the watermark; otherwise
    /// each size, largest first, as rows above the previous one. Returns the new watermark.
    fn all(&mut self, ids: &[JobId], watermark: u64) -> u64 {
        let Some(&first) = ids.first() else {
            return watermark;
        };
        let size = |id: &JobId| self.jobs.get(*id).size;
        if ids.iter().all(|id| size(id) == size(&first)) {
            return self.same_sizes(ids, watermark);
        }
        if !self.overlap(ids) {
            return ids.iter().map(|&id| self.place(id, watermark)).max().unwrap_or(watermark);
        }
        let mut by_size: Vec<JobId> = ids.to_vec();
        by_size.sort_by_key(|id| Reverse(size(id)));
        let mut watermark = watermark;
        for class in by_size.chunk_by(|a, b| size(a) == size(b)) {
            watermark = self.same_sizes(class, watermark);
        }
        watermark
    }

    /// PlaceSameSizes: the rows of an optimal colouring, each placed at the watermark that the row
    /// below it reached.
    fn same_sizes(&mut self, ids: &[JobId], watermark: u64) -> u64 {
        let jobs = self.jobs;
        // Each record read once: the colouring's sort and the row sort looked the records up
        // at every comparison.
        let keys: Vec<(Time, Time, u64)> = ids
            .iter()
            .map(|&id| {
                let record = jobs.get(id);
                (record.start, record.end, record.largest)
            })
            .collect();
        let lifetime = |&(start, end, _): &(Time, Time, u64)| (start, end);
        if all_alive_at_once(&keys, lifetime) {
            // One row per job, each on top of the one before: the largest buffers first, then by
            // start (the order boxes keep their contents in), ties in the given order.
            let mut rows: Vec<(Reverse<u64>, Time, usize)> =
                keys.iter().enumerate().map(|(k, &(start, _, largest))| (Reverse(largest), start, k)).collect();
            rows.sort_unstable();
            return rows.into_iter().fold(watermark, |watermark, (.., k)| self.place(ids[k], watermark));
        }
        let (row_of, rows) = colour_rows(&keys, lifetime);
        // Any order of the rows is valid; the rows with the largest buffers go first ("big rocks
        // first", §5.5), so the squeeze meets them early (ties: lower row first).
        let mut largest = vec![0u64; rows];
        for (&(_, _, size), &row) in keys.iter().zip(&row_of) {
            largest[row] = largest[row].max(size);
        }
        drop(keys);
        let mut rank = vec![0usize; rows];
        let mut by_largest: Vec<usize> = (0..rows).collect();
        by_largest.sort_by_key(|&row| Reverse(largest[row]));
        for (position, &row) in by_largest.iter().enumerate() {
            rank[row] = position;
        }
        // The jobs row by row in that order, each row's in the given order: a counting sort by
        // rank (every row holds a job), one flat list instead of a vector per row.
        let mut bounds = vec![0usize; rows + 1];
        for &row in &row_of {
            bounds[rank[row] + 1] += 1;
        }
        for r in 0..rows {
            bounds[r + 1] += bounds[r];
        }
        let mut next = bounds.clone();
        let mut by_row = vec![0 as JobId; ids.len()];
        for (&id, &row) in ids.iter().zip(&row_of) {
            let at = &mut next[rank[row]];
            by_row[*at] = id;
            *at += 1;
        }
        let mut watermark = watermark;
        for row in bounds.windows(2).map(|w| &by_row[w[0]..w[1]]) {
            // The jobs of a row never overlap in time, so all of them go at the same watermark.
            watermark = row.iter().map(|&id| self.place(id, watermark)).max().unwrap_or(watermark);
        }
        watermark
    }

    /// One job at `watermark`: a buffer takes it as its loose offset, a box records it for the
    /// pass that carries offsets down into boxes, the dummy job takes no room (§5.7). Returns the
    /// top of what the job holds.
    fn place(&mut self, id: JobId, watermark: u64) -> u64 {
        let height = match id.checked_sub(self.first_box) {
            Some(k) => std::mem::replace(&mut self.at[k as usize], watermark),
            None => {
                if let Contents::Buffer(index) = self.jobs.contents(id) {
                    self.loose[index] = watermark;
                }
                self.jobs.get(id).largest
            }
        };
        watermark.saturating_add(height)
    }

    /// True when two of the jobs are alive at one time.
    fn overlap(&self, ids: &[JobId]) -> bool {
        let mut lifetimes: Vec<(Time, Time)> =
            ids.iter().map(|&id| (self.jobs.get(id).start, self.jobs.get(id).end)).collect();
        lifetimes.sort_unstable();
        lifetimes.windows(2).any(|pair| pair[1].0 < pair[0].1)
    }
}

#[cfg(test)]
mod tests {
    use super::super::boxing::{Schedule, box_in_rounds};
    use super::super::jobs::Made;
    use super::*;
    use crate::options::Deadline;
    use proptest::prelude::*;

    /// Unboxing as Fig. 6 states it, a walk down the boxes from each top-level job (the rows
    /// sorted by stable sorts on keys looked up in the records): the oracle for [`unbox`]'s passes.
    struct Walk<'a> {
        jobs: &'a Jobs,
        loose: Vec<u64>,
    }

    impl Walk<'_> {
        fn all(&mut self, ids: &[JobId], watermark: u64) -> u64 {
            let size = |id: &JobId| self.jobs.get(*id).size;
            if ids.iter().all(|id| size(id) == size(&ids[0])) {
                return self.same_sizes(ids, watermark);
            }
            let mut lifetimes: Vec<(Time, Time)> =
                ids.iter().map(|&id| (self.jobs.get(id).start, self.jobs.get(id).end)).collect();
            lifetimes.sort_unstable();
            if !lifetimes.windows(2).any(|pair| pair[1].0 < pair[0].1) {
                return ids.iter().map(|&id| self.place(id, watermark)).max().unwrap_or(watermark);
            }
            let mut by_size = ids.to_vec();
            by_size.sort_by_key(|id| Reverse(size(id)));
            let mut watermark = watermark;
            for class in by_size.chunk_by(|a, b| size(a) == size(b)) {
                watermark = self.same_sizes(class, watermark);
            }
            watermark
        }

        fn same_sizes(&mut self, ids: &[JobId], watermark: u64) -> u64 {
            let jobs = self.jobs;
            let lifetime = |id: &JobId| (jobs.get(*id).start, jobs.get(*id).end);
            if all_alive_at_once(ids, lifetime) {
                let mut rows = ids.to_vec();
                rows.sort_by_key(|&id| (Reverse(jobs.get(id).largest), jobs.get(id).start));
                return rows.into_iter().fold(watermark, |watermark, id| self.place(id, watermark));
            }
            let (row_of, rows) = colour_rows(ids, lifetime);
            let mut largest = vec![0u64; rows];
            for (&id, &row) in ids.iter().zip(&row_of) {
                largest[row] = largest[row].max(jobs.get(id).largest);
            }
            let mut by_largest: Vec<usize> = (0..rows).collect();
            by_largest.sort_by_key(|&row| Reverse(largest[row]));
            let mut watermark = watermark;
            for row in by_largest {
                let members = ids.iter().zip(&row_of).filter(|&(_, &r)| r == row);
                watermark = members.map(|(&id, _)| self.place(id, watermark)).max().unwrap_or(watermark);
            }
            watermark
        }

        fn place(&mut self, id: JobId, watermark: u64) -> u64 {
            match self.jobs.contents(id) {
                Contents::Buffer(index) => {
                    self.loose[index] = watermark;
                    watermark.saturating_add(self.jobs.get(id).largest)
                }
                Contents::Boxed(inner) => {
                    inner.iter().fold(watermark, |watermark, &child| self.place(child, watermark))
                }
                Contents::Dummy => watermark,
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Random buffers boxed in rounds at a random ε (a dummy job spanning them all, or not):
        /// the passes give every buffer the loose offset, and return the highest address, that
        /// the walk down the boxes gives, and the placement is valid.
        #[test]
        fn the_passes_place_as_the_walk_down_the_boxes(
            raw in prop::collection::vec((0u32..120, 1u32..30, 0u32..5, 1u64..50), 1..250),
            epsilon in 0.05f64..4.0,
            dummy in any::<bool>(),
            seed in any::<u64>(),
        ) {
            let mut jobs = Jobs::default();
            let mut buffers = Vec::new();
            for (i, &(start, length, scale, size)) in raw.iter().enumerate() {
                let size = size << (4 * scale);
                jobs.add_buffer(i, size, start, start + length);
                buffers.push((u64::from(start), u64::from(start + length), size));
            }
            if dummy {
                jobs.add_dummy(1 << 20, 0, 150);
            }
            let heights: Vec<u64> = jobs.inputs().map(|id| jobs.get(id).size).collect();
            let schedule = Schedule::plan(&heights, epsilon);
            let top = box_in_rounds(&mut jobs, &schedule, seed, &Deadline::none()).unwrap();
            let mut loose = vec![u64::MAX; raw.len()];
            let highest = unbox(&jobs, &top, &mut loose);
            let mut walk = Walk { jobs: &jobs, loose: vec![u64::MAX; raw.len()] };
            let walked = walk.all(&top, 0);
            prop_assert_eq!(&loose, &walk.loose);
            prop_assert_eq!(highest, walked);
            assert_valid(&buffers, &loose);
        }
    }

    /// No two buffers alive at once share an address.
    fn assert_valid(buffers: &[(u64, u64, u64)], loose: &[u64]) {
        for (i, a) in buffers.iter().enumerate() {
            for (j, b) in buffers.iter().enumerate().skip(i + 1) {
                let in_time = a.0 < b.1 && b.0 < a.1;
                let in_space = loose[i] < loose[j] + b.2 && loose[j] < loose[i] + a.2;
                assert!(!(in_time && in_space), "buffers {i} and {j} collide");
            }
        }
    }

    #[test]
    fn boxes_nest_and_rows_stack() {
        // (start, end, size)
        let buffers = [(0u64, 4u64, 3u64), (1, 4, 3), (4, 8, 2), (2, 6, 4), (3, 9, 4), (0, 9, 1)];
        let mut jobs = Jobs::default();
        // Heights as Corollary 15 rounds them: 0 and 1 to 3; 2 alone to 3; 3 and 4 to 4; 5 to 1.
        let heights = [3u64, 3, 3, 4, 4, 1];
        for (i, &(start, end, size)) in buffers.iter().enumerate() {
            let id = jobs.add_buffer(i, size, u32::try_from(start).unwrap(), u32::try_from(end).unwrap());
            jobs.set_size(id, heights[i]);
        }
        let dummy = jobs.add_dummy(8, 0, 9);
        // Boxes of height 8 around jobs alive at one time: {0, 1}, {2}, {3, 4}, {5}.
        let mut made = Made::default();
        for contents in [vec![0, 1], vec![2], vec![3, 4], vec![5]] {
            made.add_box(&jobs, 8, contents);
        }
        let mut top = Vec::new();
        jobs.commit(made, &mut top);
        top.push(dummy);
        let mut loose = vec![u64::MAX; buffers.len()];
        let highest = unbox(&jobs, &top, &mut loose);
        assert!(loose.iter().all(|&offset| offset != u64::MAX), "every buffer placed: {loose:?}");
        assert_valid(&buffers, &loose);
        assert!(highest >= loose.iter().zip(&buffers).map(|(o, b)| o + b.2).max().unwrap());
        // Inside the box of 3 and 4 the two are stacked, largest first then by start.
        assert_eq!(loose[4], loose[3] + 4);
    }
}
