//! Prelude analysis (§5.6): one event sweep finds the elementary cases of §2.1 (no two buffers
//! alive at once: all at the start address; one size: interval graph colouring, optimal) and the
//! figures boxing needs (smallest and largest size, the time span for the dummy job).

use super::jobs::colour_rows;
use crate::alignment::align_up;
use crate::model::Problem;

/// What one sweep over the buffers found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Prelude {
    pub min_size: u64,
    pub max_size: u64,
    pub first_start: u64,
    pub last_end: u64,
    /// Some two buffers are alive at one time.
    pub overlapping: bool,
    pub one_size: bool,
}

impl Prelude {
    /// The sweep over start and end events, ends first at equal times (half-open lifetimes).
    /// `problem` must not be empty.
    pub(super) fn analyse(problem: &Problem) -> Prelude {
        let buffers = problem.buffers();
        let mut events: Vec<(u64, bool, u64)> = Vec::with_capacity(2 * buffers.len());
        for buffer in buffers {
            events.push((buffer.start, true, buffer.size));
            events.push((buffer.end, false, buffer.size));
        }
        events.sort_unstable_by_key(|&(time, is_start, _)| (time, is_start));
        let mut prelude = Prelude {
            min_size: u64::MAX,
            max_size: 0,
            first_start: events.first().map_or(0, |e| e.0),
            last_end: events.last().map_or(0, |e| e.0),
            overlapping: false,
            one_size: true,
        };
        let mut alive = 0usize;
        for (_, is_start, size) in events {
            if !is_start {
                alive -= 1;
                continue;
            }
            alive += 1;
            prelude.overlapping |= alive > 1;
            prelude.one_size &= prelude.max_size == 0 || size == prelude.max_size;
            prelude.min_size = prelude.min_size.min(size);
            prelude.max_size = prelude.max_size.max(size);
        }
        prelude
    }

    /// The optimal plan of an elementary case (§2.1), or `None`. No overlap: every buffer at the
    /// start address (rounded up to its alignment) or at its pinned offset. One size, nothing
    /// pinned, alignments that divide the size and the start address: row k of an interval graph
    /// colouring at start + k × size. Also `None` when such a plan would pass u64 (a start address
    /// near the top): the general path reports the overflow.
    pub(super) fn elementary(&self, problem: &Problem, start_address: u64) -> Option<Vec<u64>> {
        let buffers = problem.buffers();
        let within_u64 = |b: &crate::Buffer, offset: u64| offset.checked_add(b.size).map(|_| offset);
        if !self.overlapping {
            return buffers
                .iter()
                .map(|b| b.pinned.or_else(|| align_up(start_address, b.alignment()).and_then(|at| within_u64(b, at))))
                .collect();
        }
        let rows_align =
            buffers.iter().all(|b| b.size.is_multiple_of(b.alignment()) && start_address.is_multiple_of(b.alignment()));
        if !self.one_size || problem.has_pinned() || !rows_align {
            return None;
        }
        let (row_of, _) = colour_rows(buffers, |b| (b.start, b.end));
        row_of
            .into_iter()
            .zip(buffers)
            .map(|(row, b)| {
                let offset = (row as u64).checked_mul(self.max_size)?.checked_add(start_address)?;
                within_u64(b, offset)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Buffer;

    #[test]
    fn one_sweep_finds_sizes_span_and_overlap() {
        let problem =
            Problem::new(vec![Buffer::new("a", 3, 5, 8), Buffer::new("b", 5, 9, 2), Buffer::new("c", 1, 3, 8)], None)
                .unwrap();
        let prelude = Prelude::analyse(&problem);
        assert_eq!((prelude.min_size, prelude.max_size, prelude.first_start, prelude.last_end), (2, 8, 1, 9));
        assert!(!prelude.overlapping, "touching lifetimes do not overlap");
        assert!(!prelude.one_size);
        assert_eq!(prelude.elementary(&problem, 0), Some(vec![0, 0, 0]));
        assert_eq!(prelude.elementary(&problem, 5), Some(vec![5, 5, 5]));
    }

    #[test]
    fn one_size_is_packed_optimally_by_colouring() {
        let buffers = vec![Buffer::new("a", 0, 4, 8), Buffer::new("b", 2, 6, 8), Buffer::new("c", 4, 9, 8)];
        let problem = Problem::new(buffers, None).unwrap();
        let prelude = Prelude::analyse(&problem);
        assert!(prelude.overlapping && prelude.one_size);
        assert_eq!(prelude.elementary(&problem, 0), Some(vec![0, 8, 0]));
        // An alignment that does not divide the start address leaves it to the general path.
        let aligned = Problem::new(
            vec![Buffer::new("a", 0, 4, 8).with_alignment(8), Buffer::new("b", 2, 6, 8).with_alignment(8)],
            None,
        )
        .unwrap();
        assert_eq!(Prelude::analyse(&aligned).elementary(&aligned, 4), None);
        assert_eq!(Prelude::analyse(&aligned).elementary(&aligned, 16), Some(vec![16, 24]));
    }
}
