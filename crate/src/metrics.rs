//! Measures of an instance and of a plan, each by an event sweep or sorting: O(n log n).

use crate::model::{Buffer, Problem, Semantics, wire};
use crate::range_max::RangeMax;

pub use crate::model::load::{load_profile, makespan, max_load_wide, peak_time};

/// For each buffer, how many others are alive at some time it is: `#{starts < end} −
/// #{ends <= start} − 1`, by binary search over sorted starts and ends, without listing pairs.
pub fn conflicts_per_buffer(buffers: &[Buffer]) -> Vec<u64> {
    let mut starts: Vec<u64> = buffers.iter().map(|b| b.start).collect();
    let mut ends: Vec<u64> = buffers.iter().map(|b| b.end).collect();
    starts.sort_unstable();
    ends.sort_unstable();
    buffers
        .iter()
        .map(|b| {
            let started_before_end = starts.partition_point(|&s| s < b.end);
            let ended_by_start = ends.partition_point(|&e| e <= b.start);
            (started_before_end - ended_by_start - 1) as u64
        })
        .collect()
}

/// The number of pairs of buffers alive at the same time.
pub fn conflict_count(buffers: &[Buffer]) -> u64 {
    conflicts_per_buffer(buffers).iter().sum::<u64>() / 2
}

/// For each buffer, the most bytes alive at any time during its lifetime (TelaMalloc §3.1's
/// "contention"), by range-maximum queries over the load profile.
pub fn contention_per_buffer(buffers: &[Buffer]) -> Vec<u64> {
    let profile = load_profile(buffers);
    let times: Vec<u64> = profile.iter().map(|&(t, _)| t).collect();
    let loads: Vec<u64> = profile.iter().map(|&(_, l)| l).collect();
    let tree = RangeMax::from_values(&loads);
    buffers
        .iter()
        .map(|b| {
            // Steps from the one starting at b.start up to, not including, the one at b.end.
            let first = times.partition_point(|&t| t < b.start);
            let last = times.partition_point(|&t| t < b.end);
            tree.max(first, last)
        })
        .collect()
}

/// An instance at a glance (`memplan stats`, the page's header): sizes, span, conflicts. Integers
/// follow `crate::model::wire`'s rule in JSON.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct InstanceSummary {
    pub buffers: usize,
    /// The most bytes alive at once (L).
    #[serde(serialize_with = "wire::serialize_u64")]
    #[cfg_attr(test, ts(type = "number | string"))]
    pub max_load: u64,
    /// The instance's own lower bound: L, pinned tops and alignment.
    #[serde(serialize_with = "wire::serialize_u64")]
    #[cfg_attr(test, ts(type = "number | string"))]
    pub lower_bound: u64,
    /// The sum of all sizes (it may pass u64).
    #[serde(serialize_with = "wire::serialize_u128")]
    #[cfg_attr(test, ts(type = "number | string"))]
    pub total_size: u128,
    #[serde(serialize_with = "wire::serialize_u64")]
    #[cfg_attr(test, ts(type = "number | string"))]
    pub min_size: u64,
    #[serde(serialize_with = "wire::serialize_u64")]
    #[cfg_attr(test, ts(type = "number | string"))]
    pub max_size: u64,
    #[serde(serialize_with = "wire::serialize_u64")]
    #[cfg_attr(test, ts(type = "number | string"))]
    pub first_start: u64,
    #[serde(serialize_with = "wire::serialize_u64")]
    #[cfg_attr(test, ts(type = "number | string"))]
    pub last_end: u64,
    /// Pairs of buffers alive at the same time (gaps honoured).
    #[serde(serialize_with = "wire::serialize_u64")]
    #[cfg_attr(test, ts(type = "number | string"))]
    pub conflicts: u64,
    pub pinned: usize,
    pub aligned: usize,
    /// Buffers with gaps.
    pub gapped: usize,
    /// The instance's own capacity, if it has one.
    #[serde(serialize_with = "wire::serialize_option_u64")]
    #[cfg_attr(test, ts(type = "number | string | null"))]
    pub capacity: Option<u64>,
    /// What the input's times meant.
    pub semantics: Semantics,
}

