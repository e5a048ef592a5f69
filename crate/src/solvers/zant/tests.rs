//! Hand-made instances with known answers for each variant, a naive oracle for the three reuse
//! rules, and property tests against the independent validator.

use std::cmp::Reverse;

use proptest::prelude::*;

use super::*;
use crate::model::{Buffer, Outcome, Problem, StatValue, Stopped};
use crate::options::CancelFlag;
use crate::validate::validate;

fn problem(spec: &[(u64, u64, u64)]) -> Problem {
    let buffers = spec.iter().enumerate().map(|(i, &(s, e, z))| Buffer::new(i.to_string(), s, e, z)).collect();
    Problem::new(buffers, None).unwrap()
}

fn solve(variant: Variant, problem: &Problem) -> Outcome {
    let solution = Zant::new(variant).solve(problem, &SolveOptions::default()).unwrap();
    let report = validate(problem, solution.offsets(), None);
    assert!(report.is_valid(), "{}: {}", variant.name(), report.describe(problem));
    solution
}

fn count(solution: &Outcome, name: &str) -> u64 {
    match solution.stats.get(name) {
        Some(&StatValue::Count(value)) => value,
        other => panic!("stat {name} is {other:?}"),
    }
}

fn ratio(solution: &Outcome, name: &str) -> f64 {
    match solution.stats.get(name) {
        Some(&StatValue::Ratio(value)) => value,
        other => panic!("stat {name} is {other:?}"),
    }
}

#[test]
fn presets_are_named_and_listed() {
    let names: Vec<String> = presets().iter().map(|s| s.name().to_string()).collect();
    assert_eq!(names, ["zant", "zant-best", "zant-worst", "zant-lookahead", "zant-prepopulated", "zant-buddy"]);
    for solver in presets() {
        assert!(!solver.description().is_empty());
        let caps = solver.capabilities();
        assert!(caps.alignment && caps.pinned && !caps.capacity && !caps.minimise && !caps.randomised);
    }
}

#[test]
fn first_fit_takes_the_earliest_object_best_fit_the_smallest() {
    // Objects 0 (10 bytes) and 1 (6 bytes) are free at time 2, when a 5 and then a 9 arrive.
    let p = problem(&[(0, 2, 10), (0, 2, 6), (2, 4, 5), (2, 4, 9)]);
    let first = solve(Variant::First, &p);
    assert_eq!(first.offsets(), vec![0, 10, 0, 16]);
    assert_eq!(first.makespan().unwrap(), 25);
    assert_eq!(count(&first, "pool_buffers"), 3);
    let best = solve(Variant::Best, &p);
    assert_eq!(best.offsets(), vec![0, 10, 10, 0]);
    assert_eq!(best.makespan().unwrap(), 16);
    assert_eq!(count(&best, "pool_buffers"), 2);
    assert_eq!(count(&best, "reused"), 2);
    assert_eq!(solve(Variant::Worst, &p).offsets(), vec![0, 10, 0, 16]);
}

#[test]
fn worst_fit_takes_the_largest_object() {
    // Objects 0 (6 bytes) and 1 (10 bytes): first and best fit put the 5 in object 0, worst in 1.
    let p = problem(&[(0, 2, 6), (0, 2, 10), (2, 4, 5), (2, 4, 9)]);
    assert_eq!(solve(Variant::First, &p).offsets(), vec![0, 6, 0, 6]);
    assert_eq!(solve(Variant::Best, &p).offsets(), vec![0, 6, 0, 6]);
    let worst = solve(Variant::Worst, &p);
    assert_eq!(worst.offsets(), vec![0, 6, 6, 16]);
    assert_eq!(worst.makespan().unwrap(), 25);
}

#[test]
fn lookahead_sizes_a_new_object_for_its_next_user() {
    let p = problem(&[(0, 1, 4), (1, 2, 8)]);
    assert_eq!(solve(Variant::Best, &p).makespan().unwrap(), 12);
    let lookahead = solve(Variant::Lookahead, &p);
    assert_eq!(lookahead.offsets(), vec![0, 0]);
    assert_eq!(lookahead.makespan().unwrap(), 8);
    assert_eq!(count(&lookahead, "pool_buffers"), 1);
    assert_eq!(count(&lookahead, "reused"), 1);
    assert_eq!(ratio(&lookahead, "reuse_rate"), 2.0);
}

