//! The load over time and the makespan: the two measures the model itself needs (a problem knows
//! its max load, a plan its makespan). The other measures are in [`crate::metrics`].

use super::Buffer;

/// The most bytes alive at once (L), gaps honoured, as u128 so that a sum beyond u64 is seen, not wrapped.
pub fn max_load_wide<'a>(buffers: impl IntoIterator<Item = &'a Buffer>) -> u128 {
    load_profile_wide(buffers).into_iter().map(|(_, load)| load).max().unwrap_or(0)
}

/// The load over time as steps: `(time, load)` means `load` bytes are alive from `time` until the
/// next step's time. The last step has load 0.
pub fn load_profile(buffers: &[Buffer]) -> Vec<(u64, u64)> {
    load_profile_wide(buffers).into_iter().map(|(t, load)| (t, u64::try_from(load).unwrap_or(u64::MAX))).collect()
}

/// The first time at which the given buffers' load is highest (None for no buffers).
pub fn peak_time<'a>(buffers: impl IntoIterator<Item = &'a Buffer>) -> Option<u64> {
    let profile = load_profile_wide(buffers);
    let peak = profile.iter().map(|&(_, load)| load).max()?;
    profile.iter().find(|&&(_, load)| load == peak).map(|&(time, _)| time)
}

fn load_profile_wide<'a>(buffers: impl IntoIterator<Item = &'a Buffer>) -> Vec<(u64, u128)> {
    // Per time point, the net change of the load; `[start, end)` means an end and a start at the
    // same time do not meet, so netting them first is exact. A buffer with gaps counts by its live
    // pieces (a windowed gap by its window's bytes).
    let mut events: Vec<(u64, i128)> = Vec::new();
    for buffer in buffers {
        if buffer.gaps.is_empty() {
            events.push((buffer.start, buffer.size as i128));
            events.push((buffer.end, -(buffer.size as i128)));
            continue;
        }
        for piece in buffer.pieces() {
            events.push((piece.start, piece.height() as i128));
            events.push((piece.end, -(piece.height() as i128)));
        }
    }
    events.sort_unstable_by_key(|&(time, _)| time);
    let mut profile: Vec<(u64, u128)> = Vec::new();
    let mut load: i128 = 0;
    let mut i = 0;
    while i < events.len() {
        let time = events[i].0;
        while i < events.len() && events[i].0 == time {
            load += events[i].1;
            i += 1;
        }
        profile.push((time, load as u128));
    }
    profile
}

/// The highest address in use: max over buffers of offset + size (saturating; the validator
/// reports an overflow separately).
pub fn makespan(buffers: &[Buffer], offsets: &[u64]) -> u64 {
    buffers.iter().zip(offsets).map(|(b, &o)| o.saturating_add(b.size)).max().unwrap_or(0)
}
