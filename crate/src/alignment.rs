//! Alignment arithmetic on addresses, shared by every solver that places a buffer at an aligned
//! offset.

/// The smallest multiple of `alignment` at or above `value`, or `None` past u64.
pub fn align_up(value: u64, alignment: u64) -> Option<u64> {
    // Alignments are powers of two in practice (1 most of all): a mask, not a division, in the
    // first-fit loop.
    if alignment.is_power_of_two() {
        return value.checked_add(alignment - 1).map(|v| v & !(alignment - 1));
    }
    match value % alignment {
        0 => Some(value),
        rest => value.checked_add(alignment - rest),
    }
}