#[test]
fn lookahead_ignores_buffers_that_overlap_its_buffer() {
    // The 100 starts before the 4 ends, so it could never reuse the 4's object.
    let p = problem(&[(0, 2, 4), (1, 3, 100), (2, 3, 6)]);
    let lookahead = solve(Variant::Lookahead, &p);
    assert_eq!(lookahead.offsets(), vec![0, 6, 0]);
    assert_eq!(count(&lookahead, "pool_size"), 106);
}

#[test]
fn prepopulated_pool_holds_the_peak_buffers() {
    // Peak at time 1 (the 8): the early 4 takes the prepopulated 8, which the 8 then reuses.
    let p = problem(&[(0, 1, 4), (1, 2, 8)]);
    let prepopulated = solve(Variant::Prepopulated, &p);
    assert_eq!(prepopulated.offsets(), vec![0, 0]);
    assert_eq!(prepopulated.makespan().unwrap(), 8);
    assert_eq!(count(&prepopulated, "pool_buffers"), 1);
    assert_eq!(count(&prepopulated, "pool_size"), 8);
}

#[test]
fn buddy_splits_and_merges() {
    // The 8 opens the only top-level block; the 2, 3 (-> 4) and 2 split it; when they all end
    // the halves merge back so the last 8 fits in it again.
    let p = problem(&[(0, 1, 8), (1, 3, 2), (1, 3, 3), (1, 3, 2), (3, 4, 8)]);
    let buddy = solve(Variant::Buddy, &p);
    assert_eq!(buddy.offsets(), vec![0, 0, 4, 2, 0]);
    assert_eq!(buddy.makespan().unwrap(), 8);
    assert_eq!(count(&buddy, "blocks"), 1);
    assert_eq!(count(&buddy, "pool_buffers"), 1);
    assert_eq!(count(&buddy, "pool_size"), 8);
    assert_eq!(count(&buddy, "reused"), 4);
    assert_eq!(count(&buddy, "splits"), 2);
    assert_eq!(count(&buddy, "merges"), 2);
}

#[test]
fn buddy_stacks_a_new_top_level_block_when_nothing_is_free() {
    let p = problem(&[(0, 2, 3), (0, 2, 5)]);
    let buddy = solve(Variant::Buddy, &p);
    assert_eq!(buddy.offsets(), vec![0, 4]);
    assert_eq!(buddy.makespan().unwrap(), 9);
    assert_eq!(count(&buddy, "blocks"), 2);
    assert_eq!(count(&buddy, "pool_size"), 12);
}

#[test]
fn pool_view_sums_to_the_makespan() {
    let p = problem(&[(0, 3, 7), (1, 4, 5), (3, 6, 6), (4, 8, 2), (5, 9, 7), (8, 10, 5), (9, 12, 1)]);
    for variant in [Variant::First, Variant::Best, Variant::Worst, Variant::Lookahead, Variant::Prepopulated] {
        let solution = solve(variant, &p);
        let objects = count(&solution, "pool_buffers");
        // No alignment, nothing pinned: the objects stack without padding. A lookahead or
        // prepopulated object may be larger than every buffer it held, so the top one may stick out.
        if matches!(variant, Variant::Lookahead | Variant::Prepopulated) {
            assert!(count(&solution, "pool_size") >= solution.makespan().unwrap(), "{}", variant.name());
        } else {
            assert_eq!(count(&solution, "pool_size"), solution.makespan().unwrap(), "{}", variant.name());
        }
        assert_eq!(objects + count(&solution, "reused"), 7);
        assert_eq!(ratio(&solution, "reuse_rate"), 7.0 / objects as f64);
        // Distinct offsets are distinct objects.
        let mut offsets = solution.offsets().to_vec();
        offsets.sort_unstable();
        offsets.dedup();
        assert_eq!(offsets.len() as u64, objects, "{}", variant.name());
    }
}

#[test]
fn pinned_buffers_keep_their_offsets() {
    let buffers = vec![
        Buffer::new("p", 0, 10, 20).with_alignment(4).pinned_at(100),
        Buffer::new("a", 0, 5, 10).with_alignment(8),
        Buffer::new("b", 5, 10, 10),
        Buffer::new("q", 10, 12, 4).pinned_at(0),
    ];
    let p = Problem::new(buffers, None).unwrap();
    for variant in Variant::ALL {
        let solution = solve(variant, &p);
        assert_eq!((solution.offsets()[0], solution.offsets()[3]), (100, 0), "{}", variant.name());
        assert!(solution.offsets()[1] >= 120 && solution.offsets()[2] >= 120);
        assert_eq!(&solution.plan.as_ref().unwrap().placement_order[..2], &[0, 3]);
    }
    assert_eq!(solve(Variant::First, &p).offsets(), vec![100, 120, 120, 0]);
}

