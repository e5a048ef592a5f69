//! The load over time and the makespan: the two measures the model itself needs (a problem knows
//! its max load, a plan its makespan). The other measures are in [`crate::metrics`].

use super::Buffer;

/// The most bytes alive at once (L), gaps honoured, as u128 so that a sum beyond u64 is seen, not wrapped.
pub fn max_load_wide<'a>(buffers: impl IntoIterator<Item = &'a Buffer>) -> u128 {
    let mut max = 0;
    sweep(buffers, Pieces::Live, |_, load| max = max.max(load));
    max
}

/// The max load of the buffers' hulls ([`Buffer::hull`]: gaps ignored), without making them.
pub(crate) fn max_load_of_hulls<'a>(buffers: impl IntoIterator<Item = &'a Buffer>) -> u128 {
    let mut max = 0;
    sweep(buffers, Pieces::Hull, |_, load| max = max.max(load));
    max
}

/// What of a buffer a sweep counts.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pieces {
    /// Its live pieces: gaps honoured, windows by their bytes.
    Live,
    /// Its whole lifetime with its whole size.
    Hull,
}

/// The load over time as steps: `(time, load)` means `load` bytes are alive from `time` until the
/// next step's time. The last step has load 0.
pub fn load_profile(buffers: &[Buffer]) -> Vec<(u64, u64)> {
    let mut profile = Vec::new();
    sweep(buffers, Pieces::Live, |time, load| profile.push((time, u64::try_from(load).unwrap_or(u64::MAX))));
    profile
}

/// The first time at which the given buffers' load is highest (None for no buffers).
pub fn peak_time<'a>(buffers: impl IntoIterator<Item = &'a Buffer>) -> Option<u64> {
    let mut peak: Option<(u64, u128)> = None;
    sweep(buffers, Pieces::Live, |time, load| {
        if peak.is_none_or(|(_, highest)| load > highest) {
            peak = Some((time, load));
        }
    });
    peak.map(|(time, _)| time)
}

/// Calls `visit(time, load)` at each distinct endpoint in time order, with the load from then
/// until the next one (0 after the last).
fn sweep<'a>(buffers: impl IntoIterator<Item = &'a Buffer>, count: Pieces, mut visit: impl FnMut(u64, u128)) {
    // Starts and ends as (time, bytes), each sorted by time: 16 bytes an event, where one list of
    // signed i128 changes took 32 (on millions of buffers, the largest allocation of a check).
    // `[start, end)` means an end and a start at the same time do not meet, so netting all the
    // changes at a time first is exact. A buffer with gaps counts by its live pieces (a windowed
    // gap by its window's bytes).
    let mut starts: Vec<(u64, u64)> = Vec::new();
    let mut ends: Vec<(u64, u64)> = Vec::new();
    for buffer in buffers {
        if buffer.gaps.is_empty() || count == Pieces::Hull {
            starts.push((buffer.start, buffer.size));
            ends.push((buffer.end, buffer.size));
            continue;
        }
        for piece in buffer.pieces() {
            starts.push((piece.start, piece.height()));
            ends.push((piece.end, piece.height()));
        }
    }
    starts.sort_unstable_by_key(|&(time, _)| time);
    ends.sort_unstable_by_key(|&(time, _)| time);
    // (Signed: a buffer built by hand with its end before its start must not panic here.)
    let mut load: i128 = 0;
    let (mut s, mut e) = (0, 0);
    while s < starts.len() || e < ends.len() {
        let time = match (starts.get(s), ends.get(e)) {
            (Some(&(a, _)), Some(&(b, _))) => a.min(b),
            (Some(&(a, _)), None) => a,
            (None, Some(&(b, _))) => b,
            (None, None) => break,
        };
        while let Some(&(_, bytes)) = starts.get(s).filter(|&&(t, _)| t == time) {
            load += bytes as i128;
            s += 1;
        }
        while let Some(&(_, bytes)) = ends.get(e).filter(|&&(t, _)| t == time) {
            load -= bytes as i128;
            e += 1;
        }
        visit(time, load as u128);
    }
}

/// The highest address in use: max over buffers of offset + size (saturating; the validator
/// reports an overflow separately).
pub fn makespan(buffers: &[Buffer], offsets: &[u64]) -> u64 {
    buffers.iter().zip(offsets).map(|(b, &o)| o.saturating_add(b.size)).max().unwrap_or(0)
}
