//! One round of the orderings on the threads there are, each ordering searching up to its node
//! limit for the round.
//!
//! Why in slices: a round is a few orderings of about equal work (three by default), and handing
//! each whole to a thread leaves one of two threads idle for half the round (three jobs on two
//! threads: 1.5× one thread's rate, not 2×). Cut into slices that any free thread takes (the
//! ordering furthest behind first, one thread at a time on an ordering), the threads stay busy
//! to the round's end. A search stopped at a node limit and resumed walks exactly the tree of
//! one uninterrupted run (`a_resumed_search_is_the_same_search`), and an ordering is told to give
//! up only once an ordering before it has decided, so the round's answer (the first ordering, by
//! position, that decided) and the nodes it counts are those of whole orderings run one by one.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;

use super::super::search::{Allowance, Ending, Search};
use crate::options::Deadline;

/// Slices per ordering and round when several threads share the orderings: enough that the
/// last slice of a round is a small part of it, few enough that the hand-over costs nothing.
const SLICES: u64 = 8;

/// Where one ordering stands in the round.
#[derive(Clone, Copy)]
struct Slot {
    /// The node count it started the round at, and the one it may reach.
    from: u64,
    to: u64,
    /// Slices run so far.
    done: u64,
    /// A thread is running it.
    busy: bool,
    /// It decided (solved or exhausted).
    ended: Option<Ending>,
}

/// Runs each search up to `to[k]` nodes (cumulative), in parallel, until an ordering decides (and
/// every ordering before it has run its round) or `deadline` passes. Returns each ordering's
/// ending: `Stopped` unless it decided.
pub(super) fn run(searches: &mut [Search<'_>], to: &[u64], deadline: &Deadline) -> Vec<Ending> {
    let decided = AtomicUsize::new(usize::MAX);
    let workers = rayon::current_num_threads().min(searches.len());
    if workers <= 1 {
        // One thread: each ordering whole, in turn (slices would walk the same trees).
        return searches
            .iter_mut()
            .zip(to)
            .enumerate()
            .map(|(k, (search, &node_limit))| {
                if decided.load(Ordering::Relaxed) < k {
                    return Ending::Stopped;
                }
                let abandon = || decided.load(Ordering::Relaxed) < k;
                let outcome = search.run(&Allowance { node_limit, deadline, abandon: &abandon });
                if outcome != Ending::Stopped {
                    decided.fetch_min(k, Ordering::Relaxed);
                }
                outcome
            })
            .collect();
    }
    let slots: Vec<Slot> = searches
        .iter()
        .zip(to)
        .map(|(search, &to)| Slot { from: search.counters.nodes, to, done: 0, busy: false, ended: None })
        .collect();
    let slots = Mutex::new(slots);
    let searches: Vec<Mutex<&mut Search<'_>>> = searches.iter_mut().map(Mutex::new).collect();
    (0..workers).into_par_iter().for_each(|_| {
        loop {
            // The next slice: the idle ordering with the fewest slices run (the first on ties)
            // that has not ended, is not past its round, and is not abandoned.
            let (k, node_limit) = {
                let mut slots = slots.lock().expect("no thread panics holding the slots");
                if deadline.expired().is_some() {
                    return;
                }
                let first_decided = decided.load(Ordering::Relaxed);
                let next = slots
                    .iter()
                    .enumerate()
                    .filter(|(k, slot)| !slot.busy && slot.ended.is_none() && slot.done < SLICES && *k <= first_decided)
                    .min_by_key(|(k, slot)| (slot.done, *k))
                    .map(|(k, _)| k);
                let Some(k) = next else { return };
                let slot = &mut slots[k];
                slot.busy = true;
                slot.done += 1;
                let span = slot.to.saturating_sub(slot.from);
                let node_limit = if slot.done == SLICES {
                    slot.to
                } else {
                    slot.from + (span as u128 * slot.done as u128 / SLICES as u128) as u64
                };
                (k, node_limit)
            };
            let abandon = || decided.load(Ordering::Relaxed) < k;
            let outcome = {
                let mut search = searches[k].lock().expect("no thread panics holding a search");
                search.run(&Allowance { node_limit, deadline, abandon: &abandon })
            };
            if outcome != Ending::Stopped {
                decided.fetch_min(k, Ordering::Relaxed);
            }
            let mut slots = slots.lock().expect("no thread panics holding the slots");
            slots[k].busy = false;
            if outcome != Ending::Stopped {
                slots[k].ended = Some(outcome);
            }
        }
    });
    slots.into_inner().expect("no thread panicked").iter().map(|slot| slot.ended.unwrap_or(Ending::Stopped)).collect()
}