/// The figures of an instance that `memplan stats` prints.
///
/// ```
/// use memplan::{Buffer, Problem, metrics};
///
/// let buffers = vec![Buffer::new("a", 0, 2, 4), Buffer::new("b", 1, 3, 6), Buffer::new("c", 3, 4, 1)];
/// let problem = Problem::new(buffers, None).unwrap();
/// let summary = metrics::summary(&problem);
/// assert_eq!((summary.buffers, summary.max_load, summary.conflicts), (3, 10, 1));
/// // The makespan of a plan: the highest offset + size.
/// assert_eq!(metrics::makespan(problem.buffers(), &[0, 4, 0]), 10);
/// ```
pub fn summary(problem: &Problem) -> InstanceSummary {
    let buffers = problem.buffers();
    InstanceSummary {
        buffers: buffers.len(),
        max_load: problem.max_load(),
        lower_bound: problem.lower_bound(),
        total_size: buffers.iter().map(|b| b.size as u128).sum(),
        min_size: buffers.iter().map(|b| b.size).min().unwrap_or(0),
        max_size: buffers.iter().map(|b| b.size).max().unwrap_or(0),
        first_start: buffers.iter().map(|b| b.start).min().unwrap_or(0),
        last_end: buffers.iter().map(|b| b.end).max().unwrap_or(0),
        conflicts: conflict_count(buffers) - apart_in_gaps(buffers),
        pinned: buffers.iter().filter(|b| b.pinned.is_some()).count(),
        aligned: buffers.iter().filter(|b| b.alignment() > 1).count(),
        gapped: buffers.iter().filter(|b| b.has_gaps()).count(),
        capacity: problem.capacity(),
        semantics: problem.semantics(),
    }
}

/// Pairs whose lifetimes meet but that are never alive together, thanks to a gap: what
/// [`conflict_count`] (which sees lifetimes) counts too many. A scan per buffer with gaps, which
/// inputs have few of.
fn apart_in_gaps(buffers: &[Buffer]) -> u64 {
    let mut apart = 0;
    for (i, a) in buffers.iter().enumerate().filter(|(_, b)| b.has_gaps()) {
        for (j, b) in buffers.iter().enumerate() {
            // A pair of two buffers with gaps is counted once, from the lower index.
            let counted_here = j != i && (!b.has_gaps() || j > i);
            if counted_here && a.overlaps_in_time(b) && !a.alive_together(b) {
                apart += 1;
            }
        }
    }
    apart
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buffers(spec: &[(u64, u64, u64)]) -> Vec<Buffer> {
        spec.iter().enumerate().map(|(i, &(s, e, z))| Buffer::new(i.to_string(), s, e, z)).collect()
    }

    /// The pairwise definitions, for comparison with the sweeps.
    fn naive(bs: &[Buffer]) -> (u128, Vec<u64>, Vec<u64>) {
        let times: Vec<u64> = bs.iter().map(|b| b.start).collect();
        let load_at = |t: u64| bs.iter().filter(|b| b.start <= t && t < b.end).map(|b| b.size as u128).sum::<u128>();
        let max_load = times.iter().map(|&t| load_at(t)).max().unwrap_or(0);
        let conflicts = bs
            .iter()
            .enumerate()
            .map(|(i, a)| bs.iter().enumerate().filter(|&(j, b)| i != j && a.overlaps_in_time(b)).count() as u64);
        let contention = bs.iter().map(|a| {
            bs.iter()
                .filter(|b| a.start <= b.start && b.start < a.end)
                .map(|b| load_at(b.start) as u64)
                .chain([load_at(a.start) as u64])
                .max()
                .unwrap()
        });
        (max_load, conflicts.collect(), contention.collect())
    }

    #[test]
    fn sweeps_agree_with_pairwise_definitions() {
        let bs = buffers(&[(0, 4, 3), (4, 6, 5), (2, 5, 1), (1, 9, 2), (6, 7, 8), (6, 7, 1)]);
        let (max_load, conflicts, contention) = naive(&bs);
        assert_eq!(max_load_wide(&bs), max_load);
        assert_eq!(max_load, 11);
        assert_eq!(conflicts_per_buffer(&bs), conflicts);
        assert_eq!(contention_per_buffer(&bs), contention);
        assert_eq!(conflict_count(&bs), conflicts.iter().sum::<u64>() / 2);
    }

    #[test]
    fn touching_lifetimes_do_not_add_up() {
        let bs = buffers(&[(0, 2, 7), (2, 4, 7)]);
        assert_eq!(max_load_wide(&bs), 7);
        assert_eq!(conflict_count(&bs), 0);
        assert_eq!(load_profile(&bs), vec![(0, 7), (2, 7), (4, 0)]);
    }
}
