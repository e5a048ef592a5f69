//! Placement rules: where in the free address space of its lifetime a buffer goes.

use crate::alignment::align_up;
use crate::occupancy::{Address, Occupancy, Query};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fit {
    /// The lowest offset that fits (TFLite Micro, idealloc's squeeze).
    First,
    /// The smallest gap that fits, the lowest on ties; above everything when none does (TFLite,
    /// XLA, IREE).
    Best,
    /// The largest gap that fits, the lowest on ties; above everything when none does.
    Worst,
    /// Directly above the highest time-overlapping buffer, never in a hole (TVM's greedy, the
    /// skyline of TelaMalloc's baseline).
    Top,
}

impl Fit {
    pub const ALL: [Fit; 4] = [Fit::First, Fit::Best, Fit::Worst, Fit::Top];

    pub fn name(self) -> &'static str {
        match self {
            Fit::First => "first",
            Fit::Best => "best",
            Fit::Worst => "worst",
            Fit::Top => "top",
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            Fit::First => "lowest offset that fits",
            Fit::Best => "smallest gap that fits",
            Fit::Worst => "largest gap that fits",
            Fit::Top => "on top of the highest conflict",
        }
    }

    pub fn from_name(name: &str) -> Option<Fit> {
        Fit::ALL.into_iter().find(|f| f.name() == name)
    }

    /// The offset for a buffer of `size` and `alignment` given what its lifetime sees taken;
    /// `None` when the offset would pass u64.
    pub fn choose<A: Address>(self, occupancy: &Occupancy<A>, query: &Query, size: u64, alignment: u64) -> Option<u64> {
        match self {
            Fit::First => occupancy.lowest_fit(query, size, alignment),
            Fit::Top => align_up(occupancy.highest(query), alignment),
            Fit::Best | Fit::Worst => {
                // (gap length, offset) of the chosen bounded gap; the open gap above is the fallback
                // (`None` when aligning its start passes u64). A bounded gap whose aligned start
                // passes u64 holds nothing, but a lower one still may: only the fallback can overflow.
                let mut chosen: Option<(u64, u64)> = None;
                let mut above: Option<u64> = None;
                occupancy.gaps(query, |low, high| {
                    let offset = align_up(low, alignment);
                    match (high, offset) {
                        (None, _) => above = offset,
                        (Some(_), None) => {}
                        (Some(high), Some(offset)) => {
                            let fits = offset.checked_add(size).is_some_and(|top| top <= high);
                            let length = high - low;
                            let better = match chosen {
                                None => true,
                                Some((best, _)) if self == Fit::Best => length < best,
                                Some((best, _)) => length > best,
                            };
                            if fits && better {
                                chosen = Some((length, offset));
                            }
                        }
                    }
                });
                chosen.map(|(_, offset)| offset).or(above)
            }
        }
    }
}
