//! Perfect packings from several constructions: a rectangle `HEIGHT_UNITS` units high (1 MiB in
//! units of 1 KiB) and some time steps wide is cut into buffers that leave no byte unused at the
//! moments that matter, so the optimum makespan is the max load L and the plan the buffers were
//! cut at proves it. [`super::perfect`] cuts by one sweep over time; a planner tuned on it can
//! learn that construction's habits, so each family here builds its packings another way (one
//! construction per file), and a planner that solves them all solves perfect packings, not one
//! generator's.

mod equal_sizes;
mod guillotine;
mod pinwheel;
mod power_of_two;
mod staircase;
mod towers;

use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::model::{Buffer, Problem};

/// Bytes in one address unit: sizes and offsets are multiples of it.
pub const UNIT: u64 = 1024;
/// The packing's height in units: with [`UNIT`], 1 MiB, the optimum and L.
pub const HEIGHT_UNITS: u64 = 1024;

/// The constructions, each with its own generator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// Recursive guillotine cuts, across time or across addresses in any order.
    Guillotine,
    /// Recursive pinwheels: five pieces around a centre, which no straight cut separates.
    Pinwheel,
    /// Generations of buffers between staircase boundaries: each buffer starts and ends at a
    /// step of a stair, so no two address bands turn over at the same time.
    Staircase,
    /// Bands of one size: every buffer is one, two or three of them high.
    EqualSizes,
    /// A buddy allocator's blocks over time: power-of-two sizes, each aligned to its size.
    PowerOfTwo,
    /// Long-lived towers with short-lived sand between them, the sand thinned away from the
    /// peak: only one moment is full.
    Towers,
}

impl Family {
    pub const ALL: [Family; 6] = [
        Family::Guillotine,
        Family::Pinwheel,
        Family::Staircase,
        Family::EqualSizes,
        Family::PowerOfTwo,
        Family::Towers,
    ];

    /// The name `memplan generate --shape` takes.
    pub fn name(self) -> &'static str {
        match self {
            Family::Guillotine => "guillotine",
            Family::Pinwheel => "pinwheel",
            Family::Staircase => "staircase",
            Family::EqualSizes => "equal-sizes",
            Family::PowerOfTwo => "power-of-two",
            Family::Towers => "towers",
        }
    }

    pub fn parse(text: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|f| f.name() == text)
    }

    /// `buffers` buffers (at least one) cut by this family's construction from `seed`, with the
    /// plan that packs them at [`height`].
    pub fn packing(self, buffers: usize, seed: u64) -> Packing {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let wanted = buffers.max(1);
        let mut rects = match self {
            Family::Guillotine => guillotine::cut(&mut rng, wanted),
            Family::Pinwheel => pinwheel::cut(&mut rng, wanted),
            Family::Staircase => staircase::cut(&mut rng, wanted),
            Family::EqualSizes => equal_sizes::cut(&mut rng, wanted),
            Family::PowerOfTwo => power_of_two::cut(&mut rng, wanted),
            Family::Towers => towers::cut(&mut rng, wanted),
        };
        // The constructions list buffers by start, then offset: in that order a greedy pass
        // that breaks ties by input position re-finds the plan. Shuffled, nothing but the
        // buffers themselves gives it away.
        rects.shuffle(&mut rng);
        let mut packing = Packing::from_rects(&rects);
        if self == Family::PowerOfTwo {
            power_of_two::align(&mut packing);
        }
        packing
    }

    /// The instance alone (no capacity: the question is the lowest makespan).
    pub fn generate(self, buffers: usize, seed: u64) -> Problem {
        let packing = self.packing(buffers, seed);
        Problem::new(packing.buffers, None).expect("generated buffers are valid by construction")
    }
}

/// The packing's height in bytes: the optimum makespan and the max load of every family.
pub fn height() -> u64 {
    HEIGHT_UNITS * UNIT
}

