//! Which buffers are alive in a stretch of time, without a scan of all of them: buffers sorted by
//! start, with the few long-lived ones (which would force every query to look far back) kept
//! aside and always checked.

use crate::model::Problem;

pub(crate) struct Timeline {
    /// The short-lived buffers by start.
    by_start: Vec<usize>,
    /// Their longest lifetime: one alive in `[low, high)` starts at or after `low − longest`.
    longest: u64,
    /// The long-lived buffers, checked on every query.
    long: Vec<usize>,
    span: u64,
    /// Every start and every end, sorted: to count what happens in a stretch of time.
    starts: Vec<u64>,
    ends: Vec<u64>,
}

impl Timeline {
    pub(crate) fn new(problem: &Problem) -> Self {
        let buffers = problem.buffers();
        let mut lifetimes: Vec<u64> = buffers.iter().map(|b| b.end - b.start).collect();
        lifetimes.sort_unstable();
        // The longest 2 % go aside: real traces have a few buffers alive nearly throughout (weights,
        // workspaces), which would otherwise make `longest` the whole timeline.
        let cut = lifetimes.get(lifetimes.len() - lifetimes.len() / 50).copied().unwrap_or(u64::MAX);
        let cut = cut.max(lifetimes.last().copied().unwrap_or(0).min(1));
        let (long, mut by_start): (Vec<usize>, Vec<usize>) =
            (0..buffers.len()).partition(|&i| buffers[i].end - buffers[i].start > cut);
        by_start.sort_unstable_by_key(|&i| (buffers[i].start, i));
        let longest = by_start.iter().map(|&i| buffers[i].end - buffers[i].start).max().unwrap_or(0);
        let low = buffers.iter().map(|b| b.start).min().unwrap_or(0);
        let high = buffers.iter().map(|b| b.end).max().unwrap_or(0);
        let mut starts: Vec<u64> = buffers.iter().map(|b| b.start).collect();
        let mut ends: Vec<u64> = buffers.iter().map(|b| b.end).collect();
        starts.sort_unstable();
        ends.sort_unstable();
        Timeline { by_start, longest, long, span: high - low, starts, ends }
    }

    /// From the first start to the last end.
    #[cfg(test)]
    pub(crate) fn span(&self) -> u64 {
        self.span
    }

    /// Starts in `[low, high)` plus ends in `(low, high]`: about how many buffers begin or end
    /// inside the stretch (one that does both counts twice), without listing them.
    pub(crate) fn events_in(&self, low: u64, high: u64) -> usize {
        let starts = self.starts.partition_point(|&t| t < high) - self.starts.partition_point(|&t| t < low);
        let ends = self.ends.partition_point(|&t| t <= high) - self.ends.partition_point(|&t| t <= low);
        starts + ends
    }

    /// The narrowest stretch of time `[low, high)` holding `at` in which at least `wanted` starts
    /// and ends fall ([`Timeline::events_in`]), or, when none of up to twice the trace's span
    /// does, that widest one (at a share of ½ it holds the whole trace). `left_share` (0 to 1) is
    /// the share of its width before `at`: ½ grows it both ways alike. Found by binary search over the width, each step a count in the sorted
    /// starts and ends, so it costs O(log² n) whatever the trace.
    pub(crate) fn stretch(&self, at: u64, wanted: usize, left_share: f64) -> (u64, u64) {
        let window = |width: u64| {
            let left = ((width as f64 * left_share) as u64).min(width);
            (at.saturating_sub(left), at.saturating_add(width - left).saturating_add(1))
        };
        // Twice the span, so that a stretch around any moment at any share can hold the whole trace.
        let (mut narrow, mut wide) = (0u64, self.span.max(1).saturating_mul(2));
        while narrow < wide {
            let width = narrow + (wide - narrow) / 2;
            let (low, high) = window(width);
            if self.events_in(low, high) >= wanted {
                wide = width;
            } else {
                narrow = width + 1;
            }
        }
        window(narrow)
    }

    /// Every buffer whose lifetime (hull) meets `[low, high)`, in no particular order.
    pub(crate) fn alive_in(&self, problem: &Problem, low: u64, high: u64, into: &mut Vec<usize>) {
        let buffers = problem.buffers();
        into.clear();
        into.extend(self.long.iter().copied().filter(|&i| buffers[i].start < high && buffers[i].end > low));
        let from = low.saturating_sub(self.longest);
        let first = self.by_start.partition_point(|&i| buffers[i].start < from);
        for &i in &self.by_start[first..] {
            let b = &buffers[i];
            if b.start >= high {
                break;
            }
            if b.end > low {
                into.push(i);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::model::Buffer;

    /// The stretch of `width` around `at` with `share` of it before: as [`Timeline::stretch`]
    /// defines it.
    fn window(at: u64, width: u64, share: f64) -> (u64, u64) {
        let left = ((width as f64 * share) as u64).min(width);
        (at.saturating_sub(left), at + (width - left) + 1)
    }

    proptest! {
        /// The stretch holds `at`; it is the narrowest that holds `wanted` starts and ends, or the
        /// widest searched (at a share of ½, the whole trace) when none does.
        #[test]
        fn the_stretch_is_the_narrowest_that_holds_enough(
            specs in prop::collection::vec((0u64..60, 1u64..20), 1..30),
            pick in 0usize..30,
            wanted in 0usize..70,
            share in prop::sample::select(vec![0.0, 0.25, 0.5, 1.0]),
        ) {
            let buffers: Vec<Buffer> = specs
                .iter()
                .enumerate()
                .map(|(k, &(start, length))| Buffer::new(k.to_string(), start, start + length, 1))
                .collect();
            let problem = Problem::new(buffers, None).unwrap();
            let timeline = Timeline::new(&problem);
            let at = specs[pick % specs.len()].0;
            let (low, high) = timeline.stretch(at, wanted, share);
            prop_assert!(low <= at && at < high);
            let widths = 0..=2 * timeline.span().max(1);
            let narrowest = widths.clone().find(|&w| {
                let (l, h) = window(at, w, share);
                timeline.events_in(l, h) >= wanted
            });
            match narrowest {
                Some(width) => prop_assert_eq!((low, high), window(at, width, share)),
                None => {
                    prop_assert_eq!((low, high), window(at, *widths.end(), share));
                    if share == 0.5 {
                        prop_assert_eq!(timeline.events_in(low, high), 2 * specs.len());
                    }
                }
            }
        }
    }
}
