use serde::{Deserialize, Serialize};

/// How the two times of a lifetime in an input file are meant. Tools disagree (the idealloc paper,
/// §5.4): MiniMalloc, TVM and SOMAS use `[start, end)`, XLA's heap simulator `[start, end]`, idealloc
/// `(start, end)`. Internally memplan always uses `[start, end)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum Semantics {
    /// `[start, end)`: alive from `start` up to, not including, `end` (MiniMalloc).
    #[default]
    HalfOpen,
    /// `[start, end]`: alive at both ends (XLA); converted by `end + 1`.
    Inclusive,
    /// `(start, end)`: alive strictly between (idealloc). Over real time two such lifetimes meet
    /// exactly when their `[start, end)` forms do (paper §5.4), so the conversion is the identity.
    Exclusive,
}

impl Semantics {
    pub const ALL: [Semantics; 3] = [Semantics::HalfOpen, Semantics::Inclusive, Semantics::Exclusive];

    pub fn name(self) -> &'static str {
        match self {
            Semantics::HalfOpen => "half-open",
            Semantics::Inclusive => "inclusive",
            Semantics::Exclusive => "exclusive",
        }
    }

    pub fn parse(text: &str) -> Option<Semantics> {
        match text.trim().to_ascii_lowercase().as_str() {
            "half-open" | "halfopen" | "inex" | "[)" => Some(Semantics::HalfOpen),
            "inclusive" | "in" | "closed" | "[]" => Some(Semantics::Inclusive),
            "exclusive" | "ex" | "open" | "()" => Some(Semantics::Exclusive),
            _ => None,
        }
    }

    /// Converts a lifetime as written in this semantics to `[start, end)`, or says why it cannot.
    pub fn to_half_open(self, start: u64, end: u64) -> Result<(u64, u64), String> {
        match self {
            Semantics::HalfOpen | Semantics::Exclusive => {
                if end > start {
                    Ok((start, end))
                } else {
                    Err(format!("end ({end}) must be greater than start ({start})"))
                }
            }
            Semantics::Inclusive => {
                if end < start {
                    return Err(format!("end ({end}) must not be less than start ({start})"));
                }
                let end =
                    end.checked_add(1).ok_or_else(|| format!("end ({end}) is too large to convert to [start, end)"))?;
                Ok((start, end))
            }
        }
    }

    /// The inverse of [`Semantics::to_half_open`], used when writing a plan back in the input's terms.
    pub fn from_half_open(self, start: u64, end: u64) -> (u64, u64) {
        match self {
            Semantics::HalfOpen | Semantics::Exclusive => (start, end),
            Semantics::Inclusive => (start, end - 1),
        }
    }

    /// The times `[start, end)` (`end` above `start`) as this semantics writes them, brackets
    /// included, for messages that name a stretch of time in the input's terms: `[3, 7)`,
    /// `[3, 6]` or `(3, 7)`.
    pub fn interval(self, start: u64, end: u64) -> String {
        let (low, high) = self.from_half_open(start, end);
        match self {
            Semantics::HalfOpen => format!("[{low}, {high})"),
            Semantics::Inclusive => format!("[{low}, {high}]"),
            Semantics::Exclusive => format!("({low}, {high})"),
        }
    }

    /// The largest total size alive at once, computed directly in this semantics with its own
    /// sweep (not through the conversion), so that the conversion can be checked against it.
    pub fn max_load_raw(self, lifetimes: impl Iterator<Item = (u64, u64, u64)>) -> u128 {
        // Each event is (time, rank, size, is_start); at one time point the lower rank goes first.
        // Inclusive: starts before ends (both alive at that point). Half-open and open: ends first.
        let (start_rank, end_rank) = if self == Semantics::Inclusive { (0u8, 1u8) } else { (1, 0) };
        let mut events: Vec<(u64, u8, u64, bool)> = Vec::new();
        for (start, end, size) in lifetimes {
            events.push((start, start_rank, size, true));
            events.push((end, end_rank, size, false));
        }
        events.sort_unstable();
        let (mut load, mut max) = (0u128, 0u128);
        for (_, _, size, is_start) in events {
            if is_start {
                load += size as u128;
                max = max.max(load);
            } else {
                load -= size as u128;
            }
        }
        max
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inclusive_adds_one_and_keeps_touching_lifetimes_in_conflict() {
        assert_eq!(Semantics::Inclusive.to_half_open(3, 3), Ok((3, 4)));
        assert!(Semantics::Inclusive.to_half_open(u64::MAX - 1, u64::MAX).is_err());
        // [0,2] and [2,4] share time 2.
        let raw = [(0, 2, 5), (2, 4, 7)];
        assert_eq!(Semantics::Inclusive.max_load_raw(raw.into_iter()), 12);
        assert_eq!(Semantics::HalfOpen.max_load_raw(raw.into_iter()), 7);
        assert_eq!(Semantics::Exclusive.max_load_raw(raw.into_iter()), 7);
    }

    #[test]
    fn empty_lifetimes_are_rejected() {
        assert!(Semantics::HalfOpen.to_half_open(5, 5).is_err());
        assert!(Semantics::Exclusive.to_half_open(6, 5).is_err());
        assert!(Semantics::Inclusive.to_half_open(6, 5).is_err());
    }

    #[test]
    fn intervals_are_written_as_the_input_reads() {
        let (start, end) = (3, 7);
        let written: Vec<String> = Semantics::ALL.iter().map(|s| s.interval(start, end)).collect();
        assert_eq!(written, ["[3, 7)", "[3, 6]", "(3, 7)"]);
    }

    #[test]
    fn from_half_open_inverts_to_half_open() {
        for semantics in Semantics::ALL {
            let (s, e) = semantics.to_half_open(4, 9).unwrap();
            assert_eq!(semantics.from_half_open(s, e), (4, 9));
        }
    }
}
