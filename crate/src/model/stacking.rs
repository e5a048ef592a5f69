//! The stacking bound: what the buffers alive at one time need when each must start at a multiple
//! of its alignment.
//!
//! At one time the buffers alive there form a one-dimensional packing: disjoint address ranges,
//! each starting at a multiple of its buffer's alignment. Sorted by offset, every such packing can
//! be pushed down so that each buffer starts at the lowest multiple of its alignment at or above
//! the top of the one below it; the top never rises. So the least top over every packing is the
//! least over every order of that greedy stacking, and a dynamic programme over the subsets
//! stacked so far finds it exactly (a lower top of a subset is never worse for what comes after:
//! rounding up is monotone). That least top bounds every plan's makespan from below. On random
//! aligned instances (issue 20: 20 to 30 buffers, alignments up to 4,096, sizes not multiples of
//! them) it is the optimum on most of them, where L and the slot count of
//! [`super::problem::alignment_bound`] fall short by tens or hundreds of bytes.
//!
//! The programme costs `2^k · k` for `k` buffers alive together, so it runs on at most
//! [`MAX_STACKED`] of them (a subset of the buffers alive still bounds: dropping buffers only
//! relaxes), only at times whose live set is maximal, only where a stacking could beat the bound
//! already known, and within [`WORK`] steps over the whole instance, so that building a problem of
//! millions of buffers stays a sweep.

use super::Buffer;
use crate::alignment::align_up;

/// The most buffers one stacking looks at: `2^14` subsets.
pub const MAX_STACKED: usize = 14;

/// The most subset steps (subsets times buffers) over every time of one instance.
const WORK: u64 = 1 << 23;

/// Above this many buffers alive at once a time is not looked at: a subset of
/// [`MAX_STACKED`] of them would rarely bound anything, and copying the live set costs.
const MAX_ALIVE: usize = 64;

/// How many times (their live sets) are kept for the programme: those that could raise the bound
/// most.
const MAX_TIMES: usize = 256;

/// The least top of the buffers `items` (size, alignment) stacked in one column, each at a
/// multiple of its alignment: the exact one-dimensional optimum. `None` for more than
/// [`MAX_STACKED`] items.
pub fn least_stack(items: &[(u64, u64)]) -> Option<u128> {
    if items.len() > MAX_STACKED {
        return None;
    }
    let full = 1usize << items.len();
    let mut top = vec![u128::MAX; full];
    top[0] = 0;
    for set in 0..full {
        let below = top[set];
        if below == u128::MAX {
            continue;
        }
        for (i, &(size, alignment)) in items.iter().enumerate() {
            let bit = 1 << i;
            if set & bit != 0 {
                continue;
            }
            let start = align_up_wide(below, alignment);
            let reached = start + size as u128;
            if reached < top[set | bit] {
                top[set | bit] = reached;
            }
        }
    }
    Some(top[full - 1])
}

fn align_up_wide(value: u128, alignment: u64) -> u128 {
    match u64::try_from(value).ok().and_then(|v| align_up(v, alignment)) {
        Some(v) => v as u128,
        None => value.div_ceil(alignment as u128) * alignment as u128,
    }
}

/// A top that some order reaches: largest alignment first, each at the lowest multiple of its
/// alignment above the one before. At least the least stack, so a time whose greedy top does not
/// beat the known bound cannot raise it.
fn some_stack(items: &mut [(u64, u64)]) -> u128 {
    items.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(b.0.cmp(&a.0)));
    items.iter().fold(0u128, |top, &(size, alignment)| align_up_wide(top, alignment) + size as u128)
}

/// Calls `visit` with every maximal set of buffers (indices) alive together: the live set just
/// before a buffer ends, when buffers started since the last end. Only a buffer's pieces with its
/// whole size count (not its gaps or windows), and zero-size buffers not at all. Every set of
/// buffers alive at one time is within one of these. `visit` also gets the set's sizes plus its
/// alignments less one each, summed: no stacking of the set ends above that, so a caller can
/// skip a set in O(1).
pub fn for_each_maximal_live_set(buffers: &[Buffer], mut visit: impl FnMut(&[usize], u128)) {
    // (time, is_start, index): ends before starts at one time, as `[start, end)` asks.
    let mut events: Vec<(u64, bool, usize)> = Vec::with_capacity(buffers.len() * 2);
    for (i, b) in buffers.iter().enumerate().filter(|(_, b)| b.size > 0) {
        for piece in b.pieces().into_iter().filter(|p| p.height() == b.size) {
            events.push((piece.start, true, i));
            events.push((piece.end, false, i));
        }
    }
    events.sort_unstable();
    // The live set, with each buffer's place in it for removal in O(1).
    let mut alive: Vec<usize> = Vec::new();
    let mut place = vec![usize::MAX; buffers.len()];
    let mut grew = false;
    let mut most: u128 = 0;
    for &(_, is_start, i) in &events {
        let most_of_i = buffers[i].size as u128 + (buffers[i].alignment - 1) as u128;
        if is_start {
            place[i] = alive.len();
            alive.push(i);
            most += most_of_i;
            grew = true;
        } else {
            if grew {
                visit(&alive, most);
                grew = false;
            }
            most -= most_of_i;
            let at = place[i];
            alive.swap_remove(at);
            if let Some(&moved) = alive.get(at) {
                place[moved] = at;
            }
        }
    }
}

