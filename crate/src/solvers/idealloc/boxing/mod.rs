//! The boxing algorithm of Buchsbaum et al. ("BA", §3). [`box_in_rounds`] (Theorem 16) repeatedly
//! boxes the smallest jobs until the heights are close, then boxes everything once more; each of
//! those calls is [`box_by_size_class`] (Corollary 15), which rounds heights to powers of (1 + ε)
//! and boxes each size class with `same_height::box_one_height` (Theorem 2): the jobs alive at a
//! point go into strips (`strips::box_in_strips`, Lemma 1), and the few the strips leave
//! unresolved are boxed by interval graph colouring. The result is a set of nested boxes
//! (Matryoshkas) of one height, which unboxing turns into loose offsets (§4).

mod same_height;
mod schedule;
mod strips;

use rayon::prelude::*;

pub(super) use schedule::{MIN_RATIO, MU_MAX, Schedule, epsilon_range};

use super::jobs::{Item, JobId, Jobs, Made, mix};
use crate::options::{Deadline, Halt};
use same_height::{BoxShape, PARALLEL_MIN_JOBS, box_one_height};

/// Boxes the input jobs of `jobs` (which gains the boxes) in the rounds of `schedule`, the
/// algorithm of Theorem 16: each round boxes the jobs of height at most its threshold by
/// [`box_by_size_class`]; the last call boxes all that is left. Every input job ends up in exactly
/// one of the top-level jobs returned, and every box holds its contents (their load never exceeds
/// its height).
pub(super) fn box_in_rounds(
    jobs: &mut Jobs,
    schedule: &Schedule,
    seed: u64,
    deadline: &Deadline,
) -> Result<Vec<JobId>, Halt> {
    // Two lists reused by every round (a round used to split the whole list into two new ones):
    // the jobs left alone stay in `ids`, in order, and the boxes made of the small ones follow them.
    let mut ids: Vec<JobId> = jobs.inputs().collect();
    let mut small: Vec<JobId> = Vec::with_capacity(ids.len());
    for (k, round) in schedule.rounds.iter().enumerate() {
        small.clear();
        ids.retain(|&id| {
            let is_small = jobs.get(id).size <= round.threshold;
            if is_small {
                small.push(id);
            }
            !is_small
        });
        box_by_size_class(jobs, &small, round.box_height, round.mu, mix(seed ^ k as u64), deadline, &mut ids)?;
    }
    let last = schedule.last;
    let mut top = Vec::with_capacity(ids.len());
    box_by_size_class(jobs, &ids, last.box_height, last.mu, mix(seed ^ u64::MAX), deadline, &mut top)?;
    Ok(top)
}

/// The powers of (1 + ε) that heights round up to, each computed once: `powf` and `ln` are
/// software routines in wasm (no instruction does them), and heights taken in ascending order
/// mostly fall in the class of the one before.
struct Powers {
    base: f64,
    ln_base: f64,
    /// The last two powers computed, as `(i, (1 + ε)^i)`.
    known: [(i64, f64); 2],
}

impl Powers {
    fn new(base: f64) -> Self {
        Powers { base, ln_base: base.ln(), known: [(i64::MIN, 0.0); 2] }
    }

    /// (1 + ε)^i, as `powf` computes it.
    fn get(&mut self, i: i64) -> f64 {
        if let Some(&(_, power)) = self.known.iter().find(|&&(k, _)| k == i) {
            return power;
        }
        let power = self.base.powf(i as f64);
        self.known = [self.known[1], (i, power)];
        power
    }

    /// Whether `height` is in class `i`: (1 + ε)^(i−1) < h ≤ (1 + ε)^i.
    fn holds(&mut self, i: i64, h: f64) -> bool {
        (i == 0 || self.get(i - 1) < h) && self.get(i) >= h
    }

    /// The power of (1 + ε) that a height rounds up to: the smallest i with h ≤ (1 + ε)^i.
    /// `hint` is a class to try first (the previous height's): the powers grow with i by far
    /// more than `powf`'s rounding (ε ≥ 1e-6), so one class at most holds and trying it first
    /// gives the same answer as the search from the logarithm.
    fn class(&mut self, height: u64, hint: Option<i64>) -> i64 {
        let h = height as f64;
        if let Some(i) = hint
            && i >= 0
            && self.holds(i, h)
        {
            return i;
        }
        let mut i = (h.ln() / self.ln_base).ceil() as i64;
        // Correct the float estimate so that (1 + ε)^(i−1) < h ≤ (1 + ε)^i.
        while i > 0 && self.get(i - 1) >= h {
            i -= 1;
        }
        while self.get(i) < h {
            i += 1;
        }
        i
    }
}

