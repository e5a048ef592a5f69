//! The `memplan` command: a thin edge over the library. It reads files, parses flags, prints one
//! JSON line or a table, and maps outcomes to exit codes: 0 ok, 1 infeasible or invalid, 2 bad
//! input or usage.

mod commands;
mod heap;
mod input;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Every allocation of the binary, counted for `memplan bench`'s peak heap column.
#[global_allocator]
static HEAP: heap::Counting = heap::Counting::new();

/// Static memory planner: gives every buffer an offset so that buffers alive at the same time
/// never overlap, within a capacity or with the smallest peak address.
#[derive(Parser, Debug)]
#[command(name = "memplan", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Args, Debug, Clone)]
pub struct InputArgs {
    /// How the file's lifetimes are meant: half-open `[start,end)` (MiniMalloc), inclusive
    /// `[start,end]` (XLA) or exclusive `(start,end)` (idealloc).
    #[arg(long, default_value = "half-open", value_parser = input::parse_semantics)]
    pub semantics: memplan::Semantics,
    /// The file format; by default from the extension, else from the content.
    #[arg(long, value_parser = input::parse_format)]
    pub format: Option<memplan::format::Format>,
}

#[derive(clap::Args, Debug, Clone)]
pub struct SolveArgs {
    /// Capacity in bytes (suffixes allowed: 64KiB, 1MiB, 2GB).
    #[arg(long)]
    pub capacity: Option<String>,
    /// Stop after this many seconds and return the best plan so far.
    #[arg(long, value_name = "SECS")]
    pub time_limit: Option<f64>,
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// How hard `auto` works: low, normal or high.
    #[arg(long, default_value = "normal", value_parser = input::parse_effort)]
    pub effort: memplan::Effort,
    /// A solver-specific setting, `name=value` (repeatable; `memplan solvers` lists them).
    #[arg(long = "param", value_name = "NAME=VALUE", value_parser = memplan::Params::parse_assignment)]
    pub params: Vec<(String, String)>,
    /// Iterations of an iterating solver (idealloc): short for `--param iterations=N`.
    #[arg(long, value_name = "N")]
    pub iterations: Option<u64>,
    /// Stop once fragmentation is at most this percentage of the max load (idealloc): short for
    /// `--param target-frag=PCT`.
    #[arg(long, value_name = "PCT")]
    pub target_frag: Option<f64>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Plan a buffer list and print one JSON line with the result and why the run stopped
    /// (`stopped`: lower_bound, optimal, fits, infeasible, completed, budget, time_limit, cancelled).
    Solve {
        /// A MiniMalloc CSV or JSON file, or `-` for standard input.
        file: String,
        #[arg(long, default_value = "auto")]
        solver: String,
        #[command(flatten)]
        solve: SolveArgs,
        #[command(flatten)]
        input: InputArgs,
        /// Write the plan here: `.csv` (MiniMalloc, with an `offset` column) or `.json`; `-` prints
        /// it to standard output (in the input's format) and the JSON line to standard error.
        /// Without it the plan is not kept.
        #[arg(long, value_name = "PLAN")]
        out: Option<String>,
        /// Start from this plan of the same buffers (`.csv` or `.json` with an `offset` for every
        /// buffer, matched by id), e.g. a compiler's: it is checked first, the search solvers and
        /// `auto` start from it, and the answer is never higher than it (`winner` is `warm` when
        /// nothing beat it); after a saving, the buffers that moved for nothing go back to it.
        #[arg(long, value_name = "PLAN")]
        warm: Option<String>,
    },
    /// Compare two plans of one instance: the peak of each, the bytes B saves on A (and %), and the
    /// buffers that moved. One JSON line on standard output, a table on standard error. Both plans
    /// are checked against the instance first.
    Diff {
        /// The instance (buffers without offsets, or with pinned ones).
        instance: String,
        /// The reference plan, e.g. the compiler's (`import --compiler-plan`).
        a: String,
        /// The plan compared with it, e.g. `solve --out`'s.
        b: String,
        /// Moved buffers listed in the table (all are in the JSON line).
        #[arg(long, default_value_t = 20, value_name = "N")]
        list: usize,
        #[command(flatten)]
        input: InputArgs,
    },
    /// Check a plan file (buffers with an `offset` column); exit 1 with the reason when invalid.
    Check {
        plan: String,
        /// Capacity in bytes (suffixes allowed: 64KiB, 1MiB, 2GB).
        #[arg(long)]
        capacity: Option<String>,
        #[command(flatten)]
        input: InputArgs,
    },
    /// Print buffers, max load, size range, time span and conflicts of a buffer list.
    Stats {
        file: String,
        #[command(flatten)]
        input: InputArgs,
    },
    /// Run solvers on instances and print a table of makespan, fragmentation and time.
    Bench {
        #[arg(required = true)]
        files: Vec<String>,
        /// Comma-separated solver names.
        #[arg(long, default_value = "slff,tflite,xla,tvm,first-fit-start,auto", value_delimiter = ',')]
        solvers: Vec<String>,
        #[command(flatten)]
        solve: SolveArgs,
        #[command(flatten)]
        input: InputArgs,
        /// CSV instead of a markdown table.
        #[arg(long)]
        csv: bool,
        /// Runs per cell; the median time is reported.
        #[arg(long, default_value_t = 1)]
        repeat: usize,
        /// Other planners' published figures (a JSON array, e.g. `public/examples/peers.json`;
        /// repeat the flag for several files): adds each instance's best one under the bench's
        /// capacity as the `best peer` column.
        #[arg(long, value_name = "FILE")]
        peers: Vec<String>,
    },
    /// Write a random trace (MiniMalloc CSV) shaped like an ML program's buffers, from a seed.
    Generate {
        #[arg(long)]
        buffers: usize,
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// `trace` (ML-like), TelaMalloc's microbenchmarks `non-overlapping` and `full-overlap`
        /// (with a capacity, which only `.json` keeps), `perfect` (a 1 MiB rectangle cut into
        /// buffers with no waste, so that the optimum is L), `aligned` (small, mixed alignments 1
        /// to 4096, sizes not multiples of them), or a perfect packing of 1 MiB built another way:
        /// `guillotine`, `pinwheel`, `staircase`, `equal-sizes`, `power-of-two` (aligned to their
        /// sizes) or `towers` (long-lived towers, short-lived sand, full at one moment only).
        #[arg(long, default_value = "trace", value_parser = input::parse_shape)]
        shape: memplan::generate::Shape,
        /// Write here instead of standard output (`.csv` or `.json`).
        #[arg(long, value_name = "FILE")]
        out: Option<String>,
    },
    /// Import a TFLite model, an ExecuTorch program or an XLA dump, told apart by the file ("TFL3"
    /// or "ET12" magic; otherwise a `.pb` file is an XLA `HloProto`). TFLite: the instance LiteRT's
    /// arena planner solves for one subgraph (one buffer per tensor it plans, id = tensor index,
    /// name = tensor name). ExecuTorch (`.pte`): one buffer per planned storage of the first
    /// method (id = its first tensor's value index, name = type and shape), times = instructions.
    /// XLA: the instance XLA's heap simulator solved for one trace (one buffer per group of values
    /// sharing memory, id = logical buffer id, name = defining instruction). Prints one JSON line
    /// of counts. `--compiler-plan` also writes the compiler's own offsets (LiteRT: memplan's
    /// `tflite` preset, which reproduces it; XLA: its buffer assignment); `--write-model` with
    /// `--plan` writes a TFLite model with a plan as TFLite Micro's `OfflineMemoryAllocation`
    /// metadata.
    Import {
        /// The `.tflite` file, or the XLA dump (`*.cpu_after_optimizations.hlo.pb`, written with
        /// `XLA_FLAGS=--xla_dump_to=DIR --xla_dump_hlo_as_proto`).
        model: String,
        /// Write the instance here (`.csv` or `.json`; `-` prints it as CSV, and the JSON line goes
        /// to standard error).
        #[arg(short = 'o', long = "out", value_name = "INSTANCE")]
        out: Option<String>,
        /// Which subgraph (0 is the main one; others, e.g. loop bodies, are instances of their own).
        #[arg(long, default_value_t = 0)]
        subgraph: usize,
        /// XLA: which heap simulator trace (the JSON line lists them; by default the one with the
        /// most events).
        #[arg(long, value_name = "N")]
        trace: Option<usize>,
        /// Write the compiler's plan for the instance (`.csv` or `.json`): LiteRT's arena planner
        /// (the `tflite` preset on the imported instance), ExecuTorch's offsets from the program,
        /// or XLA's offsets from its buffer assignment.
        #[arg(long, value_name = "PLAN")]
        compiler_plan: Option<String>,
        /// The size of each dynamic dimension (`-1` in a tensor's `shape_signature`).
        #[arg(long, default_value_t = 1, value_name = "N")]
        dynamic_dim: u64,
        /// The alignment of every offset (LiteRT's arena and XLA:CPU: 64; ExecuTorch's planner: 16).
        #[arg(long)]
        alignment: Option<u64>,
        /// ExecuTorch: which planned memory (`mem_id`; 1 is the default arena).
        #[arg(long, value_name = "ID")]
        memory_id: Option<u32>,
        /// Whose arena to describe: `litert` (LiteRT, the default) or `micro` (TFLite Micro, which
        /// is the runtime that reads `--write-model`'s offline plan: no in-place sharing, graph
        /// inputs freed after their last reader).
        #[arg(long = "for", value_name = "RUNTIME", default_value = "litert", value_parser = input::parse_runtime)]
        runtime: memplan::import::tflite::Runtime,
        /// Write the model with `--plan`: a TFLite model gets it as TFLite Micro's offline plan
        /// (`OfflineMemoryAllocation` metadata: each tensor in the arena gets its buffer's offset,
        /// every other tensor -1); an ExecuTorch program gets it as its tensors' allocations, with
        /// the arena's size set to the plan's makespan.
        #[arg(long, value_name = "OUT", requires = "plan")]
        write_model: Option<String>,
        /// A plan for this instance (e.g. `memplan solve INSTANCE --out PLAN.csv`), ids = tensor
        /// indices; checked against the instance before it is written.
        #[arg(long, value_name = "PLAN", requires = "write_model")]
        plan: Option<String>,
        #[command(flatten)]
        input: InputArgs,
    },
    /// List the solvers with a line each.
    Solvers {
        /// As JSON, with capabilities.
        #[arg(long)]
        json: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.command {
        Command::Solve { file, solver, solve, input, out, warm } => {
            commands::solve(&file, &solver, &solve, &input, out.as_deref(), warm.as_deref())
        }
        Command::Diff { instance, a, b, list, input } => commands::diff(&instance, &a, &b, list, &input),
        Command::Check { plan, capacity, input } => commands::check(&plan, capacity.as_deref(), &input),
        Command::Stats { file, input } => commands::stats(&file, &input),
        Command::Bench { files, solvers, solve, input, csv, repeat, peers } => {
            commands::bench(&files, &solvers, &solve, &input, csv, repeat, &peers)
        }
        Command::Generate { buffers, seed, shape, out } => commands::generate(buffers, seed, shape, out.as_deref()),
        Command::Solvers { json } => commands::solvers(json),
        Command::Import {
            model,
            out,
            subgraph,
            trace,
            compiler_plan,
            dynamic_dim,
            alignment,
            memory_id,
            runtime,
            write_model,
            plan,
            input,
        } => {
            let files = commands::ImportFiles {
                out: out.as_deref(),
                compiler_plan: compiler_plan.as_deref(),
                write_model: write_model.as_deref(),
                plan: plan.as_deref(),
            };
            let settings = commands::ImportSettings { subgraph, trace, dynamic_dim, alignment, memory_id, runtime };
            commands::import_any(&model, &settings, &files, &input)
        }
    };
    match outcome {
        Ok(code) => code,
        Err(failure) => {
            eprintln!("memplan: {}", failure.message);
            ExitCode::from(failure.code)
        }
    }
}

/// A message for standard error and the exit code that goes with it.
pub struct Failure {
    pub code: u8,
    pub message: String,
}

impl Failure {
    pub fn bad_input(message: impl Into<String>) -> Self {
        Failure { code: 2, message: message.into() }
    }

    /// A plan that breaks a rule of its instance (exit 1, as a run without a plan).
    pub fn invalid_plan(message: impl Into<String>) -> Self {
        Failure { code: 1, message: message.into() }
    }

    /// memplan's own fault, not the input's (a solver's plan the validator refused): exit 1, as
    /// the README says of an invalid plan, and a message that says whose fault it is.
    pub fn internal(message: impl std::fmt::Display) -> Self {
        Failure { code: 1, message: format!("internal error: {message}") }
    }
}