#[test]
fn overlapping_pinned_buffers_are_infeasible() {
    let buffers = vec![Buffer::new("p", 0, 10, 20).pinned_at(0), Buffer::new("q", 5, 6, 4).pinned_at(16)];
    let p = Problem::new(buffers, None).unwrap();
    for variant in Variant::ALL {
        let outcome = Zant::new(variant).solve(&p, &SolveOptions::default()).unwrap();
        assert_eq!(outcome.stopped, Stopped::Infeasible);
        assert!(outcome.plan.is_none());
        assert!(outcome.detail.as_deref().is_some_and(|m| m.contains("p and q")), "{:?}", outcome.detail);
    }
}

#[test]
fn alignment_is_honoured() {
    let buffers = vec![Buffer::new("a", 0, 1, 3), Buffer::new("b", 0, 1, 5).with_alignment(8)];
    let p = Problem::new(buffers, None).unwrap();
    assert_eq!(solve(Variant::First, &p).offsets(), vec![0, 8]);
    for variant in Variant::ALL {
        solve(variant, &p);
    }
    // b and c share an object, which must suit both alignments: lcm(4, 6) = 12.
    let buffers = vec![
        Buffer::new("a", 0, 2, 1),
        Buffer::new("b", 0, 1, 10).with_alignment(4),
        Buffer::new("c", 1, 2, 10).with_alignment(6),
    ];
    let p = Problem::new(buffers, None).unwrap();
    for variant in [Variant::First, Variant::Best, Variant::Worst, Variant::Lookahead, Variant::Prepopulated] {
        assert_eq!(solve(variant, &p).offsets(), vec![0, 12, 12], "{}", variant.name());
    }
    solve(Variant::Buddy, &p);
}

#[test]
fn buddy_pads_inside_the_block_for_other_alignments() {
    let buffers = vec![Buffer::new("p", 0, 1, 1).pinned_at(0), Buffer::new("x", 0, 2, 5).with_alignment(3)];
    let p = Problem::new(buffers, None).unwrap();
    // The 8-byte block starts at 1; x goes to 3, inside it.
    assert_eq!(solve(Variant::Buddy, &p).offsets(), vec![0, 3]);
}

#[test]
fn offsets_past_u64_leave_no_plan() {
    let buffers = vec![Buffer::new("p", 0, 1, 64).pinned_at(0), Buffer::new("big", 1, 2, u64::MAX - 32)];
    let p = Problem::new(buffers, None).unwrap();
    for variant in Variant::ALL {
        let outcome = Zant::new(variant).solve(&p, &SolveOptions::default()).unwrap();
        assert!(outcome.plan.is_none(), "{}", variant.name());
        assert!(
            outcome.detail.as_deref().is_some_and(|m| m.contains("big")),
            "{}: {:?}",
            variant.name(),
            outcome.detail
        );
    }
}

#[test]
fn an_empty_problem_has_an_empty_pool() {
    let p = problem(&[]);
    for variant in Variant::ALL {
        let solution = solve(variant, &p);
        assert_eq!(solution.makespan().unwrap(), 0);
        assert_eq!(count(&solution, "pool_buffers"), 0);
        assert_eq!(ratio(&solution, "reuse_rate"), 0.0);
    }
}

#[test]
fn a_cancelled_solve_stops() {
    let spec: Vec<(u64, u64, u64)> = (0..3000).map(|i| (i, i + 3, 1 + i % 7)).collect();
    let p = problem(&spec);
    let cancel = CancelFlag::new();
    cancel.cancel();
    let options = SolveOptions { cancel, ..SolveOptions::default() };
    for variant in Variant::ALL {
        let outcome = Zant::new(variant).solve(&p, &options).unwrap();
        assert_eq!((outcome.stopped, outcome.plan.is_none()), (Stopped::Cancelled, true));
    }
}

