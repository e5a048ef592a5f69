//! The validator against a naive oracle that checks every pair of buffers, written the slow,
//! obvious way in u128 so that nothing it computes can wrap. Offsets are random (mostly invalid)
//! or a valid greedy plan shifted here and there; values reach u64::MAX.

use memplan::validate::{self, Claim, Violation};
use memplan::{Buffer, Gap, Problem, SolveOptions};
use proptest::prelude::*;

const HALF: u64 = 1 << 63;

/// What the validator promises, from the definitions: per buffer, `Overflow` alone when
/// offset + size passes u64, else `Misaligned`, `PinnedMoved` and `ExceedsCapacity` as they apply
/// (in that order); and every pair of buffers alive at the same time whose address ranges meet.
struct Naive {
    per_buffer: Vec<Violation>,
    overlapping: Vec<(usize, usize)>,
    makespan: u64,
}

fn naive(problem: &Problem, offsets: &[u64], capacity: Option<u64>) -> Naive {
    let b = problem.buffers();
    let top = |i: usize| offsets[i] as u128 + b[i].size as u128;
    let fits = |i: usize| top(i) <= u64::MAX as u128;
    let mut per_buffer = Vec::new();
    for i in 0..b.len() {
        let offset = offsets[i];
        if !fits(i) {
            per_buffer.push(Violation::Overflow { buffer: i, offset });
            continue;
        }
        if !offset.is_multiple_of(b[i].alignment()) {
            per_buffer.push(Violation::Misaligned { buffer: i, offset, alignment: b[i].alignment() });
        }
        if let Some(pinned) = b[i].pinned
            && pinned != offset
        {
            per_buffer.push(Violation::PinnedMoved { buffer: i, pinned, offset });
        }
        if let Some(capacity) = capacity
            && top(i) > capacity as u128
        {
            per_buffer.push(Violation::ExceedsCapacity { buffer: i, top: top(i) as u64, capacity });
        }
    }
    // The bytes buffer i occupies at time t, relative to its offset, if any: its whole size inside
    // its lifetime, nothing in a plain gap, the window in a windowed one.
    let occupied = |i: usize, t: u64| -> Option<(u128, u128)> {
        if t < b[i].start || t >= b[i].end || b[i].size == 0 {
            return None;
        }
        match b[i].gaps.iter().find(|g| g.start <= t && t < g.end) {
            None => Some((0, b[i].size as u128)),
            Some(gap) => gap.window.map(|w| (w.lower as u128, w.upper as u128)),
        }
    };
    let times: Vec<u64> =
        b.iter().map(|buffer| buffer.start).chain(b.iter().flat_map(|x| x.gaps.iter().map(|g| g.end))).collect();
    let mut overlapping = Vec::new();
    for i in 0..b.len() {
        for j in i + 1..b.len() {
            // Every change of what is alive happens at a start or a gap's end, so checking there is
            // checking every time.
            let meet = times.iter().any(|&t| match (occupied(i, t), occupied(j, t)) {
                (Some((li, hi)), Some((lj, hj))) => {
                    let (oi, oj) = (offsets[i] as u128, offsets[j] as u128);
                    oi + li < oj + hj && oj + lj < oi + hi
                }
                _ => false,
            });
            if fits(i) && fits(j) && meet {
                overlapping.push((i, j));
            }
        }
    }
    let makespan = (0..b.len()).filter(|&i| fits(i)).map(|i| top(i) as u64).max().unwrap_or(0);
    Naive { per_buffer, overlapping, makespan }
}

/// A size: mostly small, sometimes near u64::MAX or 2^63.
fn size() -> impl Strategy<Value = u64> {
    prop_oneof![
        4 => 1u64..9,
        1 => (0u64..8).prop_map(|k| u64::MAX - k),
        1 => (0u64..8).prop_map(|k| HALF - k),
        1 => (0u64..8).prop_map(|k| HALF + k),
    ]
}

/// Gaps for a buffer of `size` over `[start, start + length)`: cut points inside the lifetime
/// taken in pairs, each gap plain or windowed (window bytes drawn inside the size).
fn gaps(start: u64, length: u64, size: u64, cuts: &[u64], windows: &[Option<(u64, u64)>]) -> Vec<Gap> {
    let mut points: Vec<u64> = cuts.iter().map(|c| start + c % (length + 1)).collect();
    points.sort_unstable();
    points.dedup();
    points
        .chunks_exact(2)
        .zip(windows)
        .map(|(pair, window)| match *window {
            None => Gap::new(pair[0], pair[1]),
            Some((low, span)) => {
                let lower = low.min(size - 1);
                let upper = lower + 1 + span.min(size - lower - 1);
                Gap::windowed(pair[0], pair[1], lower, upper)
            }
        })
        .collect()
}

