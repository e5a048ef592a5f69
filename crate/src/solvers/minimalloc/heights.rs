//! The per-section effective heights of the search's inference (eq. 3), held in 32 bits when
//! every height the search can compute fits, in 64 otherwise.
//!
//! Why two widths: lowering these heights and sweeping them is the search's hottest work, and in
//! wasm 64-bit values cost more than on x86-64 (twice the bytes moved, and no 64-bit unsigned
//! minimum in SIMD). The narrow width changes no answer: it is chosen only when the largest
//! height fits below the 32-bit "no height" mark, so every comparison and sum sees the same
//! values. One generic implementation serves both ([`Height`]); the width is chosen once per
//! search ([`Effective::new`]).

/// An unsigned height type: `u32` or `u64`.
pub(super) trait Height: Copy + Ord {
    /// "No unplaced buffer here": above every height the search holds.
    const NONE: Self;
    /// The value in this width; the caller knows it fits (see [`Effective::new`]).
    fn narrow(value: u64) -> Self;
    fn widen(self) -> u64;
    /// Lowers every slot to at most `height` (see [`lower_to`]).
    fn lower(slots: &mut [Self], height: Self);
}

impl Height for u32 {
    const NONE: u32 = u32::MAX;
    #[inline(always)]
    fn narrow(value: u64) -> u32 {
        debug_assert!(value < u64::from(u32::MAX));
        value as u32
    }
    #[inline(always)]
    fn widen(self) -> u64 {
        u64::from(self)
    }
    #[inline(always)]
    fn lower(slots: &mut [u32], height: u32) {
        // A wasm engine without `simd128` rejects the whole module at load time: the call
        // cannot misbehave (hence safe on wasm).
        #[cfg(target_arch = "wasm32")]
        lower_narrow_simd(slots, height);
        #[cfg(not(target_arch = "wasm32"))]
        lower_in_lanes(slots, height)
    }
}

impl Height for u64 {
    const NONE: u64 = u64::MAX;
    #[inline(always)]
    fn narrow(value: u64) -> u64 {
        value
    }
    #[inline(always)]
    fn widen(self) -> u64 {
        self
    }
    #[inline(always)]
    fn lower(slots: &mut [u64], height: u64) {
        lower_in_lanes(slots, height)
    }
}

/// Per section, the lowest offset any of its unplaced buffers can still take (scratch: every
/// section holds [`Height::NONE`] between two nodes).
pub(super) enum Effective {
    Narrow(Vec<u32>),
    Wide(Vec<u64>),
}

impl Effective {
    /// Scratch for `sections` sections whose heights never exceed `highest`.
    pub(super) fn new(sections: usize, highest: u64) -> Self {
        if highest < u64::from(u32::MAX) {
            Effective::Narrow(vec![u32::NONE; sections])
        } else {
            Effective::Wide(vec![u64::NONE; sections])
        }
    }

    /// Holds no sections: what the search leaves in its place while it uses it.
    pub(super) fn taken() -> Self {
        Effective::Wide(Vec::new())
    }
}

/// Lowers every slot to at most `height`. This is the search's hottest loop.
#[inline]
pub(super) fn lower_to<H: Height>(slots: &mut [H], height: H) {
    H::lower(slots, height)
}

/// In four independent lanes: wasm engines neither vectorise nor unroll this loop.
#[inline(always)]
fn lower_in_lanes<H: Height>(slots: &mut [H], height: H) {
    let mut quads = slots.chunks_exact_mut(4);
    for quad in &mut quads {
        quad[0] = quad[0].min(height);
        quad[1] = quad[1].min(height);
        quad[2] = quad[2].min(height);
        quad[3] = quad[3].min(height);
    }
    for slot in quads.into_remainder() {
        *slot = (*slot).min(height);
    }
}

/// Eight 32-bit heights a step in two SIMD128 unsigned minimums (V8 checks the stack on every
/// loop back edge: half the steps, half the checks), then four, then one at a time.
#[cfg(target_arch = "wasm32")]
#[target_feature(enable = "simd128")]
fn lower_narrow_simd(slots: &mut [u32], height: u32) {
    use core::arch::wasm32::{u32x4_min, u32x4_splat, v128, v128_load, v128_store};
    let bound = u32x4_splat(height);
    let mut octets = slots.chunks_exact_mut(8);
    for octet in &mut octets {
        let at = octet.as_mut_ptr().cast::<v128>();
        // SAFETY: `octet` is eight initialised u32s (32 bytes, two v128) borrowed mutably here;
        // wasm's v128 loads and stores need no alignment.
        unsafe {
            v128_store(at, u32x4_min(v128_load(at), bound));
            v128_store(at.add(1), u32x4_min(v128_load(at.add(1)), bound));
        }
    }
    let mut quads = octets.into_remainder().chunks_exact_mut(4);
    for quad in &mut quads {
        let at = quad.as_mut_ptr().cast::<v128>();
        // SAFETY: as above, four u32s (one v128).
        unsafe { v128_store(at, u32x4_min(v128_load(at), bound)) };
    }
    for slot in quads.into_remainder() {
        *slot = (*slot).min(height);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_narrow_width_only_when_every_height_fits_below_its_mark() {
        assert!(matches!(Effective::new(3, u64::from(u32::MAX) - 1), Effective::Narrow(ref v) if v.len() == 3));
        assert!(matches!(Effective::new(3, u64::from(u32::MAX)), Effective::Wide(_)));
        assert!(matches!(Effective::new(3, u64::MAX), Effective::Wide(_)));
    }

    #[test]
    fn lowering_is_the_same_in_both_widths() {
        let heights = [7u64, 3, 9, 1, 4, 8, 2];
        for height in [0u64, 2, 5, 10] {
            let mut wide = heights.to_vec();
            let mut narrow: Vec<u32> = heights.iter().map(|&h| h as u32).collect();
            lower_to(&mut wide, height);
            lower_to(&mut narrow, u32::narrow(height));
            assert_eq!(wide, narrow.iter().map(|&h| h.widen()).collect::<Vec<_>>());
            assert!(wide.iter().zip(heights).all(|(&w, h)| w == h.min(height)));
        }
    }
}
