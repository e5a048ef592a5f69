//! The squeeze (§4, §5.5, §5.7): first fit in increasing loose offset, which closes the gaps that
//! rounding and half-empty boxes left, honours alignment, and gives up as soon as a buffer would
//! reach the best makespan so far.
//!
//! First fit asks the occupancy index ([`crate::occupancy`], which the greedy engine uses too) for
//! the lowest free offset among the placed buffers alive during a lifetime, so no pairwise
//! conflict list is ever built (the reference implementation's interference graph holds every
//! overlapping pair twice, §5.7).

use crate::model::Problem;
use crate::occupancy::{Address, Occupancy, RoutedSets, Routes, prefetch};
use crate::options::{Deadline, Halt};
use crate::solvers::greedy::schedule::local_order;

/// How many buffers first fit gathers the data of at a time.
const GATHER: usize = 256;

/// How many buffers ahead of its placement first fit asks for a buffer's sets.
const AHEAD: usize = 4;

/// What one squeeze ended with.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Squeezed {
    /// Every buffer placed below the bound: offsets and the order they were placed in.
    Placed { offsets: Vec<u64>, order: Vec<usize>, makespan: u64 },
    /// Some buffer would have reached the bound (§5.5's early stop).
    Exceeded,
}

/// Where the arena begins and which buffers are fixed, shared by every squeeze of a solve.
pub(super) struct Arena<'a> {
    pub problem: &'a Problem,
    /// Nothing movable goes below this address (§5.1's start address); alignment applies to the
    /// addresses themselves.
    pub start_address: u64,
    /// Buffers with a pinned offset: placed first, where they are.
    pub pinned: Vec<usize>,
    /// The highest top of a pinned buffer (0: none).
    pinned_top: u64,
    /// What first fit needs of each buffer, by index, in a flat array: the order visits buffers at
    /// random, and a whole `Buffer` spans two cache lines.
    fits: Vec<Fit>,
    /// Each buffer's sets in the occupancy index, found once for every squeeze.
    routes: Routes,
    /// Each buffer's leaf range in the index, and the number of leaves: the windows of
    /// [`local_order`] along the time axis.
    spans: Vec<(u32, u32)>,
    leaves: u32,
}

/// A buffer as first fit sees it.
#[derive(Clone, Copy, Debug)]
struct Fit {
    size: u64,
    alignment: u64,
    pinned: bool,
}

/// How a first fit ended.
#[derive(Debug, PartialEq, Eq)]
enum Fitted {
    /// Every buffer placed: the offsets and the makespan.
    Placed(Vec<u64>, u64),
    /// A top reached the bound.
    Exceeded,
    /// A top passed what the sets record (u32 addresses): to run again with u64 ones.
    Wide,
}

impl<'a> Arena<'a> {
    pub(super) fn new(problem: &'a Problem, start_address: u64) -> Self {
        let buffers = problem.buffers();
        let pinned: Vec<usize> = (0..problem.len()).filter(|&i| buffers[i].pinned.is_some()).collect();
        // No overflow: checked in Problem::new.
        let pinned_top = pinned.iter().map(|&i| buffers[i].pinned.unwrap_or(0) + buffers[i].size).max().unwrap_or(0);
        let fits = buffers
            .iter()
            .map(|b| Fit { size: b.size, alignment: b.alignment(), pinned: b.pinned.is_some() })
            .collect();
        // Only the buffers' own lifetimes: the space below the start address is a floor of first
        // fit, not a placement over the whole span (which would keep the sets of the top nodes up
        // to date at every insertion). The index itself goes once its routes are listed.
        let occupancy = Occupancy::new(buffers.iter().map(|b| (b.start, b.end)));
        let routes = occupancy.routes();
        let spans = (0..buffers.len()).map(|i| occupancy.leaf_range(i)).collect();
        let leaves = occupancy.leaf_count();
        drop(occupancy);
        Arena { problem, start_address, pinned, pinned_top, fits, routes, spans, leaves }
    }

    /// Buffer `i`'s start and end as ranks among the distinct lifetime endpoints of the problem
    /// (pinned buffers included): the index's leaf range.
    pub(super) fn times(&self, i: usize) -> (u32, u32) {
        self.spans[i]
    }

    /// The rank of the last endpoint (that of the first is 0).
    pub(super) fn last_time(&self) -> u32 {
        self.leaves
    }