/// A deliberately simple O(n²) shared-objects walk: scan every object for each buffer.
fn naive_offsets(problem: &Problem, reuse: Reuse) -> Vec<u64> {
    let buffers = problem.buffers();
    let mut walk: Vec<usize> = (0..buffers.len()).filter(|&i| buffers[i].pinned.is_none()).collect();
    walk.sort_by_key(|&i| (buffers[i].start, i));
    // (size, end of its current buffer, alignment)
    let mut objects: Vec<(u64, u64, u64)> = Vec::new();
    let mut object_of = vec![usize::MAX; buffers.len()];
    for &i in &walk {
        let b = &buffers[i];
        let candidates: Vec<usize> =
            (0..objects.len()).filter(|&k| objects[k].1 <= b.start && objects[k].0 >= b.size).collect();
        let chosen = match reuse {
            Reuse::First => candidates.first().copied(),
            Reuse::Best => candidates.iter().copied().min_by_key(|&k| (objects[k].0, k)),
            Reuse::Worst => candidates.iter().copied().min_by_key(|&k| (Reverse(objects[k].0), k)),
        };
        let k = chosen.unwrap_or_else(|| {
            objects.push((b.size, 0, 1));
            objects.len() - 1
        });
        let alignment = objects[k].2;
        let mut lcm = alignment;
        while !lcm.is_multiple_of(b.alignment()) {
            lcm += alignment;
        }
        objects[k] = (objects[k].0, b.end, lcm);
        object_of[i] = k;
    }
    let mut top = buffers.iter().filter_map(|b| b.pinned.map(|o| o + b.size)).max().unwrap_or(0);
    let mut object_offsets = Vec::new();
    for &(size, _, alignment) in &objects {
        let offset = top.div_ceil(alignment) * alignment;
        object_offsets.push(offset);
        top = offset + size;
    }
    (0..buffers.len())
        .map(|i| buffers[i].pinned.unwrap_or_else(|| object_offsets.get(object_of[i]).copied().unwrap_or(0)))
        .collect()
}

/// Small random instances: up to 40 buffers, times below 50, sizes 1..100, power-of-two
/// alignments up to 16, and a few pinned buffers, each in its own 128-byte slot so that pinned
/// buffers never overlap each other.
fn instance() -> impl Strategy<Value = Problem> {
    prop::collection::vec((0u64..48, 1u64..12, 1u64..100, 0u32..5, prop::bool::weighted(0.1)), 0..40).prop_map(
        |specs| {
            let mut slot = 0;
            let buffers = specs
                .into_iter()
                .enumerate()
                .map(|(i, (start, length, size, alignment_log2, pinned))| {
                    let end = (start + length).min(49);
                    let buffer = Buffer::new(i.to_string(), start, end, size).with_alignment(1 << alignment_log2);
                    if pinned {
                        slot += 1;
                        buffer.pinned_at((slot - 1) * 128)
                    } else {
                        buffer
                    }
                })
                .collect();
            Problem::new(buffers, None).unwrap()
        },
    )
}

proptest! {
    #[test]
    fn every_variant_gives_a_valid_plan(p in instance()) {
        let walked = p.buffers().iter().filter(|b| b.pinned.is_none()).count() as u64;
        let pinned_top = p.buffers().iter().filter_map(|b| b.pinned.map(|o| o + b.size)).max().unwrap_or(0);
        for variant in Variant::ALL {
            let solution = Zant::new(variant).solve(&p, &SolveOptions::default()).unwrap();
            let report = validate(&p, solution.offsets(), None);
            prop_assert!(report.is_valid(), "{}: {}", variant.name(), report.describe(&p));
            prop_assert!(solution.makespan().unwrap() >= p.max_load());
            prop_assert_eq!(solution.plan.as_ref().unwrap().placement_order.len(), p.len());
            prop_assert_eq!(count(&solution, "pool_buffers") + count(&solution, "reused"), walked);
            if walked > 0 && matches!(variant, Variant::First | Variant::Best | Variant::Worst) {
                prop_assert!(solution.makespan().unwrap() >= pinned_top + count(&solution, "pool_size"));
            }
        }
    }

    #[test]
    fn reuse_rules_agree_with_a_naive_walk(p in instance()) {
        for (variant, reuse) in [(Variant::First, Reuse::First), (Variant::Best, Reuse::Best), (Variant::Worst, Reuse::Worst)] {
            let solution = Zant::new(variant).solve(&p, &SolveOptions::default()).unwrap();
            prop_assert_eq!(solution.offsets(), &naive_offsets(&p, reuse), "{}", variant.name());
        }
    }
}
