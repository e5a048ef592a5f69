//! Alignment arithmetic on addresses, shared by every solver that places a buffer at an aligned
//! offset.

/// The least common multiple of two alignments (both >= 1): the alignment that suits both. `None`
/// past u64.
pub(crate) fn lcm(a: u64, b: u64) -> Option<u64> {
    (a / num_integer::gcd(a, b)).checked_mul(b)
}

/// The smallest multiple of `alignment` at or above `value`, or `None` past u64.
pub(crate) fn align_up(value: u64, alignment: u64) -> Option<u64> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lcm_suits_both_alignments_and_says_when_it_overflows() {
        assert_eq!(lcm(4, 6), Some(12));
        assert_eq!(lcm(1, 16), Some(16));
        assert_eq!(lcm(4096, 64), Some(4096));
        assert_eq!(lcm(u64::MAX, u64::MAX - 1), None);
    }

    #[test]
    fn align_up_rounds_to_the_next_multiple() {
        assert_eq!(align_up(0, 64), Some(0));
        assert_eq!(align_up(65, 64), Some(128));
        assert_eq!(align_up(7, 6), Some(12));
        assert_eq!(align_up(u64::MAX, 2), None);
        assert_eq!(align_up(u64::MAX, 7), None); // u64::MAX is 1 past a multiple of 7
    }
}
