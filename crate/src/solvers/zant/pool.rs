//! The shared-objects pool (Zant's planner, TFLite GPU's "shared objects"): buffers walked in start
//! order each take a free object large enough or open a new one; objects never grow. Stacking the
//! used objects in creation order turns the pool into offsets.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::free::{FreeObjects, Reuse};
use super::overflow;
use crate::alignment::{align_up, lcm};
use crate::metrics;
use crate::model::Buffer;
use crate::options::{Deadline, Halt};

/// How a walk picks free objects and sizes new ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Rules {
    pub reuse: Reuse,
    /// A new object is sized for the largest of its buffer and the next `lookahead` buffers that
    /// start once it has ended (0 = exactly its buffer's size).
    pub lookahead: usize,
}

/// One shared object: a block of memory that buffers with disjoint lifetimes take in turn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Object {
    pub size: u64,
    /// The object's offset must be a multiple of this: the lcm of its buffers' alignments (for
    /// powers of two, the largest).
    pub alignment: u64,
    /// How many buffers it held; 0 for a prepopulated object nobody took.
    pub users: usize,
    /// The buffer index of its first user, to name it in errors.
    pub first_user: Option<usize>,
}

/// The result of a walk: the objects in creation order and which one each buffer took.
#[derive(Clone, Debug)]
pub(super) struct Pool {
    pub objects: Vec<Object>,
    /// For each walk position, the creation index of its buffer's object.
    pub object_of: Vec<usize>,
}

impl Pool {
    /// Walks `walk` (buffer indices sorted by start, ties by index). `prepopulate` gives the sizes
    /// of objects that exist, free, before the walk. An object whose buffer has ended (end <= the
    /// next start, lifetimes being half-open) is free again.
    pub(super) fn build(
        buffers: &[Buffer],
        walk: &[usize],
        prepopulate: &[u64],
        rules: Rules,
        deadline: &Deadline,
    ) -> Result<Pool, Halt> {
        let mut objects: Vec<Object> =
            prepopulate.iter().map(|&size| Object { size, alignment: 1, users: 0, first_user: None }).collect();
        let mut free = FreeObjects::new(rules.reuse, prepopulate.len() + walk.len());
        for (index, object) in objects.iter().enumerate() {
            free.insert(index, object.size);
        }
        // (end of the current buffer, object), earliest end first.
        let mut busy: BinaryHeap<Reverse<(u64, usize)>> = BinaryHeap::with_capacity(walk.len().min(1 << 16));
        let mut object_of = Vec::with_capacity(walk.len());
        for (step, &i) in walk.iter().enumerate() {
            deadline.poll(step)?;
            let buffer = &buffers[i];
            while let Some(&Reverse((end, object))) = busy.peek() {
                if end > buffer.start {
                    break;
                }
                busy.pop();
                free.insert(object, objects[object].size);
            }
            let object = match free.take(buffer.size) {
                Some(object) => object,
                None => {
                    let size = if rules.lookahead > 0 {
                        lookahead_size(buffers, walk, i, rules.lookahead)
                    } else {
                        buffer.size
                    };
                    objects.push(Object { size, alignment: 1, users: 0, first_user: None });
                    objects.len() - 1
                }
            };
            let entry = &mut objects[object];
            entry.alignment = lcm(entry.alignment, buffer.alignment()).ok_or_else(|| overflow(buffer, u64::MAX))?;
            entry.users += 1;
            entry.first_user.get_or_insert(i);
            busy.push(Reverse((buffer.end, object)));
            object_of.push(object);
        }
        Ok(Pool { objects, object_of })
    }

    /// The objects some buffer used.
    pub(super) fn used(&self) -> impl Iterator<Item = &Object> {
        self.objects.iter().filter(|o| o.users > 0)
    }

    /// The sum of the used objects' sizes (at most the stacked height, which fit in u64).
    pub(super) fn size(&self) -> u64 {
        self.used().fold(0u64, |sum, o| sum.saturating_add(o.size))
    }

