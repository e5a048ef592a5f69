//! memplan: static memory planning (dynamic storage allocation).
//!
//! Buffers have a size and a half-open lifetime `[start, end)`; a plan gives each an offset so that
//! no two buffers alive at the same time overlap in memory. The library is free of I/O: parsers take
//! text and return a [`Problem`] or every error with its line; solvers take a [`Problem`] and return
//! an [`Outcome`] (a plan or none, the proven bound, why it stopped); one independent [`validate`]
//! module checks every plan.
//!
//! # The API at a glance
//!
//! - **A problem**: [`Problem::new`] from [`Buffer`]s, [`format::read`] from MiniMalloc CSV or
//!   JSON text, or [`import`] from a compiler's model (TFLite, XLA, ExecuTorch) with the compiler's
//!   own plan beside it.
//! - **A solve**: a [`Request`] (the front door every face translates into: the solver by name,
//!   capacity as bytes or text, effort, seed, time limit, threads, parameters, warm start, cancel,
//!   progress). [`Request::run`] checks and resolves it once and returns a [`run::Run`]: the
//!   [`Outcome`] (plan, proven lower bound, why it [`Stopped`]) and what the validator found.
//!   A refused request is a [`SolveError`], one variant per kind of refusal.
//! - **A check**: [`validate::validate`] for any plan; [`run::given`] for a plan that came with
//!   the input, as an outcome.
//! - **The catalogue**: [`run::registry::infos`] lists every solver with its capabilities and
//!   parameters; [`solvers`] holds the [`Solver`] trait and the solvers a user may configure in
//!   code, each with its settings.
//! - **Measures and instances**: [`metrics`] (makespan, load, conflicts of an instance), [`diff`]
//!   (two plans of one instance compared), [`generate`] (random and structured instances),
//!   [`parse_size`] (`"1KiB"` as bytes).
//!
//! ```
//! use memplan::format::{self, ReadOptions};
//! use memplan::{Request, StopGroup, Stopped};
//!
//! // Three buffers; b1 and b3 overlap in time, b2 and b3 too.
//! let text = "id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\nb3,0,9,4\n";
//! let document = format::read(text, &ReadOptions::default()).expect("a valid instance");
//! let problem = &document.problem;
//!
//! let run = Request::new("auto").capacity("1KiB").seed(7).run(problem).expect("auto exists");
//! assert!(run.is_valid());
//! let plan = run.outcome.plan.as_ref().expect("a plan fits 1 KiB");
//! assert_eq!(plan.makespan, 8); // the max load: no plan can be lower
//! assert_eq!(run.outcome.stopped.group(), StopGroup::Proven);
//!
//! // The independent validator agrees, and catches a plan that overlaps.
//! assert!(memplan::validate::validate(problem, &plan.offsets, None).is_valid());
//! assert!(!memplan::validate::validate(problem, &[0, 0, 0], None).is_valid());
//! # let _ = Stopped::Fits;
//! ```
//!
//! Everything else is internal to the crate; the one module hidden from these docs, `bench`, is
//! public only for memplan's own command-line tool.

// An item is `pub` only when a face or a Rust user reaches it from outside the crate (the tests of
// internals sit beside them); the lint flags any other. (Natively: the wasm build compiles the
// page's protocol, which only the facade reads.)
#![cfg_attr(not(target_arch = "wasm32"), warn(unreachable_pub))]

// The API: what the three faces and a Rust user call.
pub mod format;
pub mod import;
pub mod run;
pub mod validate;

// The measures of an instance or a plan, the comparison of two plans and the instance generators
// (the CLI's `generate`, the tests and the benchmarks use them).
pub mod diff;
pub mod generate;
pub mod metrics;
// The solver catalogue: each solver a user may configure, with its settings.
pub mod solvers;

// Internals; the items a user needs are re-exported below.
pub(crate) mod alignment;
// Public only for memplan's own command-line tool (`memplan bench` and its heap meter): not an API
// to build on.
#[doc(hidden)]
pub mod bench;
pub(crate) mod model;
pub(crate) mod occupancy;
pub(crate) mod options;
pub(crate) mod range_max;
pub(crate) mod size;

// The integration tests' helpers (random instances, naive placement rules, the exhaustive oracle),
// shared with the unit tests of internals that are not public, so that one copy serves both. They
// name the crate `memplan`, as an outside test does.
#[cfg(test)]
extern crate self as memplan;
#[cfg(test)]
#[path = "../tests/common/mod.rs"]
#[allow(unreachable_pub)]
pub(crate) mod test_support;

// What the wasm facade and the page say to each other; natively only its test of the generated
// TypeScript (and the translation into a request) compiles it.
#[cfg(any(target_arch = "wasm32", test))]
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub(crate) mod protocol;

pub use model::{
    Buffer, BufferId, Category, Details, Gap, InputError, InputErrors, Outcome, Plan, Problem, Semantics, StatValue,
    Stats, StopGroup, Stopped, Window,
};
pub use options::{
    CancelFlag, Deadline, Effort, Halt, MAX_THREADS, Parameter, Params, Progress, ProgressSink, Range, SolveError,
    SolveOptions,
};
pub use run::{Capacity, Request};
pub use size::parse_size;
pub use solvers::{Capabilities, Solver};

#[cfg(target_arch = "wasm32")]
pub mod wasm;
