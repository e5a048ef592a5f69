//! Four unsigned 32-bit running minimums kept side by side: one SIMD128 register in wasm built
//! with SIMD128, an array elsewhere (where the search does not use them, but the tests do).
//!
//! Why: the node test's fit loop ([`super::search`]) carries four running values through every
//! unplaced buffer of every node (the lowest top, the section range's two ends, the lowest next
//! offset). V8's register allocator kept several of them in the stack frame beside the loop's
//! pointers and bounds, reloading and storing them on every buffer. When every value fits in 32
//! bits the four fit in one SIMD register, updated by one lane-wise minimum (a maximum is a
//! minimum of the complement), which leaves the general-purpose registers to the rest of the loop.

/// Four `u32` minimums updated together.
#[derive(Clone, Copy)]
pub(super) struct Lanes(Inner);

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
type Inner = core::arch::wasm32::v128;
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
type Inner = [u32; 4];

impl Lanes {
    /// Every lane at `u32::MAX` (nothing seen yet).
    #[inline(always)]
    pub(super) fn none() -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return Lanes(core::arch::wasm32::u32x4_splat(u32::MAX));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        Lanes([u32::MAX; 4])
    }

    /// Lowers each lane to the matching value of `values` where that is lower.
    #[inline(always)]
    pub(super) fn lower(self, values: [u32; 4]) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        {
            use core::arch::wasm32::{u32x4, u32x4_min};
            Lanes(u32x4_min(self.0, u32x4(values[0], values[1], values[2], values[3])))
        }
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        {
            let mut lanes = self.0;
            for (lane, value) in lanes.iter_mut().zip(values) {
                *lane = (*lane).min(value);
            }
            Lanes(lanes)
        }
    }

    /// The four minimums.
    #[inline(always)]
    pub(super) fn get(self) -> [u32; 4] {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        {
            use core::arch::wasm32::u32x4_extract_lane;
            [
                u32x4_extract_lane::<0>(self.0),
                u32x4_extract_lane::<1>(self.0),
                u32x4_extract_lane::<2>(self.0),
                u32x4_extract_lane::<3>(self.0),
            ]
        }
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_lane_keeps_its_own_minimum() {
        let lanes = Lanes::none().lower([5, 0, u32::MAX, 7]).lower([3, 9, 4, u32::MAX]).lower([4, 1, 6, 8]);
        assert_eq!(lanes.get(), [3, 0, 4, 7]);
        assert_eq!(Lanes::none().get(), [u32::MAX; 4]);
    }
}