/// The stacking bound of `buffers` (see the module's doc), or `known` when it is no higher. Only a
/// buffer's pieces with its whole size count (not its gaps or windows), which only weakens it.
pub fn stacking_bound(buffers: &[Buffer], known: u64) -> u64 {
    if !buffers.iter().any(|b| b.alignment > 1 && b.size > 0) {
        return known;
    }
    // (greedy top, live set) of the maximal live sets that could raise the bound.
    let mut times: Vec<(u128, Vec<(u64, u64)>)> = Vec::new();
    for_each_maximal_live_set(buffers, |alive, most| {
        if most <= known as u128 || alive.len() > MAX_ALIVE || !alive.iter().any(|&i| buffers[i].alignment > 1) {
            return;
        }
        let mut items: Vec<(u64, u64)> = alive.iter().map(|&i| (buffers[i].size, buffers[i].alignment)).collect();
        if items.len() > MAX_STACKED {
            // The largest alignments (their padding is what the bound is about), then sizes.
            items.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(b.0.cmp(&a.0)));
            items.truncate(MAX_STACKED);
        }
        let greedy = some_stack(&mut items);
        if greedy > known as u128 {
            times.push((greedy, items));
            if times.len() >= 2 * MAX_TIMES {
                times.sort_by_key(|time| std::cmp::Reverse(time.0));
                times.truncate(MAX_TIMES);
            }
        }
    });
    times.sort_by_key(|time| std::cmp::Reverse(time.0));
    let mut best = known as u128;
    let mut work = 0u64;
    for (greedy, items) in &times {
        if *greedy <= best {
            break; // sorted: no later time can raise it either
        }
        let cost = (1u64 << items.len()) * items.len() as u64;
        if work + cost > WORK {
            break;
        }
        work += cost;
        if let Some(least) = least_stack(items) {
            best = best.max(least);
        }
    }
    u64::try_from(best).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every order of the items, stacked greedily: the oracle the programme must agree with.
    fn every_order(items: &[(u64, u64)]) -> u128 {
        fn walk(items: &[(u64, u64)], used: &mut Vec<bool>, top: u128, best: &mut u128) {
            if used.iter().all(|&u| u) {
                *best = (*best).min(top);
                return;
            }
            for i in 0..items.len() {
                if !used[i] {
                    used[i] = true;
                    let (size, alignment) = items[i];
                    walk(items, used, align_up_wide(top, alignment) + size as u128, best);
                    used[i] = false;
                }
            }
        }
        let mut best = u128::MAX;
        walk(items, &mut vec![false; items.len()], 0, &mut best);
        best
    }

    #[test]
    fn the_programme_agrees_with_every_order() {
        let mut seed = 7u64;
        let mut next = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            seed >> 33
        };
        for _ in 0..300 {
            let k = 1 + (next() % 6) as usize;
            let items: Vec<(u64, u64)> =
                (0..k).map(|_| (1 + next() % 40, [1, 2, 4, 8, 16, 32][(next() % 6) as usize])).collect();
            assert_eq!(least_stack(&items), Some(every_order(&items)), "{items:?}");
        }
    }

    /// Two 4,096-aligned buffers of 100 bytes and a 1-aligned one of 5,000 (L = 5,200): the best
    /// stack is one aligned buffer at 0, the 5,000 above it and the other at 8,192 (top 8,292);
    /// both aligned ones first would end at 4,196 + 5,000 = 9,196.
    #[test]
    fn padding_that_no_buffer_fills_counts() {
        let items = [(100, 4096), (100, 4096), (5000, 1)];
        assert_eq!(least_stack(&items), Some(8292));
        let buffers: Vec<Buffer> = items
            .iter()
            .enumerate()
            .map(|(i, &(size, alignment))| Buffer::new(i.to_string(), 0, 2, size).with_alignment(alignment))
            .collect();
        assert_eq!(stacking_bound(&buffers, 5200), 8292);
        // A bound already higher is kept.
        assert_eq!(stacking_bound(&buffers, 9000), 9000);
        // Apart in time, nothing is forced.
        let apart: Vec<Buffer> = buffers
            .iter()
            .enumerate()
            .map(|(t, b)| Buffer::new(b.id.clone(), t as u64, t as u64 + 1, b.size).with_alignment(b.alignment))
            .collect();
        assert_eq!(stacking_bound(&apart, 5000), 5000);
    }

    #[test]
    fn too_many_items_are_refused() {
        assert_eq!(least_stack(&vec![(1, 2); MAX_STACKED + 1]), None);
        assert_eq!(least_stack(&[]), Some(0));
    }
}
