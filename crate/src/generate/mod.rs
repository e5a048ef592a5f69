//! Random instances shaped like ML traces, reproducible from a seed: buffers start as a program
//! runs, most live briefly, a few live long (weights, skip connections), sizes spread over orders
//! of magnitude. Used for scaling benchmarks and the playground's generator.

pub mod families;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::model::{Buffer, Problem};

/// The longest lifetime of the long-lived tenth of the buffers, in steps.
pub const LONG_LIFETIME: u64 = 2000;

/// What to generate.
#[derive(Clone, Copy, Debug, serde::Deserialize, serde::Serialize)]
pub struct TraceSpec {
    pub buffers: usize,
    pub seed: u64,
    /// Sizes are multiples of this (e.g. 64 bytes); at least 1.
    pub granularity: u64,
    /// Largest size, in units of `granularity`.
    pub max_units: u64,
}

impl TraceSpec {
    pub fn new(buffers: usize, seed: u64) -> Self {
        TraceSpec { buffers, seed, granularity: 64, max_units: 1 << 14 }
    }
}

/// A trace: about two buffers start per time step; lifetimes are short (1–16 steps) for 90 % of
/// buffers and long (up to [`LONG_LIFETIME`] steps) for the rest; sizes are log-uniform. The
/// density does not depend on the length, so a longer trace is more of the same program.
///
/// ```
/// use memplan::generate::{TraceSpec, trace};
///
/// let problem = trace(TraceSpec::new(500, 7));
/// assert_eq!(problem.len(), 500);
/// assert_eq!(problem.buffers(), trace(TraceSpec::new(500, 7)).buffers()); // one instance per seed
/// ```
pub fn trace(spec: TraceSpec) -> Problem {
    let mut rng = ChaCha8Rng::seed_from_u64(spec.seed);
    let steps = (spec.buffers as u64 / 2).max(1);
    let granularity = spec.granularity.max(1);
    let max_exponent = 64 - spec.max_units.max(1).leading_zeros(); // bits of max_units
    let buffers = (0..spec.buffers)
        .map(|i| {
            let start = rng.random_range(0..steps);
            let lifetime = if rng.random_range(0..10) == 0 {
                rng.random_range(1..=LONG_LIFETIME)
            } else {
                rng.random_range(1..=16)
            };
            let exponent = rng.random_range(0..max_exponent.max(1));
            let units = rng.random_range((1u64 << exponent)..=(1u64 << exponent) * 2 - 1).min(spec.max_units.max(1));
            Buffer::new(i.to_string(), start, start + lifetime, units * granularity)
        })
        .collect();
    Problem::new(buffers, None).expect("generated buffers are valid by construction")
}

/// TelaMalloc's microbenchmarks (§7.1, Table 1): `n` buffers alive one after another (`[i, i + 1)`),
/// with a capacity of the largest size, so that every buffer fits at offset 0 and a search has
/// nothing to resolve. Sizes are seeded, 64 bytes to 64 KiB.
pub fn non_overlapping(buffers: usize, seed: u64) -> Problem {
    let sizes = micro_sizes(buffers, seed);
    let capacity = sizes.iter().copied().max().unwrap_or(1);
    let buffers =
        sizes.into_iter().enumerate().map(|(i, size)| Buffer::new(i.to_string(), i as u64, i as u64 + 1, size));
    Problem::new(buffers.collect(), Some(capacity)).expect("generated buffers are valid by construction")
}

/// TelaMalloc's microbenchmarks (§7.1, Table 1): `n` buffers all alive over the same lifetime, with
/// a capacity of their total size ("enough memory to accommodate all of them"): the number of
/// pairwise constraints grows as n².
pub fn full_overlap(buffers: usize, seed: u64) -> Problem {
    let sizes = micro_sizes(buffers, seed);
    let capacity = sizes.iter().sum::<u64>().max(1);
    let buffers = sizes.into_iter().enumerate().map(|(i, size)| Buffer::new(i.to_string(), 0, 10, size));
    Problem::new(buffers.collect(), Some(capacity)).expect("generated buffers are valid by construction")
}

/// The alignments [`aligned`] draws from, as real models' tensors have them: none, a word, a
/// cache line, a DMA burst, a page.
pub const ALIGNMENTS: [u64; 5] = [1, 8, 64, 256, 4096];

/// Small instances where alignment decides the optimum: `n` buffers over about `n + 10`
/// time steps with lifetimes of 1 to 12 steps, sizes uniform in 256..10,000 bytes (almost never
/// multiples of their alignment, so padding matters) and an alignment drawn from [`ALIGNMENTS`].
/// No capacity: the question is the lowest makespan.
pub fn aligned(buffers: usize, seed: u64) -> Problem {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let steps = buffers as u64 + 10;
    let buffers = (0..buffers)
        .map(|i| {
            let start = rng.random_range(0..steps);
            let lifetime = rng.random_range(1..=12u64);
            let size = rng.random_range(256..10_000u64);
            let alignment = ALIGNMENTS[rng.random_range(0..ALIGNMENTS.len())];
            Buffer::new(i.to_string(), start, start + lifetime, size).with_alignment(alignment)
        })
        .collect();
    Problem::new(buffers, None).expect("generated buffers are valid by construction")
}