/// One size class of [`box_by_size_class`] on its way through boxing.
enum Class {
    /// Its jobs, rounded to the class height, to box by [`box_one_height`].
    ToBox(Vec<Item>),
    /// The boxes [`box_one_height`] made of them, to add to the arena.
    Boxed(Made),
    /// Left alone: the rounded height exceeds H (which the invariants of §3.2 rule out).
    Unboxed(Vec<JobId>),
}

/// Boxes jobs of many heights into boxes of height H, the construction of Corollary 15: rounds
/// each height up to ⌊(1 + ε)^i⌋ and boxes each size class h by [`box_one_height`] (Theorem 2)
/// with ⌊H/h⌋ jobs to a box (§5.8's interface: no rescaling), the classes in parallel (§5.9).
/// A class whose rounded height exceeds H (which the invariants of §3.2 rule out) is left unboxed.
/// The jobs that come out (boxes, and the jobs of classes left alone) are appended to `out`.
pub(super) fn box_by_size_class(
    jobs: &mut Jobs,
    ids: &[JobId],
    box_height: u64,
    epsilon: f64,
    seed: u64,
    deadline: &Deadline,
    out: &mut Vec<JobId>,
) -> Result<(), Halt> {
    if ids.is_empty() {
        return Ok(());
    }
    let count = ids.len();
    // A floor on ε keeps the number of classes and the float exponents sane.
    let base = 1.0 + epsilon.max(1e-6);
    // One class computation per distinct height; jobs keep their order within a class.
    let mut heights: Vec<u64> = ids.iter().map(|&id| jobs.get(id).size).collect();
    heights.sort_unstable();
    heights.dedup();
    let mut powers = Powers::new(base);
    let mut hint = None;
    let class_of: Vec<i64> = heights
        .iter()
        .map(|&h| {
            let class = powers.class(h, hint);
            hint = Some(class);
            class
        })
        .collect();
    let mut classed: Vec<(i64, JobId)> =
        ids.iter().map(|&id| (class_of[heights.partition_point(|&h| h < jobs.get(id).size)], id)).collect();
    classed.sort_by_key(|&(class, _)| class);
    let mut classes: Vec<(i64, Class)> = Vec::new();
    for group in classed.chunk_by(|a, b| a.0 == b.0) {
        let class = group[0].0;
        let tallest = group.iter().map(|&(_, id)| jobs.get(id).size).max().unwrap_or(1);
        let rounded = (powers.get(class).floor() as u64).max(tallest);
        if rounded > box_height {
            classes.push((class, Class::Unboxed(group.iter().map(|&(_, id)| id).collect())));
            continue;
        }
        for &(_, id) in group {
            jobs.set_size(id, rounded);
        }
        let items = group.iter().map(|&(_, id)| Item::of(jobs, id)).collect();
        classes.push((class, Class::ToBox(items)));
    }
    // (The class lists go before the boxing, which holds a copy of every job at its peak.)
    drop((classed, heights, class_of));
    let shared: &Jobs = jobs;
    let box_class = |(class, members): (i64, Class)| -> Result<Class, Halt> {
        let Class::ToBox(mut items) = members else {
            return Ok(members);
        };
        let rounded = shared.get(items[0].id).size;
        let per_box = usize::try_from(box_height / rounded).unwrap_or(usize::MAX);
        let shape = BoxShape { per_box, box_height, epsilon };
        // Every job goes into one box, and most boxes are full: room for that many boxes (the
        // classes are boxed side by side, and room for a box per job held five times the
        // members' bytes at once).
        let mut made = Made::with_capacity(items.len(), items.len().div_ceil(per_box.max(1)));
        box_one_height(shared, &mut items, shape, mix(seed ^ mix(class as u64)), deadline, &mut made)?;
        Ok(Class::Boxed(made))
    };
    // Small inputs are not worth the tasks; either way the classes come back in class order.
    let boxed: Vec<Result<Class, Halt>> = if count >= PARALLEL_MIN_JOBS {
        classes.into_par_iter().map(box_class).collect()
    } else {
        classes.into_iter().map(box_class).collect()
    };
    let boxed: Vec<Class> = boxed.into_iter().collect::<Result<_, Halt>>()?;
    let made =
        boxed.iter().map(|class| if let Class::Boxed(made) = class { (made.len(), made.members()) } else { (0, 0) });
    let (boxes, members) = made.fold((0, 0), |(b, m), (db, dm)| (b + db, m + dm));
    jobs.reserve_exact(boxes, members);
    for class in boxed {
        match class {
            Class::Boxed(made) => jobs.commit(made, out),
            Class::Unboxed(ids) => out.extend(ids),
            Class::ToBox(items) => out.extend(items.iter().map(|item| item.id)),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::jobs::{Contents, peak_load};
    use super::*;

    #[test]
    fn size_classes_are_powers_of_one_plus_epsilon() {
        for base in [1.5, 1.0 + 1e-6, 1.01] {
            let mut powers = Powers::new(base);
            let mut hint = None;
            for h in (1u64..2000).chain([1 << 20, (1 << 20) + 1, 1 << 40, u64::MAX / 3]) {
                // With the previous class as a hint (the ascending order boxing uses) or none.
                for i in [powers.class(h, hint), powers.class(h, None), powers.class(h, Some(7))] {
                    assert!(base.powf(i as f64) >= h as f64);
                    assert!(i == 0 || base.powf((i - 1) as f64) < h as f64, "h {h} class {i}");
                }
                hint = Some(powers.class(h, hint));
            }
        }
    }

    /// Checks that every box of `job` holds its contents, recursively, and collects the buffers.
    fn check_nesting(jobs: &Jobs, job: JobId, buffers: &mut Vec<usize>) {
        match jobs.contents(job) {
            Contents::Buffer(i) => buffers.push(i),
            Contents::Dummy => {}
            Contents::Boxed(inner) => {
                let record = jobs.get(job);
                assert!(peak_load(jobs, inner) <= record.size as u128, "box of {} overfull", record.size);
                for &child in inner {
                    assert!(record.start <= jobs.get(child).start && jobs.get(child).end <= record.end);
                    check_nesting(jobs, child, buffers);
                }
            }
        }
    }

    fn arena(buffers: impl Iterator<Item = (u64, u64, u64)>) -> Jobs {
        let mut jobs = Jobs::default();
        for (i, (size, start, end)) in buffers.enumerate() {
            jobs.add_buffer(i, size, u32::try_from(start).unwrap(), u32::try_from(end).unwrap());
        }
        jobs
    }

    #[test]
    fn every_size_class_goes_into_boxes_of_height_h() {
        let mut jobs = arena((0..400).map(|i| (1 + (i as u64 * 7919) % 50, (i as u64 * 3) % 200, 220)));
        let ids: Vec<JobId> = jobs.inputs().collect();
        let mut boxes = Vec::new();
        box_by_size_class(&mut jobs, &ids, 100, 0.5, 1, &Deadline::none(), &mut boxes).unwrap();
        let mut buffers = Vec::new();
        for &b in &boxes {
            assert_eq!(jobs.get(b).size, 100);
            check_nesting(&jobs, b, &mut buffers);
        }
        buffers.sort_unstable();
        assert_eq!(buffers, (0..400).collect::<Vec<_>>());
    }

    #[test]
    fn the_rounds_end_with_boxes_of_one_height_holding_every_job() {
        let sizes = [1u64, 3, 40, 900, 20_000, 1 << 22];
        let mut jobs = arena((0..3000).map(|i| {
            let start = (i as u64 * 31) % 2000;
            (sizes[i % sizes.len()] + i as u64 % 5, start, start + 1 + (i as u64 * 17) % 90)
        }));
        let heights: Vec<u64> = jobs.inputs().map(|id| jobs.get(id).size).collect();
        let ratio = *heights.iter().max().unwrap() as f64 / *heights.iter().min().unwrap() as f64;
        let range = epsilon_range(ratio).unwrap();
        let schedule = Schedule::calibrated(&heights, range);
        let top = box_in_rounds(&mut jobs, &schedule, 5, &Deadline::none()).unwrap();
        let mut buffers = Vec::new();
        for &job in &top {
            assert_eq!(jobs.get(job).size, schedule.last.box_height);
            check_nesting(&jobs, job, &mut buffers);
        }
        buffers.sort_unstable();
        assert_eq!(buffers, (0..3000).collect::<Vec<_>>());
    }

    #[test]
    fn a_cancel_stops_the_boxing() {
        let options = crate::SolveOptions::default();
        options.cancel.cancel();
        let deadline = options.deadline();
        let mut jobs = arena((0..100).map(|i| (4, i as u64, i as u64 + 3)));
        let ids: Vec<JobId> = jobs.inputs().collect();
        let boxed = box_by_size_class(&mut jobs, &ids, 16, 0.5, 0, &deadline, &mut Vec::new());
        assert_eq!(boxed, Err(Halt::Cancelled));
    }
}