/// Up to 8 buffers in a short time span (so that many overlap in time), some aligned up to 2^63,
/// some pinned low or near the top, some with gaps and windows. A buffer that would make the
/// instance invalid is left out.
fn instances() -> impl Strategy<Value = Problem> {
    let alignment = prop::sample::select(vec![1u64, 1, 1, 2, 4, 1 << 62, HALF]);
    let pin =
        prop_oneof![4 => Just(None), 1 => (0u64..32).prop_map(Some), 1 => (0u64..8).prop_map(|k| Some(u64::MAX - k))];
    let window = prop_oneof![1 => Just(None), 1 => (0u64..8, 0u64..8).prop_map(Some)];
    let gap_spec = prop_oneof![
        2 => Just((Vec::new(), Vec::new())),
        1 => (prop::collection::vec(0u64..8, 2..=4), prop::collection::vec(window, 2)),
    ];
    let buffer = ((0u64..5, 1u64..6), size(), alignment, pin, gap_spec);
    prop::collection::vec(buffer, 1..=8).prop_map(|specs| {
        let mut buffers: Vec<Buffer> = Vec::new();
        for (i, ((start, length), size, alignment, pin, (cuts, windows))) in specs.into_iter().enumerate() {
            let mut buffer = Buffer::new(format!("b{i}"), start, start + length, size)
                .with_alignment(alignment)
                .with_gaps(gaps(start, length, size, &cuts, &windows));
            buffer.pinned = pin.map(|at: u64| at.min(u64::MAX - size) / alignment * alignment);
            buffers.push(buffer);
            if Problem::new(buffers.clone(), None).is_err() {
                buffers.pop();
            }
        }
        Problem::new(buffers, None).expect("each buffer kept leaves a valid instance")
    })
}

/// A change to one offset of a plan.
#[derive(Clone, Copy, Debug)]
enum Nudge {
    Keep,
    Up(u64),
    Down(u64),
    /// `u64::MAX - k`: past u64 for any size above k.
    NearMax(u64),
    /// Just low enough for the top to be u64::MAX - k (or past it when k is large).
    TopAt(u64),
    Half,
    Zero,
}

fn nudge() -> impl Strategy<Value = Nudge> {
    prop_oneof![
        6 => Just(Nudge::Keep),
        2 => (1u64..8).prop_map(Nudge::Up),
        2 => (1u64..8).prop_map(Nudge::Down),
        1 => (0u64..4).prop_map(Nudge::NearMax),
        1 => (0u64..4).prop_map(Nudge::TopAt),
        1 => Just(Nudge::Half),
        1 => Just(Nudge::Zero),
    ]
}

fn apply(nudge: Nudge, offset: u64, size: u64) -> u64 {
    match nudge {
        Nudge::Keep => offset,
        Nudge::Up(k) => offset.saturating_add(k),
        Nudge::Down(k) => offset.saturating_sub(k),
        Nudge::NearMax(k) => u64::MAX - k,
        Nudge::TopAt(k) => (u64::MAX - size).saturating_sub(k),
        Nudge::Half => HALF,
        Nudge::Zero => 0,
    }
}

