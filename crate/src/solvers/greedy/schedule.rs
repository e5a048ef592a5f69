//! A visiting order that keeps the live index's working set small, with the same plan.
//!
//! A greedy pass places each buffer by looking only at the buffers already placed that overlap
//! it in time. So any visiting order that places every buffer after exactly the time-overlapping
//! buffers that come before it in the pass's order gives the same offsets. Visiting in the pass's
//! own order (size, say) jumps all over the time axis: on 2·10^6 buffers every step touches a
//! cold part of the index, and the cache misses were most of a pass's time.
//!
//! The time axis is cut into windows of `width` leaves (elementary time intervals). A buffer is
//! *inside* window `c` when its lifetime stays in it, *across* boundary `c` when it touches
//! windows `c` and `c + 1` only, else *long*. Buffers of a group can only overlap buffers of the
//! groups next to it: inside `c` meets inside `c` and across `c − 1`, `c`; across `c` meets inside
//! `c`, `c + 1` and across `c − 1`, `c`, `c + 1`; long ones may meet anything. A group's next
//! buffer may go as soon as it comes before the next buffer of each neighbouring group (then every
//! overlapping buffer before it in the pass's order is placed). Groups are advanced as far as
//! they may, one at a time, so the pass stays in one window for many buffers in a row.

/// The chunking of the time axis: how wide windows are, and which group each buffer is in.
struct Groups {
    /// Per group, its buffers' ranks (positions in the pass's order), ascending: group `g` holds
    /// `members[bounds[g]..bounds[g + 1]]`.
    members: Vec<u32>,
    bounds: Vec<u32>,
    /// Windows: group `2c` is inside window `c`, `2c + 1` across boundary `c`, the last is long.
    windows: usize,
}

impl Groups {
    fn long(&self) -> usize {
        2 * self.windows
    }
}

/// The fewest leaves a window spans: narrower windows cut more lifetimes and gain nothing (their
/// part of the index is small already).
const MIN_WIDTH: u32 = 2048;

/// At most this fraction (1 / LONG_SHARE) of the buffers may be long: each long one that goes
/// may let every group move, and a long one waiting holds all groups back.
const LONG_SHARE: usize = 256;

/// A buffer's index in a visiting order: usize as orders are given, u32 in the time-local order
/// and in an order a pass holds throughout (half the bytes).
pub(crate) trait BufferIndex: Copy {
    fn index(self) -> usize;
}

impl BufferIndex for usize {
    #[inline]
    fn index(self) -> usize {
        self
    }
}

impl BufferIndex for u32 {
    #[inline]
    fn index(self) -> usize {
        self as usize
    }
}

/// The buffers of `order` (indices into `spans`, each a lifetime's leaf range `[first, last)`
/// among `leaves` leaves) in an order that places each after the same time-overlapping buffers
/// as `order` does. `None` when windows would not pay (too few leaves for two windows).
pub(crate) fn local_order(order: &[usize], spans: impl Fn(usize) -> (u32, u32), leaves: u32) -> Option<Vec<usize>> {
    local_indices(order, spans, leaves).map(|(local, _)| local.into_iter().map(|i| i as usize).collect())
}

/// [`local_order`] with the indices as u32 (buffers are fewer than 2^31, as the occupancy index
/// numbers them): half the bytes of usize, for a pass that holds the order throughout; and the
/// windows' width.
pub(crate) fn local_indices<S: BufferIndex>(
    order: &[S],
    spans: impl Fn(usize) -> (u32, u32),
    leaves: u32,
) -> Option<(Vec<u32>, u32)> {
    let width = window_width(order, &spans)?;
    in_windows(order, spans, leaves, width).map(|local| (local, width))
}

