//! Static pre-orderings (MiniMalloc §7): the rank of each buffer, which breaks ties of the dynamic
//! "lowest offset first" ordering. Different pre-orderings lead the search down different first
//! paths; the driver rotates among them with a doubling node limit so that one unlucky ordering
//! cannot stall the search.

use super::sections::{Keys, Layout};

/// One criterion, largest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Key {
    /// The largest section total over the buffer's lifetime.
    Total,
    /// The lifetime's length.
    Width,
    /// Size × lifetime.
    Area,
    Size,
}

/// The pre-orderings tried, in turn: lexicographic on their keys, larger first.
pub(super) const ORDERINGS: [[Key; 3]; 6] = [
    [Key::Width, Key::Area, Key::Total],
    [Key::Total, Key::Area, Key::Width],
    [Key::Total, Key::Width, Key::Area],
    [Key::Area, Key::Total, Key::Width],
    [Key::Size, Key::Width, Key::Total],
    [Key::Width, Key::Total, Key::Size],
];

pub(super) fn name(ordering: &[Key; 3]) -> String {
    ordering
        .iter()
        .map(|key| match key {
            Key::Total => "total",
            Key::Width => "width",
            Key::Area => "area",
            Key::Size => "size",
        })
        .collect::<Vec<_>>()
        .join("-")
}

/// The value of one key for the buffer with problem index `i`.
fn value(keys: &Keys, key: Key, i: usize) -> u128 {
    match key {
        Key::Total => keys.total[i] as u128,
        Key::Width => keys.width[i] as u128,
        Key::Area => keys.area[i],
        Key::Size => keys.size[i] as u128,
    }
}

/// The searched buffers' problem indices, by rank, for one pre-ordering (ties: problem index).
pub(super) fn arrange(layout: &Layout, keys: &Keys, ordering: &[Key; 3]) -> Vec<usize> {
    let mut order = layout.searched.clone();
    order.sort_by(|&a, &b| {
        ordering
            .iter()
            .map(|&key| value(keys, key, b).cmp(&value(keys, key, a)))
            .find(|o| o.is_ne())
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.cmp(&b))
    });
    order
}

/// Each rank's key values under `ordering` (for `order`, as [`arrange`] gave it), and which of the
/// three is the section total: the search sorts a decomposed part again with the totals of that
/// moment (see [`super::search`]).
pub(super) fn preorder_keys(keys: &Keys, ordering: &[Key; 3], order: &[usize]) -> (Vec<[u128; 3]>, Option<usize>) {
    let values = order.iter().map(|&i| ordering.map(|key| value(keys, key, i))).collect();
    (values, ordering.iter().position(|&key| key == Key::Total))
}
