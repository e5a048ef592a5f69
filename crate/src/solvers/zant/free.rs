//! The free objects of the pool, answering "which free object of at least this size" under one of
//! three rules in O(log n): by size (best and worst fit) or in creation order (Zant's first fit).

use std::collections::BTreeSet;

/// Which free object a buffer takes among those large enough.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Reuse {
    /// The first in creation order (Zant v0: "a free buffer ... with a size that is greater or equal").
    First,
    /// The smallest; ties go to the lowest creation index (Zant v1's default).
    Best,
    /// The largest; ties go to the lowest creation index.
    Worst,
}

/// The free objects, indexed by creation index. An object is either free (in here) or holds a
/// buffer, never both.
#[derive(Clone, Debug)]
pub(super) enum FreeObjects {
    /// (size, creation index): the smallest large-enough object is the first at or after
    /// (request, 0), the largest is the last.
    BySize {
        objects: BTreeSet<(u64, usize)>,
        largest: bool,
    },
    InCreationOrder(CreationOrderTree),
}

impl FreeObjects {
    /// An empty set for objects with creation indices below `capacity`.
    pub(super) fn new(reuse: Reuse, capacity: usize) -> Self {
        match reuse {
            Reuse::First => FreeObjects::InCreationOrder(CreationOrderTree::new(capacity)),
            Reuse::Best => FreeObjects::BySize { objects: BTreeSet::new(), largest: false },
            Reuse::Worst => FreeObjects::BySize { objects: BTreeSet::new(), largest: true },
        }
    }

    /// Marks `object` (of `size` >= 1) free.
    pub(super) fn insert(&mut self, object: usize, size: u64) {
        match self {
            FreeObjects::BySize { objects, .. } => {
                objects.insert((size, object));
            }
            FreeObjects::InCreationOrder(tree) => tree.set(object, size),
        }
    }

    /// Removes and returns the free object the rule picks for a buffer of `request` bytes (>= 1).
    pub(super) fn take(&mut self, request: u64) -> Option<usize> {
        match self {
            FreeObjects::BySize { objects, largest } => {
                let size = if *largest { objects.last()?.0 } else { objects.range((request, 0)..).next()?.0 };
                if size < request {
                    return None;
                }
                // The lowest creation index among the objects of the chosen size.
                let chosen = *objects.range((size, 0)..).next()?;
                objects.remove(&chosen);
                Some(chosen.1)
            }
            FreeObjects::InCreationOrder(tree) => {
                let object = tree.first_at_least(request)?;
                tree.set(object, 0);
                Some(object)
            }
        }
    }
}

/// A max segment tree over creation indices holding each free object's size (0 = not free), so
/// that the first index whose size is at least a request is found by one descent from the root.
#[derive(Clone, Debug)]
pub(super) struct CreationOrderTree {
    leaves: usize,
    /// `max[1]` is the root; node k has children 2k and 2k + 1; leaf i is `max[leaves + i]`.
    max: Vec<u64>,
}

impl CreationOrderTree {
    pub(super) fn new(capacity: usize) -> Self {
        let leaves = capacity.max(1).next_power_of_two();
        CreationOrderTree { leaves, max: vec![0; 2 * leaves] }
    }

    pub(super) fn set(&mut self, index: usize, size: u64) {
        let mut node = self.leaves + index;
        self.max[node] = size;
        while node > 1 {
            node /= 2;
            self.max[node] = self.max[2 * node].max(self.max[2 * node + 1]);
        }
    }

    /// The lowest index whose size is at least `request` (>= 1, so empty leaves never match).
    pub(super) fn first_at_least(&self, request: u64) -> Option<usize> {
        if self.max[1] < request {
            return None;
        }
        let mut node = 1;
        while node < self.leaves {
            node = if self.max[2 * node] >= request { 2 * node } else { 2 * node + 1 };
        }
        Some(node - self.leaves)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_rule_picks_its_object() {
        // Creation order: 0 (size 6), 1 (size 10), 2 (size 6), 3 (size 10).
        let sizes = [6, 10, 6, 10];
        let pick = |reuse, request| {
            let mut free = FreeObjects::new(reuse, sizes.len());
            for (object, &size) in sizes.iter().enumerate() {
                free.insert(object, size);
            }
            free.take(request)
        };
        assert_eq!(pick(Reuse::First, 5), Some(0));
        assert_eq!(pick(Reuse::First, 7), Some(1));
        assert_eq!(pick(Reuse::Best, 5), Some(0));
        assert_eq!(pick(Reuse::Best, 7), Some(1));
        assert_eq!(pick(Reuse::Worst, 5), Some(1));
        for reuse in [Reuse::First, Reuse::Best, Reuse::Worst] {
            assert_eq!(pick(reuse, 11), None);
        }
    }

    #[test]
    fn taken_objects_are_gone_until_freed() {
        for reuse in [Reuse::First, Reuse::Best, Reuse::Worst] {
            let mut free = FreeObjects::new(reuse, 3);
            free.insert(2, 8);
            assert_eq!(free.take(8), Some(2));
            assert_eq!(free.take(1), None);
            free.insert(2, 8);
            assert_eq!(free.take(1), Some(2));
        }
    }
}