/// A generated instance with the plan it was cut from.
pub struct Packing {
    pub buffers: Vec<Buffer>,
    /// Each buffer's offset in the construction's plan, of makespan [`height`].
    pub offsets: Vec<u64>,
}

impl Packing {
    fn from_rects(rects: &[Rect]) -> Packing {
        let buffers = rects
            .iter()
            .enumerate()
            .map(|(i, r)| Buffer::new(i.to_string(), r.t0, r.t1, (r.y1 - r.y0) * UNIT))
            .collect();
        let offsets = rects.iter().map(|r| r.y0 * UNIT).collect();
        Packing { buffers, offsets }
    }
}

/// A buffer as the constructions see it: a lifetime `[t0, t1)` in time steps by an address range
/// `[y0, y1)` in units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Rect {
    pub t0: u64,
    pub t1: u64,
    pub y0: u64,
    pub y1: u64,
}

impl Rect {
    pub(crate) fn new(t0: u64, t1: u64, y0: u64, y1: u64) -> Rect {
        debug_assert!(t0 < t1 && y0 < y1);
        Rect { t0, t1, y0, y1 }
    }

    pub(crate) fn width(&self) -> u64 {
        self.t1 - self.t0
    }

    pub(crate) fn height(&self) -> u64 {
        self.y1 - self.y0
    }

    pub(crate) fn area(&self) -> u64 {
        self.width() * self.height()
    }

    /// Relative width and height against the whole rectangle's (`span` steps by
    /// [`HEIGHT_UNITS`]): a piece is "wide" when its share of the time is larger than its share
    /// of the addresses.
    fn wide(&self, span: u64) -> bool {
        self.width() * HEIGHT_UNITS > self.height() * span
    }
}

/// Cuts `rect` in two by a straight cut, across time when `across_time` (it must be at least two
/// steps wide) or across addresses (at least two units high), at a point drawn from its middle
/// three fifths when that holds one.
pub(crate) fn split(rng: &mut ChaCha8Rng, rect: Rect, across_time: bool) -> (Rect, Rect) {
    if across_time {
        let at = point(rng, rect.t0, rect.t1);
        (Rect::new(rect.t0, at, rect.y0, rect.y1), Rect::new(at, rect.t1, rect.y0, rect.y1))
    } else {
        let at = point(rng, rect.y0, rect.y1);
        (Rect::new(rect.t0, rect.t1, rect.y0, at), Rect::new(rect.t0, rect.t1, at, rect.y1))
    }
}

/// A point strictly inside `(low, high)` (which must hold one), from the middle three fifths
/// when that holds one.
pub(crate) fn point(rng: &mut ChaCha8Rng, low: u64, high: u64) -> u64 {
    let span = high - low;
    let (from, to) = (low + span / 5, high - span / 5);
    if from < to && from > low { rng.random_range(from..=to.min(high - 1)) } else { rng.random_range(low + 1..high) }
}

/// A straight cut of `rect` in the direction its shape calls for (usually across its longer
/// relative side, `span` steps being as long as [`HEIGHT_UNITS`] units), or `None` when it is one
/// step by one unit.
pub(crate) fn split_any(rng: &mut ChaCha8Rng, rect: Rect, span: u64) -> Option<(Rect, Rect)> {
    let (can_time, can_address) = (rect.width() >= 2, rect.height() >= 2);
    let across_time = match (can_time, can_address) {
        (false, false) => return None,
        (true, false) => true,
        (false, true) => false,
        (true, true) => rect.wide(span) == (rng.random_range(0..4) != 0),
    };
    Some(split(rng, rect, across_time))
}