/// When a pass in `local` reaches and leaves the windows of time, as `(position, window)` lists
/// in order of position, for every window holding an endpoint of some lifetime.
pub(crate) struct WindowVisits {
    /// Per window of `width` leaves, the last place in `local` of a buffer with an endpoint in it
    /// (its first or its last leaf). Past it no buffer to come starts or ends in the window, so
    /// the index may forget what only such buffers read
    /// ([`crate::occupancy::Occupancy::forget`]).
    pub finished: Vec<(u32, u32)>,
    /// Per window of `ready_width` leaves, the first place in `local` of a buffer with an
    /// endpoint in it. Before it, no buffer placed starts or ends in the window, so the index
    /// need not hold the window's sets yet ([`crate::occupancy::Occupancy::ready`]).
    pub started: Vec<(u32, u32)>,
}

/// The [`WindowVisits`] of a pass in `local` (indices into `spans`, each a lifetime's leaf range
/// `[first, last)`), in one pass over the spans: read in `local`'s order they are scattered
/// across memory on large instances, a cache miss each, and two passes (one per list) were a
/// few percent of a 2·10^6-buffer solve.
pub(crate) fn window_visits(
    local: &[u32],
    spans: impl Fn(usize) -> (u32, u32),
    width: u32,
    ready_width: u32,
) -> WindowVisits {
    // Per window, the position kept so far (`u32::MAX`: none yet).
    let (mut last, mut first): (Vec<u32>, Vec<u32>) = (Vec::new(), Vec::new());
    let seen = |positions: &mut Vec<u32>, window: u32| -> usize {
        let window = window as usize;
        if positions.len() <= window {
            positions.resize(window + 1, u32::MAX);
        }
        window
    };
    for (position, &i) in local.iter().enumerate() {
        let (start, end) = spans(i as usize);
        if start < end {
            let position = position as u32;
            for leaf in [start, end - 1] {
                let window = seen(&mut last, leaf / width);
                last[window] = position;
                let window = seen(&mut first, leaf / ready_width);
                first[window] = first[window].min(position);
            }
        }
    }
    WindowVisits { finished: listed(&last), started: listed(&first) }
}

/// `(position, window)` for every window with a position, in order of position.
fn listed(positions: &[u32]) -> Vec<(u32, u32)> {
    let mut windows: Vec<(u32, u32)> = (0..positions.len() as u32)
        .filter(|&w| positions[w as usize] != u32::MAX)
        .map(|w| (positions[w as usize], w))
        .collect();
    windows.sort_unstable();
    windows
}

/// [`local_order`] with windows `width` leaves wide.
fn in_windows<S: BufferIndex>(
    order: &[S],
    spans: impl Fn(usize) -> (u32, u32),
    leaves: u32,
    width: u32,
) -> Option<Vec<u32>> {
    if leaves / width < 2 {
        return None;
    }
    let groups = group(order, &spans, leaves, width);
    // Ranks turned into buffer indices in place: no second array as long as the order.
    let mut local = schedule(&groups);
    for rank in &mut local {
        *rank = order[*rank as usize].index() as u32;
    }
    Some(local)
}

/// The narrowest power-of-two width (at least [`MIN_WIDTH`]) that leaves few buffers long.
fn window_width<S: BufferIndex>(order: &[S], spans: &impl Fn(usize) -> (u32, u32)) -> Option<u32> {
    let mut lengths: Vec<u32> = order.iter().map(|&i| spans(i.index())).map(|(first, last)| last - first).collect();
    let allowed = order.len() / LONG_SHARE;
    if lengths.is_empty() {
        return None;
    }
    // The (allowed + 1)-th longest lifetime must not be long: a window at least as wide keeps it
    // within two windows.
    let k = lengths.len() - 1 - allowed.min(lengths.len() - 1);
    let (_, &mut length, _) = lengths.select_nth_unstable(k);
    length.max(MIN_WIDTH).checked_next_power_of_two()
}

