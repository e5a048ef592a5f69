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
//!   parameters.
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
//! Modules hidden from these docs (the solvers' internals, the bench, the generators, the
//! occupancy structures) are reachable only so that memplan's own command-line tool, Python
//! package, tests and benchmarks can use them; they are not an API to build on.

// An item is `pub` only when a face, a test or a Rust user reaches it from outside the crate; the
// lint flags any other. (Natively: the wasm build compiles the page's protocol, which only the
// facade reads.)
#![cfg_attr(not(target_arch = "wasm32"), warn(unreachable_pub))]

// The API: what the three faces and a Rust user call.
pub mod format;
pub mod import;
pub mod run;
pub mod validate;

// Internals, public only for memplan's own CLI, Python package, tests, benchmarks and fuzzers
// (see the crate documentation); the items a user needs are re-exported below.
pub(crate) mod alignment;
#[doc(hidden)]
pub mod bench;
#[doc(hidden)]
pub mod diff;
#[doc(hidden)]
pub mod generate;
#[doc(hidden)]
pub mod metrics;
#[doc(hidden)]
pub mod model;
pub(crate) mod occupancy;
#[doc(hidden)]
pub mod options;
#[doc(hidden)]
pub mod size;
#[doc(hidden)]
pub mod solvers;

// What the wasm facade and the page say to each other; natively only its test of the generated
// TypeScript (and the translation into a request) compiles it.
#[cfg(any(target_arch = "wasm32", test))]
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub(crate) mod protocol;

pub use model::{
    Buffer, BufferId, Category, Details, Gap, InputError, InputErrors, Outcome, Plan, Problem, Semantics, Stats,
    StopGroup, Stopped, Window,
};
pub use options::{
    CancelFlag, Deadline, Effort, Halt, MAX_THREADS, Parameter, Params, Progress, ProgressSink, SolveError,
    SolveOptions,
};
pub use run::{Capacity, Request};
pub use solvers::{Capabilities, Solver};

#[cfg(target_arch = "wasm32")]
pub mod wasm;