/// Cuts random pieces of `rects` in two until there are `wanted` (or none can be cut): cutting a
/// piece of a perfect packing keeps it perfect, so every construction ends at its count exactly.
pub(crate) fn top_up(rng: &mut ChaCha8Rng, rects: &mut Vec<Rect>, wanted: usize, span: u64) {
    while rects.len() < wanted {
        let cuttable: Vec<usize> =
            (0..rects.len()).filter(|&i| rects[i].width() >= 2 || rects[i].height() >= 2).collect();
        if cuttable.is_empty() {
            return;
        }
        let i = cuttable[rng.random_range(0..cuttable.len())];
        let Some((a, b)) = split_any(rng, rects[i], span) else { return };
        rects[i] = a;
        rects.push(b);
    }
}

/// Splits `start` by [`split_any`], largest piece first, until there are `wanted` pieces:
/// pieces of about equal area, so about √`wanted` alive at once.
pub(crate) fn guillotine_fill(rng: &mut ChaCha8Rng, start: Rect, wanted: usize, span: u64) -> Vec<Rect> {
    let mut heap = std::collections::BinaryHeap::new();
    let mut done = Vec::new();
    // (area, tie-break by creation) so that the order does not depend on the heap's internals.
    let mut made = 0u64;
    heap.push((start.area(), made, start));
    while heap.len() + done.len() < wanted {
        let Some((_, _, rect)) = heap.pop() else { break };
        match split_any(rng, rect, span) {
            Some((a, b)) => {
                for piece in [a, b] {
                    made += 1;
                    heap.push((piece.area(), made, piece));
                }
            }
            None => done.push(rect),
        }
    }
    done.extend(heap.into_iter().map(|(_, _, r)| r));
    done.sort_unstable_by_key(|r| (r.t0, r.y0));
    done
}

impl PartialOrd for Rect {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Rect {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.t0, self.t1, self.y0, self.y1).cmp(&(other.t0, other.t1, other.y0, other.y1))
    }
}

/// How many time steps a packing of `buffers` buffers spans: as many as buffers, so that cuts
/// across time have room (at least 8).
pub(crate) fn span_for(buffers: usize) -> u64 {
    (buffers as u64).max(8)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::validate;

    /// The construction's plan is valid, at [`height`], and the instance's L is [`height`] too.
    fn check(family: Family, buffers: usize, seed: u64) {
        let packing = family.packing(buffers, seed);
        let problem = Problem::new(packing.buffers.clone(), None).unwrap();
        assert_eq!(problem.len(), buffers.max(1), "{family:?} {buffers} buffers, seed {seed}");
        assert_eq!(problem.max_load(), height(), "{family:?} {buffers} buffers, seed {seed}");
        let report = validate(&problem, &packing.offsets, Some(height()));
        assert!(report.is_valid(), "{family:?} {buffers} buffers, seed {seed}: {:?}", report.violations.first());
        assert!(problem.buffers().iter().all(|b| b.size > 0 && b.size % UNIT == 0 && b.start < b.end));
        assert_eq!(family.generate(buffers, seed).buffers(), problem.buffers(), "same seed, same instance");
        if buffers >= 60 {
            // Not listed by start: the order gives nothing away.
            assert!(problem.buffers().windows(2).any(|w| w[0].start > w[1].start), "{family:?} listed by start");
        }
    }

    #[test]
    fn every_family_packs_at_its_height() {
        for family in Family::ALL {
            for (buffers, seed) in [(1, 0), (2, 1), (7, 2), (60, 3), (600, 4), (2000, 5)] {
                check(family, buffers, seed);
            }
            assert_eq!(Family::parse(family.name()), Some(family));
        }
    }

    #[test]
    fn seeds_differ() {
        for family in Family::ALL {
            assert_ne!(family.generate(200, 1).buffers(), family.generate(200, 2).buffers(), "{family:?}");
        }
    }

    mod properties {
        use proptest::prelude::*;

        use super::*;

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(48))]
            #[test]
            fn any_size_and_seed_packs_at_the_height(family in 0..Family::ALL.len(), buffers in 1usize..400, seed: u64) {
                check(Family::ALL[family], buffers, seed);
            }
        }
    }
}