fn group<S: BufferIndex>(order: &[S], spans: &impl Fn(usize) -> (u32, u32), leaves: u32, width: u32) -> Groups {
    let windows = leaves.div_ceil(width) as usize;
    let count = 2 * windows + 1;
    let which = |i: usize| {
        let (first, last) = spans(i);
        let (a, b) = ((first / width) as usize, ((last - 1) / width) as usize);
        if a == b {
            2 * a
        } else if a + 1 == b {
            2 * a + 1
        } else {
            2 * windows
        }
    };
    // Each rank's group, found once: the spans are read in the order's sequence, scattered
    // across memory on large instances (a cache miss each), and the count and the fill below
    // both need it.
    let mut members: Vec<u32> = order.iter().map(|&i| which(i.index()) as u32).collect();
    let mut bounds = vec![0u32; count + 1];
    for &g in &members {
        bounds[g as usize + 1] += 1;
    }
    for g in 0..count {
        bounds[g + 1] += bounds[g];
    }
    let mut fill: Vec<u32> = bounds[..count].to_vec();
    let of_rank = std::mem::replace(&mut members, vec![0u32; order.len()]);
    for (rank, &g) in of_rank.iter().enumerate() {
        members[fill[g as usize] as usize] = rank as u32;
        fill[g as usize] += 1;
    }
    Groups { members, bounds, windows }
}