/// Offsets for `problem`: a valid first-fit plan (when one fits in u64) with some offsets nudged,
/// or offsets drawn at random; and a capacity at the plan's edge, at u64::MAX, or none.
fn case() -> impl Strategy<Value = (Problem, Vec<u64>, Option<u64>)> {
    (
        instances(),
        any::<bool>(),
        prop::collection::vec(nudge(), 8),
        prop::collection::vec(prop_oneof![0u64..40, any::<u64>(), (0u64..8).prop_map(|k| u64::MAX - k)], 8),
        0u8..6,
    )
        .prop_map(|(problem, from_plan, nudges, random, pick)| {
            let plan = memplan::run::registry::by_name("slff")
                .ok()
                .and_then(|slff| slff.solve(&problem, &SolveOptions::default()).ok())
                .and_then(|outcome| outcome.plan)
                .map(|plan| plan.offsets);
            let offsets: Vec<u64> = match plan {
                Some(plan) if from_plan => {
                    (0..problem.len()).map(|i| apply(nudges[i], plan[i], problem.buffers()[i].size)).collect()
                }
                _ => random[..problem.len()].to_vec(),
            };
            let makespan = memplan::metrics::makespan(problem.buffers(), &offsets);
            let capacity = match pick {
                0 | 1 => None,
                2 => Some(makespan),
                3 => Some(makespan.saturating_sub(1)),
                4 => Some(u64::MAX),
                _ => Some(u64::MAX - 1),
            };
            (problem, offsets, capacity)
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// The validator finds a plan valid exactly when the naive oracle does; its per-buffer
    /// violations are exactly the oracle's; every overlap it reports is a real one with the true
    /// offsets; and the buffers it names in overlaps cover every overlapping pair (it reports each
    /// buffer that collides once, with one partner, and then leaves it out of the sweep).
    #[test]
    fn agrees_with_the_naive_oracle((problem, offsets, capacity) in case()) {
        let report = validate::validate(&problem, &offsets, capacity);
        let expected = naive(&problem, &offsets, capacity);
        let valid = expected.per_buffer.is_empty() && expected.overlapping.is_empty();
        prop_assert_eq!(report.is_valid(), valid, "{}", report.describe(&problem));
        prop_assert_eq!(report.makespan, expected.makespan);
        let per_buffer: Vec<Violation> =
            report.violations.iter().filter(|v| !matches!(v, Violation::Overlap { .. })).cloned().collect();
        prop_assert_eq!(&per_buffer, &expected.per_buffer);
        let mut named = vec![false; problem.len()];
        for violation in &report.violations {
            if let Violation::Overlap { first, first_offset, second, second_offset } = *violation {
                prop_assert!(first < second);
                prop_assert!(expected.overlapping.contains(&(first, second)), "({}, {}) do not overlap", first, second);
                prop_assert_eq!((first_offset, second_offset), (offsets[first], offsets[second]));
                named[first] = true;
                named[second] = true;
            }
        }
        for &(i, j) in &expected.overlapping {
            prop_assert!(named[i] || named[j], "the overlap of {} and {} went unseen", i, j);
        }
    }

    /// An outcome's lower bound is held to the max load (the most bytes of live pieces at once,
    /// counted here time by time), whatever the plan: one byte below it is a false claim naming
    /// it, the max load itself is not.
    #[test]
    fn a_bound_below_the_max_load_is_a_false_claim((problem, offsets, _) in case()) {
        let pieces: Vec<(u64, u64, u128)> = problem
            .buffers()
            .iter()
            .flat_map(|b| b.pieces().into_iter().map(|p| (p.start, p.end, (p.upper - p.lower) as u128)))
            .collect();
        let load = |t: u64| pieces.iter().filter(|p| p.0 <= t && t < p.1).map(|p| p.2).sum::<u128>();
        let max_load = pieces.iter().map(|p| load(p.0)).max().unwrap_or(0) as u64;
        prop_assert_eq!(max_load, problem.max_load());
        let plan = memplan::Plan::new(&problem, offsets, Vec::new());
        let mut outcome = memplan::Outcome::new("test", &problem, None, Some(plan), 0, memplan::Stopped::Completed);
        let below_load = |outcome: &memplan::Outcome| {
            validate::validate_outcome(&problem, outcome).violations.into_iter().find_map(|v| match v {
                Violation::WrongClaim { what: Claim::BoundBelowMaxLoad, actual, .. } => Some(actual),
                _ => None,
            })
        };
        outcome.lower_bound = max_load;
        prop_assert_eq!(below_load(&outcome), None);
        if max_load > 0 {
            outcome.lower_bound = max_load - 1;
            prop_assert_eq!(below_load(&outcome), Some(max_load));
        }
    }

    /// A valid plan stays valid at its own makespan as capacity and fails one byte below it.
    #[test]
    fn a_valid_plan_fits_exactly_its_makespan(problem in instances()) {
        // A planner that plans hulls refuses instances whose hulls pass 64 bits (gaps kept them apart).
        let Ok(run) = memplan::run::solve(&problem, "slff", &SolveOptions::default()) else { return Ok(()) };
        let Some(solution) = run.outcome.plan else { return Ok(()) };
        let report = validate::validate(&problem, &solution.offsets, Some(solution.makespan));
        prop_assert!(report.is_valid(), "{}", report.describe(&problem));
        prop_assert_eq!(report.makespan, solution.makespan);
        let below = validate::validate(&problem, &solution.offsets, Some(solution.makespan - 1));
        let only_capacity = below.violations.iter().all(|v| matches!(v, Violation::ExceedsCapacity { .. }));
        prop_assert!(only_capacity, "{}", below.describe(&problem));
        prop_assert!(!below.is_valid());
    }
}

#[test]
fn a_wrong_number_of_offsets_is_reported_alone() {
    let problem = Problem::new(vec![Buffer::new("a", 0, 2, 4), Buffer::new("b", 1, 3, 4)], None).unwrap();
    let report = validate::validate(&problem, &[0], Some(1));
    assert_eq!(report.violations, vec![Violation::WrongLength { expected: 2, found: 1 }]);
}

#[test]
fn touching_lifetimes_and_touching_addresses_do_not_overlap() {
    // a [0,2) and b [2,4) share an address range but never a moment; c sits right on top of a.
    let buffers = vec![Buffer::new("a", 0, 2, 4), Buffer::new("b", 2, 4, 4), Buffer::new("c", 0, 4, 2)];
    let problem = Problem::new(buffers, None).unwrap();
    let report = validate::validate(&problem, &[0, 0, 4], Some(6));
    assert!(report.is_valid(), "{}", report.describe(&problem));
    // The highest possible buffer ends exactly at u64::MAX; one byte more passes u64.
    let top = Problem::new(vec![Buffer::new("t", 0, 1, 7).with_alignment(8)], None).unwrap();
    assert!(validate::validate(&top, &[u64::MAX - 7], Some(u64::MAX)).is_valid());
    assert!(!validate::validate(&top, &[u64::MAX - 7], Some(u64::MAX - 1)).is_valid());
    let past = Problem::new(vec![Buffer::new("t", 0, 1, 8).with_alignment(8)], None).unwrap();
    let report = validate::validate(&past, &[u64::MAX - 7], None);
    assert_eq!(report.violations, vec![Violation::Overflow { buffer: 0, offset: u64::MAX - 7 }]);
}

#[test]
fn gaps_and_windows_make_room() {
    // a: 8 bytes over [0, 10), gone in [2, 4) and only bytes [0, 2) in [6, 8). b fits in a's gap,
    // c on top of a's window, d nowhere near a but on a's bytes [2, 8) while a is whole: overlap.
    let a = Buffer::new("a", 0, 10, 8).with_gaps(vec![Gap::new(2, 4), Gap::windowed(6, 8, 0, 2)]);
    let buffers = vec![a, Buffer::new("b", 2, 4, 8), Buffer::new("c", 6, 8, 6), Buffer::new("d", 5, 7, 4)];
    let problem = Problem::new(buffers, None).unwrap();
    let report = validate::validate(&problem, &[0, 0, 2, 8], Some(12));
    assert!(report.is_valid(), "{}", report.describe(&problem));
    let report = validate::validate(&problem, &[0, 0, 2, 4], None);
    let overlaps: Vec<_> = report
        .violations
        .iter()
        .filter_map(|v| match *v {
            Violation::Overlap { first, second, .. } => Some((first, second)),
            _ => None,
        })
        .collect();
    // d at 4 meets a's bytes [4, 8) in [5, 6): reported once (not again in [6, 7), when a is
    // down to its window), then d is left out of the sweep.
    assert_eq!(overlaps, vec![(0, 3)]);
    // A zero-size buffer occupies nothing, wherever it is.
    let problem = Problem::new(vec![Buffer::new("a", 0, 4, 8), Buffer::new("z", 0, 4, 0)], None);
    if let Ok(problem) = problem {
        assert!(validate::validate(&problem, &[0, 3], None).is_valid());
    }
}

#[test]
fn many_violations_are_capped_at_the_limit() {
    let buffers: Vec<Buffer> = (0..300).map(|i| Buffer::new(format!("b{i}"), 0, 1, 1)).collect();
    let problem = Problem::new(buffers, None).unwrap();
    let report = validate::validate(&problem, &[0; 300], None);
    assert_eq!(report.violations.len(), validate::Report::LIMIT);
}
