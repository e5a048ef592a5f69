//! Buddy allocation (Knuth, TAOCP 2.5; the Zant note's last open item), simulated over the walk.
//!
//! Every request is a power of two. The arena is a stack of top-level blocks; a block of size 2^k
//! sits at a multiple of 2^k from its top-level block's base and splits into two buddies of 2^(k-1).
//! A request takes the smallest free block that is large enough (the lowest address on ties) and
//! splits it down to its size; a freed block merges with its buddy while both are free. When no free
//! block is large enough, a new top-level block of the request's size is stacked on the arena.

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};

use super::overflow;
use crate::alignment::align_up;
use crate::model::Buffer;
use crate::options::{Deadline, Halt};

/// Block sizes are 2^0 ..= 2^63.
const ORDERS: usize = 64;

/// A top-level block: the unit the arena grows by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct TopBlock {
    pub base: u64,
    /// Its size is 2^order.
    pub order: u32,
}

impl TopBlock {
    pub(super) fn size(self) -> u64 {
        1 << self.order
    }
}

/// The buddy system's answer for one walk.
#[derive(Clone, Debug)]
pub(super) struct BuddyPlan {
    /// For each walk position, its buffer's offset.
    pub offsets: Vec<u64>,
    pub top_blocks: Vec<TopBlock>,
    /// Buffers served from free space rather than a new top-level block.
    pub reused: usize,
    pub splits: u64,
    pub merges: u64,
}

/// The arena's free blocks: per order, (top-level block, address relative to its base).
struct FreeBlocks {
    by_order: Vec<BTreeSet<(usize, u64)>>,
    splits: u64,
    merges: u64,
}

impl FreeBlocks {
    /// The smallest free block of order >= `order`, split down to `order`; `None` when none is free.
    fn take(&mut self, order: u32) -> Option<(usize, u64)> {
        let from = order as usize;
        let found = (from..ORDERS).find(|&k| !self.by_order[k].is_empty())?;
        let (top, relative) = self.by_order[found].pop_first()?;
        for k in (from..found).rev() {
            // Keep the lower half; its buddy (the upper half) becomes free.
            self.by_order[k].insert((top, relative + (1u64 << k)));
            self.splits += 1;
        }
        Some((top, relative))
    }

    /// Frees a block, merging it with its buddy as long as the buddy is free too.
    fn release(&mut self, tops: &[TopBlock], top: usize, mut relative: u64, mut order: u32) {
        while order < tops[top].order {
            let buddy = relative ^ (1u64 << order);
            if !self.by_order[order as usize].remove(&(top, buddy)) {
                break;
            }
            relative = relative.min(buddy);
            order += 1;
            self.merges += 1;
        }
        self.by_order[order as usize].insert((top, relative));
    }
}

/// The order (log2 of the block size) a buffer asks for. A power-of-two alignment is met by the
/// block's own address, so the request is at least the alignment; any other alignment is met by
/// padding inside the block, so the request leaves room for `alignment - 1` bytes of it.
fn request_order(buffer: &Buffer) -> Option<u32> {
    let request = if buffer.alignment().is_power_of_two() {
        buffer.size.max(buffer.alignment())
    } else {
        buffer.size.checked_add(buffer.alignment() - 1)?
    };
    Some(request.checked_next_power_of_two()?.trailing_zeros())
}

/// Runs the buddy system over `walk` (buffer indices sorted by start), stacking top-level blocks
/// from `base`. A top-level block's base is aligned to the largest power-of-two alignment among the
/// walked buffers (at most its size), so every block inside it is aligned to its own size or that,
/// whichever is smaller, which is enough for each buffer it serves.
pub(super) fn plan(buffers: &[Buffer], walk: &[usize], base: u64, deadline: &Deadline) -> Result<BuddyPlan, Halt> {
    let largest_alignment =
        walk.iter().map(|&i| buffers[i].alignment()).filter(|a| a.is_power_of_two()).max().unwrap_or(1);
    let mut free = FreeBlocks { by_order: vec![BTreeSet::new(); ORDERS], splits: 0, merges: 0 };
    let mut tops: Vec<TopBlock> = Vec::new();
    let mut arena_top = base;
    // (end, top-level block, relative address, order) of every block in use, earliest end first.
    let mut busy: BinaryHeap<Reverse<(u64, usize, u64, u32)>> = BinaryHeap::new();
    let mut offsets = Vec::with_capacity(walk.len());
    let mut reused = 0;
    for (step, &i) in walk.iter().enumerate() {
        deadline.poll(step)?;
        let buffer = &buffers[i];
        while let Some(&Reverse((end, top, relative, order))) = busy.peek() {
            if end > buffer.start {
                break;
            }
            busy.pop();
            free.release(&tops, top, relative, order);
        }
        let order = request_order(buffer).ok_or_else(|| overflow(buffer, arena_top))?;
        let (top, relative) = match free.take(order) {
            Some(block) => {
                reused += 1;
                block
            }
            None => {
                let size = 1u64 << order;
                let at = align_up(arena_top, size.min(largest_alignment)).ok_or_else(|| overflow(buffer, arena_top))?;
                arena_top = at.checked_add(size).ok_or_else(|| overflow(buffer, at))?;
                tops.push(TopBlock { base: at, order });
                (tops.len() - 1, 0)
            }
        };
        // Below arena_top, which fit in u64.
        let address = tops[top].base + relative;
        // A no-op for power-of-two alignments; padding inside the block otherwise.
        let offset = align_up(address, buffer.alignment()).ok_or_else(|| overflow(buffer, address))?;
        offsets.push(offset);
        busy.push(Reverse((buffer.end, top, relative, order)));
    }
    Ok(BuddyPlan { offsets, top_blocks: tops, reused, splits: free.splits, merges: free.merges })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_round_up_to_powers_of_two_and_alignment() {
        let order = |size, alignment| request_order(&Buffer::new("a", 0, 1, size).with_alignment(alignment));
        assert_eq!(order(1, 1), Some(0));
        assert_eq!(order(3, 1), Some(2));
        assert_eq!(order(8, 1), Some(3));
        assert_eq!(order(3, 16), Some(4));
        assert_eq!(order(5, 3), Some(3)); // 5 + 2 bytes of padding
        assert_eq!(order((1 << 63) + 1, 1), None);
    }

    #[test]
    fn split_then_merge_back_to_the_whole_block() {
        let mut free = FreeBlocks { by_order: vec![BTreeSet::new(); ORDERS], splits: 0, merges: 0 };
        let tops = [TopBlock { base: 0, order: 3 }];
        free.release(&tops, 0, 0, 3);
        assert_eq!(free.take(1), Some((0, 0)));
        assert_eq!(free.splits, 2);
        assert_eq!(free.take(2), Some((0, 4)));
        assert_eq!(free.take(1), Some((0, 2)));
        assert_eq!(free.take(0), None);
        free.release(&tops, 0, 0, 1);
        free.release(&tops, 0, 4, 2);
        assert_eq!(free.take(3), None, "the block at 2 is still in use");
        free.release(&tops, 0, 2, 1);
        assert_eq!(free.merges, 2);
        assert_eq!(free.take(3), Some((0, 0)));
    }
}