    /// Records the pinned buffers in `sets` (empty); two pinned buffers that collide make the
    /// problem infeasible.
    fn pin<A: Address>(&self, sets: &mut RoutedSets<A>) -> Result<(), Halt> {
        let buffers = self.problem.buffers();
        for (k, &i) in self.pinned.iter().enumerate() {
            let buffer = &buffers[i];
            let offset = buffer.pinned.unwrap_or(0); // listed because pinned
            let top = offset + buffer.size; // no overflow: checked in Problem::new
            let (reads, writes) = self.routes.route(i);
            if sets.is_taken(reads, offset, top) {
                let other = self.pinned[..k].iter().map(|&j| &buffers[j]).find(|b| {
                    let low = b.pinned.unwrap_or(0);
                    b.overlaps_in_time(buffer) && low < top && offset < low + b.size
                });
                let other = other.map_or_else(String::new, |b| format!(" and {}", b.id));
                return Err(Halt::Infeasible(format!("pinned buffers {}{other} overlap", buffer.id)));
            }
            sets.insert(writes.iter().copied(), offset, top);
        }
        Ok(())
    }

    /// First fit of the movable buffers in `order` (the pinned ones are skipped), stopping as soon
    /// as a buffer's top would reach `bound`. Fails on a deadline, on colliding pinned buffers, or
    /// when an offset would pass u64.
    pub(super) fn squeeze(&self, order: &[usize], bound: Option<u64>, deadline: &Deadline) -> Result<Squeezed, Halt> {
        self.squeeze_within(order, || bound, deadline)
    }

    /// [`Arena::squeeze`] against a bound that may fall while it runs (another iteration finished
    /// with a better plan): `bound` is asked again before each buffer is placed.
    ///
    /// The buffers are visited window by window along the time axis (the greedy engine's
    /// [`local_order`]): each is still placed after exactly the buffers that overlap it in time and
    /// come before it in `order`, so the offsets are those of first fit in `order`, while the
    /// index's working set stays small (the loose order jumps all over the time axis). A top that
    /// reaches the bound is a top of that plan, so giving up is as sound as in `order`.
    ///
    /// Addresses are recorded as u32 unless the pins or the bound allow a top past 4 GiB; a top
    /// that passes it all the same (no bound) has the squeeze run again with u64 addresses.
    pub(super) fn squeeze_within(
        &self,
        order: &[usize],
        bound: impl Fn() -> Option<u64>,
        deadline: &Deadline,
    ) -> Result<Squeezed, Halt> {
        let local = local_order(order, |i| self.spans[i], self.leaves);
        let sequence = local.as_deref().unwrap_or(order);
        let limit = RoutedSets::<u32>::LIMIT;
        let narrow = self.pinned_top <= limit && bound().is_none_or(|bound| bound <= limit + 1);
        let mut fitted = if narrow {
            self.first_fit(&mut self.routes.sets::<u32>(), sequence, &bound, deadline)
        } else {
            Ok(Fitted::Wide)
        };
        if matches!(fitted, Ok(Fitted::Wide)) {
            fitted = self.first_fit(&mut self.routes.sets::<u64>(), sequence, &bound, deadline);
        }
        if local.is_some() && matches!(fitted, Err(Halt::Overflow { .. })) {
            // Which buffer overflows first is `order`'s to say: the squeeze is run again in it.
            fitted = self.first_fit(&mut self.routes.sets::<u64>(), order, &bound, deadline);
        }
        Ok(match fitted? {
            Fitted::Placed(offsets, makespan) => {
                let mut placed = self.pinned.clone();
                placed.extend(order.iter().copied().filter(|&i| !self.fits[i].pinned));
                Squeezed::Placed { offsets, order: placed, makespan }
            }
            Fitted::Exceeded => Squeezed::Exceeded,
            Fitted::Wide => unreachable!("u64 placements record every address"),
        })
    }