fn micro_sizes(buffers: usize, seed: u64) -> Vec<u64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..buffers).map(|_| rng.random_range(1..=1024u64) * 64).collect()
}

/// What [`perfect`] cuts.
#[derive(Clone, Copy, Debug)]
pub struct PerfectSpec {
    pub buffers: usize,
    pub seed: u64,
    /// The height of the rectangle: the optimum makespan, and L.
    pub height: u64,
    /// About how many buffers are alive at once.
    pub alive: usize,
}

impl PerfectSpec {
    pub fn new(buffers: usize, seed: u64) -> Self {
        PerfectSpec { buffers, seed, height: 1 << 20, alive: 24 }
    }
}

/// A perfect packing: a rectangle `height` bytes high is cut into buffers by a sweep over time.
/// At time 0 the height is cut into about `alive` buffers; at each later step a run of one to
/// three buffers that sit on top of each other ends, and the space they leave is cut anew into
/// one to three buffers that start there. Every byte below `height` is used at every time, so L
/// and the optimum are both `height`, and the buffers' plan at birth proves it. Ending neighbours
/// together and cutting their space differently is what makes the instance hard: no buffer's
/// place is given away by a size that matches the one before it.
pub fn perfect(spec: PerfectSpec) -> Problem {
    let (buffers, _) = perfect_with_plan(spec);
    Problem::new(buffers, None).expect("generated buffers are valid by construction")
}

/// [`perfect`]'s buffers with the offsets they were cut at, which make a plan of makespan `height`.
pub fn perfect_with_plan(spec: PerfectSpec) -> (Vec<Buffer>, Vec<u64>) {
    let mut rng = ChaCha8Rng::seed_from_u64(spec.seed);
    let height = spec.height.max(1);
    let wanted = spec.buffers.max(1);
    let first = spec.alive.clamp(1, wanted).min(usize::try_from(height).unwrap_or(usize::MAX));
    // The live buffers bottom to top, as (offset, size, start).
    let mut live: Vec<(u64, u64, u64)> = cut(&mut rng, 0, height, first).into_iter().map(|(o, s)| (o, s, 0)).collect();
    let mut buffers = Vec::with_capacity(wanted);
    let mut offsets = Vec::with_capacity(wanted);
    let mut time = 0u64;
    let mut made = live.len();
    while made < wanted {
        time += 1;
        let run = rng.random_range(1..=3usize).min(live.len());
        let first_index = rng.random_range(0..=live.len() - run);
        let ending: Vec<(u64, u64, u64)> = live.drain(first_index..first_index + run).collect();
        let low = ending[0].0;
        let high = ending[run - 1].0 + ending[run - 1].1;
        for (offset, size, start) in ending {
            buffers.push(Buffer::new(buffers.len().to_string(), start, time, size));
            offsets.push(offset);
        }
        // Keep about `alive` buffers: cut into more pieces when fewer are alive, fewer when more.
        let change: i64 = match (live.len() + run).cmp(&spec.alive) {
            std::cmp::Ordering::Less => rng.random_range(0..=1),
            std::cmp::Ordering::Greater => rng.random_range(-1..=0),
            std::cmp::Ordering::Equal => rng.random_range(-1..=1),
        };
        let pieces = ((run as i64 + change).clamp(1, 4) as usize).min(wanted - made);
        let new: Vec<(u64, u64, u64)> =
            cut(&mut rng, low, high, pieces).into_iter().map(|(o, s)| (o, s, time)).collect();
        made += new.len();
        live.splice(first_index..first_index, new);
    }
    time += 1;
    for (offset, size, start) in live {
        buffers.push(Buffer::new(buffers.len().to_string(), start, time, size));
        offsets.push(offset);
    }
    (buffers, offsets)
}

/// `[low, high)` cut at `pieces − 1` distinct random points (fewer when it is too small).
fn cut(rng: &mut ChaCha8Rng, low: u64, high: u64, pieces: usize) -> Vec<(u64, u64)> {
    let pieces = (pieces as u64).min(high - low).max(1);
    let mut points: Vec<u64> = Vec::with_capacity(pieces as usize + 1);
    while (points.len() as u64) < pieces - 1 {
        let point = rng.random_range(low + 1..high);
        if !points.contains(&point) {
            points.push(point);
        }
    }
    points.push(low);
    points.push(high);
    points.sort_unstable();
    points.windows(2).map(|w| (w[0], w[1] - w[0])).collect()
}