    /// Each object's offset when the used objects are stacked in creation order from `base`, each
    /// aligned up to its alignment. Unused objects take no room; their entry is 0 and means nothing.
    pub(super) fn stack(&self, buffers: &[Buffer], base: u64) -> Result<Vec<u64>, Halt> {
        let mut offsets = vec![0u64; self.objects.len()];
        let mut top = base;
        for (index, object) in self.objects.iter().enumerate() {
            let Some(user) = object.first_user else { continue };
            let error = || Halt::Overflow { buffer: buffers[user].id.to_string(), offset: top, size: object.size };
            let offset = align_up(top, object.alignment).ok_or_else(error)?;
            top = offset.checked_add(object.size).ok_or_else(error)?;
            offsets[index] = offset;
        }
        Ok(offsets)
    }
}

/// The size of a new object for `walk`'s buffer `i` under lookahead: the largest of its size and the
/// sizes of the first `count` buffers (in start order) that start at or after its end. Those are
/// the next buffers that could take the object once it is free, so sizing it for them makes a
/// reuse likelier than a new object.
fn lookahead_size(buffers: &[Buffer], walk: &[usize], i: usize, count: usize) -> u64 {
    let end = buffers[i].end;
    let first_after = walk.partition_point(|&j| buffers[j].start < end);
    walk[first_after..].iter().take(count).map(|&j| buffers[j].size).fold(buffers[i].size, u64::max)
}

/// The sizes of the walked buffers alive at the first time their load is highest, in walk order
/// (the note's "peak memory buffers"). Pinned buffers are not walked and so not counted.
pub(super) fn peak_sizes(buffers: &[Buffer], walk: &[usize]) -> Vec<u64> {
    let Some(peak) = metrics::peak_time(walk.iter().map(|&i| &buffers[i])) else { return Vec::new() };
    walk.iter().filter(|&&i| buffers[i].start <= peak && peak < buffers[i].end).map(|&i| buffers[i].size).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buffers(spec: &[(u64, u64, u64)]) -> Vec<Buffer> {
        spec.iter().enumerate().map(|(i, &(s, e, z))| Buffer::new(i.to_string(), s, e, z)).collect()
    }

    const BEST: Rules = Rules { reuse: Reuse::Best, lookahead: 0 };

    #[test]
    fn unused_prepopulated_objects_are_dropped() {
        let bs = buffers(&[(0, 1, 200), (1, 2, 50)]);
        let pool = Pool::build(&bs, &[0, 1], &[100, 7], BEST, &Deadline::none()).unwrap();
        // The 200 cannot use either; the 50 takes the 100; the 7 stays unused.
        assert_eq!(pool.object_of, vec![2, 0]);
        assert_eq!(pool.objects[1].users, 0);
        assert_eq!(pool.used().count(), 2);
        assert_eq!(pool.size(), 300);
        let offsets = pool.stack(&bs, 0).unwrap();
        assert_eq!((offsets[0], offsets[2]), (0, 100));
    }

    #[test]
    fn peak_buffers_are_those_alive_at_the_first_highest_load() {
        let bs = buffers(&[(0, 2, 5), (1, 3, 4), (2, 4, 9), (3, 5, 9), (4, 6, 1)]);
        // Loads: t0 5, t1 9, t2 13, t3 18, t4 10, t5 1.
        assert_eq!(peak_sizes(&bs, &[0, 1, 2, 3, 4]), vec![9, 9]);
        assert_eq!(peak_sizes(&bs, &[]), Vec::<u64>::new());
    }

    #[test]
    fn lookahead_sizes_for_later_buffers_only() {
        // Buffer 0 ends at 3: buffers 1 (starts 1) and 2 (starts 2) cannot reuse it, 3 and 4 can.
        let bs = buffers(&[(0, 3, 4), (1, 2, 50), (2, 3, 60), (3, 4, 8), (3, 4, 6), (4, 5, 70)]);
        let walk = [0, 1, 2, 3, 4, 5];
        assert_eq!(lookahead_size(&bs, &walk, 0, 2), 8);
        assert_eq!(lookahead_size(&bs, &walk, 0, 3), 70);
        assert_eq!(lookahead_size(&bs, &walk, 5, 8), 70);
    }
}