    /// First fit of the pinned buffers, then of the movable buffers in `sequence`, into `sets`
    /// (empty): the offsets and the makespan, or how it stopped early (a top reached `bound`, or
    /// passed what `sets` record).
    fn first_fit<A: Address>(
        &self,
        sets: &mut RoutedSets<A>,
        sequence: &[usize],
        bound: impl Fn() -> Option<u64>,
        deadline: &Deadline,
    ) -> Result<Fitted, Halt> {
        if self.pinned_top > RoutedSets::<A>::LIMIT {
            return Ok(Fitted::Wide);
        }
        self.pin(sets)?;
        let buffers = self.problem.buffers();
        let mut offsets = vec![0u64; buffers.len()];
        let mut makespan = 0u64;
        for &i in &self.pinned {
            offsets[i] = buffers[i].pinned.unwrap_or(0);
            makespan = makespan.max(offsets[i] + buffers[i].size);
        }
        if bound().is_some_and(|bound| makespan >= bound) {
            return Ok(Fitted::Exceeded);
        }
        // Per set, how many buffers still to place will read it: a placement skips the sets that
        // none of them reads (each buffer is queried once, just before it is placed).
        let mut readers = self.routes.readers().to_vec();
        for &i in &self.pinned {
            for &set in self.routes.route(i).0 {
                readers[set as usize] -= 1;
            }
        }
        // The buffers' data is gathered a chunk at a time: the visit jumps across buffer indices,
        // and independent loads in a row overlap their cache misses where the placements'
        // would wait for each one.
        let mut chunk: Vec<(usize, Fit, &[u32], &[u32])> = Vec::with_capacity(GATHER);
        for indices in sequence.chunks(GATHER) {
            if let Some(stop) = deadline.expired() {
                return Err(stop);
            }
            chunk.clear();
            // (The routes' ids and the offsets' places are asked for here, to be read and
            // written a chunk later.)
            chunk.extend(indices.iter().filter(|&&i| !self.fits[i].pinned).map(|&i| {
                let (reads, writes) = self.routes.route(i);
                reads.first().into_iter().chain(writes.first()).for_each(prefetch);
                prefetch(&offsets[i]);
                (i, self.fits[i], reads, writes)
            }));
            for (k, &(i, fit, reads, writes)) in chunk.iter().enumerate() {
                // The sets of the buffers a few places on (and their reader counts) are asked for
                // now, their pool blocks a little later (the sets must have arrived to say where
                // those are), so that their misses overlap this buffer's search instead of
                // waiting each in turn.
                if let Some(&(_, _, reads, writes)) = chunk.get(k + AHEAD) {
                    sets.prefetch(reads);
                    sets.prefetch(writes);
                    for &set in reads.iter().chain(writes) {
                        if let Some(count) = readers.get(set as usize) {
                            prefetch(count);
                        }
                    }
                }
                if let Some(&(_, _, reads, _)) = chunk.get(k + AHEAD / 2) {
                    sets.prefetch_spilled(reads);
                }
                let overflow =
                    || Halt::Overflow { buffer: buffers[i].id.to_string(), offset: u64::MAX, size: fit.size };
                let offset =
                    sets.lowest_fit_from(reads, fit.size, fit.alignment, self.start_address).ok_or_else(overflow)?;
                let top = offset.checked_add(fit.size).ok_or_else(overflow)?;
                if bound().is_some_and(|bound| top >= bound) {
                    return Ok(Fitted::Exceeded);
                }
                if top > RoutedSets::<A>::LIMIT {
                    return Ok(Fitted::Wide);
                }
                for &set in reads {
                    readers[set as usize] -= 1;
                }
                sets.insert(writes.iter().copied().filter(|&set| readers[set as usize] > 0), offset, top);
                offsets[i] = offset;
                makespan = makespan.max(top);
            }
        }
        Ok(Fitted::Placed(offsets, makespan))
    }
}

