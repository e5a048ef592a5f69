//! memplan: static memory planning (dynamic storage allocation).
//!
//! Buffers have a size and a half-open lifetime `[start, end)`; a plan gives each an offset so that
//! no two buffers alive at the same time overlap in memory. The library is free of I/O: parsers take
//! text and return a [`Problem`] or every error with its line; solvers take a [`Problem`] and return
//! an [`Outcome`] (a plan or none, the proven bound, why it stopped); one independent [`validate`] module checks every plan.

pub mod alignment;
pub mod bench;
pub mod compare;
pub mod format;
pub mod generate;
pub mod import;
pub mod metrics;
pub mod model;
pub(crate) mod occupancy;
pub mod options;
pub mod protocol;
pub mod run;
pub mod size;
pub mod solvers;
pub mod validate;

pub use model::{
    Buffer, Category, Gap, InputError, InputErrors, Outcome, Plan, Problem, Semantics, Stats, Stopped, Window,
};
pub use options::{CancelFlag, Deadline, Effort, Halt, Parameter, Params, SolveError, SolveOptions};
pub use solvers::Solver;

#[cfg(target_arch = "wasm32")]
pub mod wasm;
