//! What a solver can honour, apart from the trait so that what the trait's callers use (the view
//! of a problem a solver can take) can read it without depending on the trait's module.

use serde::Serialize;

#[cfg(doc)]
use crate::options::{Halt, SolveOptions};

/// What a solver can honour. A solver that cannot honour a constraint of the problem refuses it
/// with [`Halt::Unsupported`] rather than dropping it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Capabilities {
    pub alignment: bool,
    pub pinned: bool,
    /// It uses the capacity to steer the search (greedy planners only report whether they fit).
    pub capacity: bool,
    /// It proves lower bounds beyond L.
    pub minimise: bool,
    /// Its result depends on the seed.
    pub randomised: bool,
    /// It searches from a start plan ([`SolveOptions::start`]) and does better with a good one:
    /// callers that have one (the run, the portfolio) pass it in.
    pub warm_start: bool,
    /// It uses buffers' gaps (conflicts only where live pieces meet). A solver without it is given
    /// the buffers' hulls ([`crate::Problem::hull`]), which gives valid plans, only looser.
    pub gaps: bool,
    /// It uses windowed gaps too. A solver with `gaps` but without it is given them as alive
    /// (plain gaps kept): valid plans, only looser.
    pub windows: bool,
    /// It is given zero-size buffers, as conflicts of the buffers alive with them: a planner that
    /// reproduces a compiler whose order or offsets they change (TVM's count them). A solver
    /// without it never sees them (they occupy nothing) and they are placed at their pin or 0.
    pub zero_size: bool,
}

impl Capabilities {
    /// What every planner of memplan honours, alignment and pinned buffers, and nothing else: a
    /// solver states what it does besides, e.g. `Capabilities::planner().with_capacity()`.
    pub const fn planner() -> Capabilities {
        Capabilities {
            alignment: true,
            pinned: true,
            capacity: false,
            minimise: false,
            randomised: false,
            warm_start: false,
            gaps: false,
            windows: false,
            zero_size: false,
        }
    }

    /// It steers by the capacity ([`Capabilities::capacity`]).
    pub const fn with_capacity(self) -> Capabilities {
        Capabilities { capacity: true, ..self }
    }

    /// It proves lower bounds beyond L ([`Capabilities::minimise`]).
    pub const fn with_minimise(self) -> Capabilities {
        Capabilities { minimise: true, ..self }
    }

    /// Its result depends on the seed ([`Capabilities::randomised`]).
    pub const fn with_randomised(self) -> Capabilities {
        Capabilities { randomised: true, ..self }
    }

    /// It searches from a start plan ([`Capabilities::warm_start`]).
    pub const fn with_warm_start(self) -> Capabilities {
        Capabilities { warm_start: true, ..self }
    }

    /// It uses gaps ([`Capabilities::gaps`]).
    pub const fn with_gaps(self) -> Capabilities {
        Capabilities { gaps: true, ..self }
    }

    /// It uses gaps, windowed ones too ([`Capabilities::windows`]).
    pub const fn with_windows(self) -> Capabilities {
        Capabilities { gaps: true, windows: true, ..self }
    }

    /// It is given zero-size buffers ([`Capabilities::zero_size`]).
    pub const fn with_zero_size(self) -> Capabilities {
        Capabilities { zero_size: true, ..self }
    }
}