/// The squeeze order: by loose offset, ties by larger size first, then by index.
pub(super) fn loose_order(loose: &[u64], problem: &Problem) -> Vec<usize> {
    let buffers = problem.buffers();
    // The keys side by side, so that the sort compares them without looking anything up; the index
    // makes every key distinct, so an unstable sort gives the one order.
    let mut keyed: Vec<(u64, std::cmp::Reverse<u64>, usize)> = (0..buffers.len())
        .filter(|&i| buffers[i].pinned.is_none())
        .map(|i| (loose[i], std::cmp::Reverse(buffers[i].size), i))
        .collect();
    keyed.sort_unstable();
    keyed.into_iter().map(|(_, _, i)| i).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Buffer;

    fn problem() -> Problem {
        Problem::new(
            vec![
                Buffer::new("a", 0, 4, 8),
                Buffer::new("b", 2, 6, 4).with_alignment(16),
                Buffer::new("c", 5, 9, 8),
                Buffer::new("p", 0, 9, 4).pinned_at(32),
            ],
            None,
        )
        .unwrap()
    }

    #[test]
    fn first_fit_in_loose_order_honours_alignment_pins_and_start_address() {
        let problem = problem();
        let arena = Arena::new(&problem, 0);
        let order = loose_order(&[0, 8, 0, 0], &problem);
        assert_eq!(order, vec![0, 2, 1]);
        let Squeezed::Placed { offsets, makespan, .. } = arena.squeeze(&order, None, &Deadline::none()).unwrap() else {
            panic!("unbounded squeeze exceeded")
        };
        assert_eq!(offsets, vec![0, 16, 0, 32]);
        assert_eq!(makespan, 36);
        let shifted = Arena::new(&problem, 3);
        let Squeezed::Placed { offsets, .. } = shifted.squeeze(&order, None, &Deadline::none()).unwrap() else {
            panic!("unbounded squeeze exceeded")
        };
        assert_eq!(offsets, vec![3, 16, 3, 32]);
    }

    /// First fit by a direct scan of the placed buffers, in the given order.
    fn naive_first_fit(problem: &Problem, order: &[usize], start_address: u64) -> Vec<u64> {
        let buffers = problem.buffers();
        let mut offsets: Vec<Option<u64>> = buffers.iter().map(|b| b.pinned).collect();
        for &i in order {
            let b = &buffers[i];
            let mut offset = start_address.next_multiple_of(b.alignment());
            while let Some(end) = (0..buffers.len())
                .filter(|&j| j != i && buffers[j].overlaps_in_time(b))
                .filter_map(|j| offsets[j].map(|o| (o, o + buffers[j].size)))
                .find(|&(low, high)| low < offset + b.size && offset < high)
                .map(|(_, high)| high)
            {
                offset = end.next_multiple_of(b.alignment());
            }
            offsets[i] = Some(offset);
        }
        offsets.into_iter().map(|o| o.unwrap()).collect()
    }

    /// The squeeze's routed index (with the sets nobody reads any more left unwritten) places
    /// exactly as a direct scan does, pinned buffers and alignment included.
    #[test]
    fn squeezes_match_a_direct_scan() {
        let mut random = crate::test_support::Lcg::new(11);
        let mut next = |modulus: u64| random.below(modulus);
        for round in 0..20 {
            let mut buffers = Vec::new();
            for k in 0..40 {
                let start = next(30);
                let buffer = Buffer::new(format!("b{k}"), start, start + 1 + next(12), 1 + next(20));
                buffers.push(if next(4) == 0 { buffer.with_alignment(8) } else { buffer });
            }
            buffers.push(Buffer::new("p", 5, 25, 6).pinned_at(40));
            let problem = Problem::new(buffers, None).unwrap();
            let start_address = round % 3;
            let arena = Arena::new(&problem, start_address);
            let loose: Vec<u64> = (0..problem.len()).map(|_| next(100)).collect();
            let order = loose_order(&loose, &problem);
            // Twice: squeezes of one arena leave nothing behind for the next.
            for _ in 0..2 {
                let Squeezed::Placed { offsets, makespan, .. } =
                    arena.squeeze(&order, None, &Deadline::none()).unwrap()
                else {
                    panic!("unbounded squeeze exceeded")
                };
                assert_eq!(offsets, naive_first_fit(&problem, &order, start_address), "round {round}");
                let tops = problem.buffers().iter().zip(&offsets).map(|(b, o)| o + b.size);
                assert_eq!(makespan, tops.max().unwrap());
            }
        }
    }

    /// On a timeline many windows long, the windowed squeeze places as first fit in the loose
    /// order itself does, and gives up exactly when that plan's makespan reaches the bound.
    #[test]
    fn windowed_squeezes_place_as_the_loose_order() {
        let mut random = crate::test_support::Lcg::new(5);
        let mut next = |modulus: u64| random.below(modulus);
        for round in 0..3u64 {
            let mut buffers = Vec::new();
            for k in 0..6000 {
                let start = next(20_000);
                // Mostly short lifetimes, a few spanning many windows.
                let length = if next(200) == 0 { 1 + next(15_000) } else { 1 + next(40) };
                let buffer = Buffer::new(format!("b{k}"), start, start + length, 1 + next(64));
                buffers.push(if next(5) == 0 { buffer.with_alignment(16) } else { buffer });
            }
            buffers.push(Buffer::new("p", 3000, 9000, 32).pinned_at(100));
            let problem = Problem::new(buffers, None).unwrap();
            let arena = Arena::new(&problem, round);
            let loose: Vec<u64> = (0..problem.len()).map(|_| next(4000)).collect();
            let order = loose_order(&loose, &problem);
            assert!(local_order(&order, |i| arena.spans[i], arena.leaves).is_some(), "several windows");
            let plain = arena.first_fit(&mut arena.routes.sets::<u64>(), &order, || None, &Deadline::none()).unwrap();
            let Fitted::Placed(plain_offsets, plain_makespan) = plain else { panic!("no bound") };
            let Squeezed::Placed { offsets, order: placed, makespan } =
                arena.squeeze(&order, None, &Deadline::none()).unwrap()
            else {
                panic!("unbounded squeeze exceeded")
            };
            assert_eq!(offsets, plain_offsets, "round {round}");
            assert_eq!(makespan, plain_makespan);
            assert_eq!(placed[0], problem.len() - 1, "the pinned buffer first");
            assert_eq!(&placed[1..], &order[..]);
            let squeeze = |bound| arena.squeeze(&order, Some(bound), &Deadline::none()).unwrap();
            assert_eq!(squeeze(makespan), Squeezed::Exceeded);
            assert!(matches!(squeeze(makespan + 1), Squeezed::Placed { .. }));
        }
    }

    /// Plans past 4 GiB: the u32 placements give way to u64 ones (the squeeze runs again), and a
    /// pin above 4 GiB starts with u64 ones; either way the offsets are a direct scan's, and a
    /// bound below 4 GiB still stops the squeeze.
    #[test]
    fn squeezes_past_4_gib_place_as_a_direct_scan() {
        let gib = 1u64 << 30;
        let buffers: Vec<Buffer> =
            (0..12u64).map(|k| Buffer::new(format!("b{k}"), k % 5, k % 5 + 3, gib + 4096 * k)).collect();
        let mut pinned = buffers.clone();
        pinned.push(Buffer::new("p", 0, 2, 8).pinned_at(5 * gib));
        for buffers in [buffers, pinned] {
            let problem = Problem::new(buffers, None).unwrap();
            let arena = Arena::new(&problem, 0);
            let order = loose_order(&vec![0; problem.len()], &problem);
            let Squeezed::Placed { offsets, makespan, .. } = arena.squeeze(&order, None, &Deadline::none()).unwrap()
            else {
                panic!("unbounded squeeze exceeded")
            };
            assert!(makespan > RoutedSets::<u32>::LIMIT, "makespan {makespan}");
            assert_eq!(offsets, naive_first_fit(&problem, &order, 0));
            assert_eq!(arena.squeeze(&order, Some(3 * gib), &Deadline::none()).unwrap(), Squeezed::Exceeded);
        }
    }

    /// First fit keeps its per-set state in a short array, a long one or a Vec by the number of
    /// sets a route reads: lifetimes across many blocks of the index read more than either
    /// array holds, and each kind of route places as a direct scan does.
    #[test]
    fn routes_of_every_length_place_as_a_direct_scan() {
        let mut random = crate::test_support::Lcg::new(17);
        let mut next = |modulus: u64| random.below(modulus);
        let mut buffers = Vec::new();
        for k in 0..1500 {
            let start = next(6000);
            buffers.push(Buffer::new(format!("s{k}"), start, start + 1 + next(3), 1 + next(32)));
        }
        for k in 0..12 {
            let start = next(1000);
            let end = start + 100 * (1 + next(50));
            buffers.push(Buffer::new(format!("l{k}"), start, end, 1 + next(32)));
        }
        let problem = Problem::new(buffers, None).unwrap();
        let arena = Arena::new(&problem, 0);
        let reads: Vec<usize> = (0..problem.len()).map(|i| arena.routes.route(i).0.len()).collect();
        assert!(reads.iter().any(|&n| (1..=16).contains(&n)), "short routes");
        assert!(reads.iter().any(|&n| (17..=64).contains(&n)), "routes longer than the short array");
        assert!(reads.iter().any(|&n| n > 64), "routes longer than the long array");
        let loose: Vec<u64> = (0..problem.len()).map(|_| next(500)).collect();
        let order = loose_order(&loose, &problem);
        let Squeezed::Placed { offsets, .. } = arena.squeeze(&order, None, &Deadline::none()).unwrap() else {
            panic!("unbounded squeeze exceeded")
        };
        assert_eq!(offsets, naive_first_fit(&problem, &order, 0));
    }

    #[test]
    fn a_squeeze_that_reaches_the_bound_stops() {
        let problem = problem();
        let arena = Arena::new(&problem, 0);
        let order = loose_order(&[0, 8, 0, 0], &problem);
        assert_eq!(arena.squeeze(&order, Some(36), &Deadline::none()).unwrap(), Squeezed::Exceeded);
        assert!(matches!(arena.squeeze(&order, Some(37), &Deadline::none()).unwrap(), Squeezed::Placed { .. }));
    }
}