/// The ranks in a visiting order that respects every group's neighbours (see the module note).
fn schedule(groups: &Groups) -> Vec<u32> {
    let count = groups.long() + 1;
    let long = groups.long();
    let mut next: Vec<u32> = groups.bounds[..count].to_vec();
    let head = |next: &[u32], g: usize| {
        if next[g] < groups.bounds[g + 1] { groups.members[next[g] as usize] } else { u32::MAX }
    };
    // The smallest head among the windowed groups (all but the long one), for the long group's
    // limit: a tournament tree over them.
    let leaves = long.next_power_of_two().max(1);
    let mut tree = vec![u32::MAX; 2 * leaves];
    for g in 0..long {
        tree[leaves + g] = head(&next, g);
    }
    for node in (1..leaves).rev() {
        tree[node] = tree[2 * node].min(tree[2 * node + 1]);
    }
    let neighbours = |g: usize| {
        let reach = if g % 2 == 1 { 2 } else { 1 };
        (g.saturating_sub(reach)..=(g + reach).min(long - 1)).filter(move |&h| h != g)
    };
    let mut out = Vec::with_capacity(groups.members.len());
    let mut listed = vec![true; count];
    // A stack, so that a group's neighbours are visited right after it moves.
    let mut work: Vec<usize> = (0..count).rev().collect();
    while let Some(g) = work.pop() {
        listed[g] = false;
        let limit =
            if g == long { tree[1] } else { neighbours(g).map(|h| head(&next, h)).fold(head(&next, long), u32::min) };
        let before = next[g];
        while head(&next, g) < limit {
            out.push(head(&next, g));
            next[g] += 1;
        }
        if next[g] == before {
            continue;
        }
        if g == long {
            for h in (0..long).rev() {
                if !listed[h] {
                    listed[h] = true;
                    work.push(h);
                }
            }
            continue;
        }
        let mut node = leaves + g;
        tree[node] = head(&next, g);
        while node > 1 {
            node /= 2;
            tree[node] = tree[2 * node].min(tree[2 * node + 1]);
        }
        if !listed[long] && head(&next, long) != u32::MAX {
            listed[long] = true;
            work.push(long);
        }
        for h in neighbours(g) {
            if !listed[h] {
                listed[h] = true;
                work.push(h);
            }
        }
    }
    debug_assert_eq!(out.len(), groups.members.len(), "every buffer scheduled");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Every buffer once, and each after every buffer that overlaps it in time and comes before it
    /// in the given order (and so before each that overlaps it and comes after it).
    fn check(spans: &[(u32, u32)], order: &[usize], leaves: u32, width: u32) {
        let local: Vec<usize> = in_windows(order, |i| spans[i], leaves, width)
            .expect("several windows")
            .into_iter()
            .map(|i| i as usize)
            .collect();
        let mut sorted = local.clone();
        sorted.sort_unstable();
        let mut expected = order.to_vec();
        expected.sort_unstable();
        assert_eq!(sorted, expected, "a permutation of the order");
        let mut rank = vec![usize::MAX; spans.len()];
        for (r, &i) in order.iter().enumerate() {
            rank[i] = r;
        }
        let mut position = vec![usize::MAX; spans.len()];
        for (p, &i) in local.iter().enumerate() {
            position[i] = p;
        }
        for &a in order {
            for &b in order {
                let overlap = spans[a].0 < spans[b].1 && spans[b].0 < spans[a].1;
                if a != b && overlap && rank[a] < rank[b] {
                    assert!(position[a] < position[b], "{a} {:?} before {b} {:?}", spans[a], spans[b]);
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Short and long lifetimes on a timeline many windows wide, in a random order.
        #[test]
        fn the_local_order_keeps_every_overlap_in_order(
            lifetimes in prop::collection::vec((0u32..20_000, 1u32..3_000, 0u32..40), 1..400),
            seed in any::<u64>(),
            width in 500u32..4_000,
        ) {
            let leaves = 24_000u32;
            // A few lifetimes are very long (length class 0), the rest up to 3,000 leaves.
            let spans: Vec<(u32, u32)> = lifetimes
                .iter()
                .map(|&(start, length, class)| {
                    let length = if class == 0 { length * 7 } else { length };
                    (start, (start + length).min(leaves))
                })
                .collect();
            let mut order: Vec<usize> = (0..spans.len()).collect();
            let mut random = crate::test_support::Lcg::new(seed);
            for i in (1..order.len()).rev() {
                order.swap(i, random.below(i as u64 + 1) as usize);
            }
            // Some buffers (pinned ones, say) may be left out of the order.
            order.truncate(order.len() - order.len() / 8);
            check(&spans, &order, leaves, width);
        }
    }

    /// Past the position given for a window, no buffer starts or ends in it; at the position, one
    /// does.
    #[test]
    fn a_window_is_finished_after_its_last_endpoint() {
        let spans = [(0u32, 3u32), (5, 9), (2, 13), (12, 14), (1, 2), (9, 10)];
        let local = [4u32, 0, 2, 5, 1, 3];
        let finished = window_visits(&local, |i| spans[i], 4, 4).finished;
        // Window 0 (leaves 0–3) last sees buffer 2 start, windows 1 and 2 buffer 1 (leaves 5 to
        // 8), window 3 buffer 3.
        assert_eq!(finished, vec![(2, 0), (4, 1), (4, 2), (5, 3)]);
        for &(position, window) in &finished {
            let touches = |i: usize| [spans[i].0 / 4, (spans[i].1 - 1) / 4].contains(&window);
            assert!(touches(local[position as usize] as usize));
            assert!(local[position as usize + 1..].iter().all(|&i| !touches(i as usize)));
        }
    }

    /// Before the position given for a window, no buffer starts or ends in it; at the position,
    /// one does.
    #[test]
    fn a_window_is_started_at_its_first_endpoint() {
        let spans = [(0u32, 3u32), (5, 9), (2, 13), (12, 14), (1, 2), (9, 10)];
        let local = [4u32, 0, 2, 5, 1, 3];
        let started = window_visits(&local, |i| spans[i], 4, 4).started;
        // Window 0 (leaves 0–3) first sees buffer 4, window 3 buffer 2's end, window 2 buffer 5,
        // window 1 buffer 1.
        assert_eq!(started, vec![(0, 0), (2, 3), (3, 2), (4, 1)]);
        // Readied windows wider than the forgotten ones: the lists are each of their own width.
        let visits = window_visits(&local, |i| spans[i], 4, 8);
        assert_eq!(visits.started, vec![(0, 0), (2, 1)]);
        assert_eq!(visits.finished, window_visits(&local, |i| spans[i], 4, 4).finished);
        for (width, started) in [(4, started), (8, visits.started)] {
            for &(position, window) in &started {
                let touches = |i: usize| [spans[i].0 / width, (spans[i].1 - 1) / width].contains(&window);
                assert!(touches(local[position as usize] as usize));
                assert!(local[..position as usize].iter().all(|&i| !touches(i as usize)));
            }
        }
    }

    #[test]
    fn a_timeline_narrower_than_two_windows_keeps_the_order() {
        assert_eq!(local_order(&[0, 1], |i| [(0, 5), (3, 9)][i], 100), None);
    }
}
