//! Unboxing (§4, Fig. 6): the offsets of the outermost boxes, found by interval graph colouring,
//! are carried down through every level of boxes to the buffers, from a watermark that rises row by
//! row. The result is a valid but sparse placement (heights were rounded up, boxes are rarely
//! full): the loose offsets, which the squeeze uses as its order.

use super::jobs::{Contents, Job, all_alive_at_once, colour_rows};

/// Loose offsets of every buffer inside `jobs`, written into `loose` (indexed by buffer), from
/// offset 0. `sizes` are the buffers' real sizes: a row's watermark rises to the top of what it
/// holds (MaxAddr), not to its rounded height. Returns the highest address used.
pub fn unbox(jobs: &[Job], sizes: &[u64], loose: &mut [u64]) -> u64 {
    let jobs: Vec<&Job> = jobs.iter().collect();
    unbox_all(&jobs, 0, sizes, loose)
}

/// UnboxAll: one size → rows by colouring; no overlap → each job at the watermark; otherwise
/// each size, largest first, as rows above the previous one. Returns the new watermark.
fn unbox_all(jobs: &[&Job], watermark: u64, sizes: &[u64], loose: &mut [u64]) -> u64 {
    let Some(first) = jobs.first() else {
        return watermark;
    };
    if jobs.iter().all(|job| job.size == first.size) {
        return place_same_sizes(jobs, watermark, sizes, loose);
    }
    if !overlap(jobs) {
        return jobs.iter().map(|job| place(job, watermark, sizes, loose)).max().unwrap_or(watermark);
    }
    let mut by_size: Vec<&Job> = jobs.to_vec();
    by_size.sort_by_key(|job| std::cmp::Reverse(job.size));
    let mut watermark = watermark;
    for class in by_size.chunk_by(|a, b| a.size == b.size) {
        watermark = place_same_sizes(class, watermark, sizes, loose);
    }
    watermark
}

/// PlaceSameSizes: the rows of an optimal colouring, each placed at the watermark that the row
/// below it reached.
fn place_same_sizes(jobs: &[&Job], watermark: u64, sizes: &[u64], loose: &mut [u64]) -> u64 {
    if all_alive_at_once(jobs, |job| (job.start, job.end)) {
        // One row per job, by start, each on top of the one before.
        let mut rows = jobs.to_vec();
        rows.sort_by_key(|job| (std::cmp::Reverse(job.largest), job.start));
        return rows.into_iter().fold(watermark, |watermark, job| place(job, watermark, sizes, loose));
    }
    let (row_of, rows) = colour_rows(jobs, |job| (job.start, job.end));
    let mut by_row: Vec<Vec<&Job>> = vec![Vec::new(); rows];
    for (job, row) in jobs.iter().zip(row_of) {
        by_row[row].push(job);
    }
    // Any order of the rows is valid; the rows with the largest buffers go first ("big rocks
    // first", §5.5), so the squeeze meets them early.
    by_row.sort_by_key(|row| std::cmp::Reverse(row.iter().map(|job| job.largest).max().unwrap_or(0)));
    let mut watermark = watermark;
    for row in by_row {
        // The jobs of a row never overlap in time, so all of them go at the same watermark.
        watermark = row.iter().map(|job| place(job, watermark, sizes, loose)).max().unwrap_or(watermark);
    }
    watermark
}

/// One job at `watermark`: a buffer takes it as its loose offset, a box unboxes its contents from
/// it, the dummy job is skipped (§5.7). Returns the top of what was placed.
fn place(job: &Job, watermark: u64, sizes: &[u64], loose: &mut [u64]) -> u64 {
    match &job.contents {
        Contents::Buffer(index) => {
            loose[*index] = watermark;
            watermark.saturating_add(sizes[*index])
        }
        Contents::Boxed(inner) => {
            let inner: Vec<&Job> = inner.iter().collect();
            unbox_all(&inner, watermark, sizes, loose)
        }
        Contents::Dummy => watermark,
    }
}

/// True when two of the jobs are alive at one time.
fn overlap(jobs: &[&Job]) -> bool {
    let mut lifetimes: Vec<(u64, u64)> = jobs.iter().map(|job| (job.start, job.end)).collect();
    lifetimes.sort_unstable();
    lifetimes.windows(2).any(|pair| pair[1].0 < pair[0].1)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let buffers = [(0u64, 4u64, 3u64), (0, 4, 3), (4, 8, 2), (2, 6, 4), (6, 9, 4), (0, 9, 1)];
        let sizes: Vec<u64> = buffers.iter().map(|b| b.2).collect();
        let job = |i: usize, height: u64| Job::buffer(i, height, buffers[i].0, buffers[i].1);
        // A box of height 6 with three size-3 slots (0, 1 and 2 rounded up), another with 3 and 4.
        let a = Job::boxed(6, vec![job(0, 3), job(1, 3), job(2, 3)]);
        let b = Job::boxed(6, vec![job(3, 4), job(4, 4)]);
        let c = Job::boxed(6, vec![job(5, 1)]);
        let dummy = Job::dummy(6, 0, 9);
        let mut loose = vec![u64::MAX; buffers.len()];
        let top = unbox(&[a, b, c, dummy], &sizes, &mut loose);
        assert!(loose.iter().all(|&offset| offset != u64::MAX), "every buffer placed: {loose:?}");
        assert_valid(&buffers, &loose);
        assert!(top >= loose.iter().zip(&sizes).map(|(o, s)| o + s).max().unwrap());
    }
}