/// The shapes `memplan generate` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// [`trace`]: an ML-like program.
    Trace,
    /// [`non_overlapping`].
    NonOverlapping,
    /// [`full_overlap`].
    FullOverlap,
    /// [`perfect`]: a packing with no waste, so that the optimum is known.
    Perfect,
    /// [`aligned`]: small instances with mixed alignments.
    Aligned,
    /// A perfect packing by one of [`families`]' constructions (optimum = L).
    Family(families::Family),
}

impl Shape {
    /// Every name [`Shape::parse`] takes, for help and error messages.
    pub fn names() -> Vec<&'static str> {
        let mut names = vec!["trace", "non-overlapping", "full-overlap", "perfect", "aligned"];
        names.extend(families::Family::ALL.iter().map(|f| f.name()));
        names
    }

    pub fn parse(text: &str) -> Option<Shape> {
        match text.trim().to_ascii_lowercase().as_str() {
            "trace" => Some(Shape::Trace),
            "non-overlapping" => Some(Shape::NonOverlapping),
            "full-overlap" => Some(Shape::FullOverlap),
            "perfect" => Some(Shape::Perfect),
            "aligned" => Some(Shape::Aligned),
            other => families::Family::parse(other).map(Shape::Family),
        }
    }

    pub fn generate(self, buffers: usize, seed: u64) -> Problem {
        match self {
            Shape::Trace => trace(TraceSpec::new(buffers, seed)),
            Shape::NonOverlapping => non_overlapping(buffers, seed),
            Shape::FullOverlap => full_overlap(buffers, seed),
            Shape::Perfect => perfect(PerfectSpec::new(buffers, seed)),
            Shape::Aligned => aligned(buffers, seed),
            Shape::Family(family) => family.generate(buffers, seed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_trace() {
        let a = trace(TraceSpec::new(500, 7));
        let b = trace(TraceSpec::new(500, 7));
        let c = trace(TraceSpec::new(500, 8));
        assert_eq!(a.buffers(), b.buffers());
        assert_ne!(a.buffers(), c.buffers());
        assert_eq!(a.len(), 500);
        assert!(a.buffers().iter().all(|b| b.size % 64 == 0 && b.size <= 64 << 14));
    }

    #[test]
    fn microbenchmarks_have_the_shapes_of_table_1() {
        let apart = non_overlapping(100, 3);
        assert_eq!(apart.max_load(), apart.capacity().unwrap());
        assert_eq!(crate::metrics::conflict_count(apart.buffers()), 0);
        let together = full_overlap(100, 3);
        assert_eq!(together.max_load(), together.capacity().unwrap());
        assert_eq!(crate::metrics::conflict_count(together.buffers()), 100 * 99 / 2);
        assert_eq!(Shape::parse("full-overlap"), Some(Shape::FullOverlap));
    }

    #[test]
    fn perfect_packings_use_every_byte() {
        for (buffers, seed) in [(1, 0), (2, 1), (50, 2), (1000, 3), (1000, 4)] {
            let spec = PerfectSpec::new(buffers, seed);
            let (list, offsets) = perfect_with_plan(spec);
            let problem = Problem::new(list, None).unwrap();
            assert_eq!(problem.len(), buffers);
            assert_eq!(problem.max_load(), spec.height, "{buffers} buffers, seed {seed}");
            let report = crate::validate::validate(&problem, &offsets, Some(spec.height));
            assert!(report.is_valid(), "{buffers} buffers, seed {seed}: {:?}", report.violations.first());
            // Every time step is full: the load is the height everywhere, not only at the peak.
            let end = problem.buffers().iter().map(|b| b.end).max().unwrap();
            for t in 0..end {
                let load: u64 = problem.buffers().iter().filter(|b| b.start <= t && t < b.end).map(|b| b.size).sum();
                assert_eq!(load, spec.height, "time {t}");
            }
        }
        assert_eq!(perfect(PerfectSpec::new(300, 9)).buffers(), perfect(PerfectSpec::new(300, 9)).buffers());
        assert_eq!(Shape::parse("perfect"), Some(Shape::Perfect));
    }

    #[test]
    fn aligned_instances_are_seeded_and_mix_alignments() {
        let a = aligned(25, 11);
        assert_eq!(a.buffers(), aligned(25, 11).buffers());
        assert_ne!(a.buffers(), aligned(25, 12).buffers());
        assert_eq!(Shape::parse("aligned"), Some(Shape::Aligned));
        let big = aligned(2000, 1);
        for alignment in ALIGNMENTS {
            assert!(big.buffers().iter().any(|b| b.alignment() == alignment), "no buffer aligned to {alignment}");
        }
        assert!(big.buffers().iter().all(|b| (1..=12).contains(&b.lifetime()) && (256..10_000).contains(&b.size)));
        // Padding matters: most aligned buffers' sizes are not multiples of their alignment.
        let padded = big.buffers().iter().filter(|b| b.alignment() > 1 && b.size % b.alignment() != 0).count();
        let aligned_count = big.buffers().iter().filter(|b| b.alignment() > 1).count();
        assert!(padded * 10 >= aligned_count * 8, "{padded} of {aligned_count}");
    }
}
