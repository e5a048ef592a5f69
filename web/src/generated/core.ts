// Generated from the Rust types of crate/src/protocol.rs and the types it names; do not edit.
// To regenerate: MEMPLAN_WRITE_TYPES=1 cargo test -p memplan --lib protocol
// Integers that may pass 2^53 are `number | string` (a decimal string past 2^53 - 1).

export type Stopped = "lower_bound" | "optimal" | "fits" | "infeasible" | "completed" | "given" | "budget" | "time_limit" | "cancelled";

export type StopGroup = "proven" | "heuristic" | "interrupted" | "infeasible";

export type Summary = { 
/**
 * The solver asked for.
 */
solver: string, 
/**
 * For `auto`, the member whose plan this is; `warm` when the caller's warm start plan is the
 * answer (no solver found a lower one).
 */
winner: string | null, 
/**
 * The makespan of the caller's warm start plan (`solve --warm`), when one was given.
 */
warm_start: number | string | null, buffers: number, 
/**
 * The most bytes alive at once (L).
 */
max_load: number | string, 
/**
 * A proven lower bound on every plan's makespan.
 */
lower_bound: number | string, makespan: number | string | null, 
/**
 * The capacity the run was held to, if any.
 */
capacity: number | string | null, 
/**
 * makespan − L.
 */
fragmentation: number | string | null, 
/**
 * Fragmentation as a percentage of L.
 */
fragmentation_pct: number | null, 
/**
 * Why the run stopped.
 */
stopped: Stopped, 
/**
 * `stopped` in words, as shown next to a result.
 */
verdict: string, 
/**
 * What was proven or why no plan came back, for people (never needed to act).
 */
detail: string | null, 
/**
 * The plan's makespan is proven to be the lowest possible.
 */
optimal: boolean, 
/**
 * A plan came back and it is within the capacity (any plan, without one).
 */
feasible: boolean, 
/**
 * The independent validator accepted the plan and every claim about it.
 */
valid: boolean, 
/**
 * What the validator found wrong, a sentence each.
 */
violations: Array<string>, elapsed_ms: number, seed: number | string, 
/**
 * Solver statistics, for people and benchmarks.
 */
stats: Record<string, number | string>, };

export type Progress = { 
/**
 * The solver (or portfolio member) reporting.
 */
solver: string, 
/**
 * The lowest makespan found so far.
 */
best_makespan: number | string | null, 
/**
 * The best lower bound proven so far.
 */
lower_bound: number | string, 
/**
 * Work done so far, in the solver's own unit (capacity probes of a minimisation).
 */
nodes: number | string, };

export type JobStatus = { "state": "running", progress: Progress | null, } | { "state": "done", summary: Summary, };

export type SolveRequest = { solver: string, 
/**
 * A size such as `1MiB`; empty or absent for none.
 */
capacity?: string, 
/**
 * Seconds; absent for none.
 */
timeLimit?: number, 
/**
 * A decimal u64, so that any seed survives JavaScript.
 */
seed?: string, effort?: Effort, 
/**
 * Solver-specific settings by name (see [`SolverInfo::parameters`]), as text.
 */
params?: { [key in string]?: string }, 
/**
 * A plan to start from and keep where it costs nothing (a compiler's, one offset per buffer)
 * as decimal u64s, exact past 2^53; absent for none.
 */
warmStart?: Array<string>, };

export type Refusal = { kind: RefusalKind, 
/**
 * One line for a status bar.
 */
message: string, 
/**
 * Every problem with the input, each with its line and column when known.
 */
errors: Array<InputError>, };

export type RefusalKind = "input" | "request";

export type InputError = { 
/**
 * 1-based line in the input text.
 */
line: number | null, 
/**
 * 1-based column (character) in that line.
 */
column: number | null, message: string, };

export type Semantics = "half-open" | "inclusive" | "exclusive";

export type Format = "csv" | "json";

export type Note = { line: number | null, column: number | null, message: string, };

export type InstanceSummary = { buffers: number, 
/**
 * The most bytes alive at once (L).
 */
max_load: number | string, 
/**
 * The instance's own lower bound: L, pinned tops and alignment.
 */
lower_bound: number | string, 
/**
 * The sum of all sizes (it may pass u64).
 */
total_size: number | string, min_size: number | string, max_size: number | string, first_start: number | string, last_end: number | string, 
/**
 * Pairs of buffers alive at the same time (gaps honoured).
 */
conflicts: number | string, pinned: number, aligned: number, 
/**
 * Buffers with gaps.
 */
gapped: number, 
/**
 * The instance's own capacity, if it has one.
 */
capacity: number | string | null, 
/**
 * What the input's times meant.
 */
semantics: Semantics, };

export type ParsedSummary = { 
/**
 * The format the text was read as.
 */
format: Format, 
/**
 * What the reader did that is no error (an ignored column, shifted times).
 */
notes: Array<Note>, buffers: number, 
/**
 * The most bytes alive at once (L).
 */
max_load: number | string, 
/**
 * The instance's own lower bound: L, pinned tops and alignment.
 */
lower_bound: number | string, 
/**
 * The sum of all sizes (it may pass u64).
 */
total_size: number | string, min_size: number | string, max_size: number | string, first_start: number | string, last_end: number | string, 
/**
 * Pairs of buffers alive at the same time (gaps honoured).
 */
conflicts: number | string, pinned: number, aligned: number, 
/**
 * Buffers with gaps.
 */
gapped: number, 
/**
 * The instance's own capacity, if it has one.
 */
capacity: number | string | null, 
/**
 * What the input's times meant.
 */
semantics: Semantics, };

export type Effort = "low" | "normal" | "high";

export type Parameter = { name: string, 
/**
 * `int`, `float` or `bool`: how the page draws the control.
 */
kind: string, 
/**
 * The value used when the parameter is not set, as text.
 */
default: string, description: string, 
/**
 * The values accepted (`None` for a `bool`).
 */
range: { min: string, max: string | null, text: string } | null, };

export type Capabilities = { alignment: boolean, pinned: boolean, 
/**
 * It uses the capacity to steer the search (greedy planners only report whether they fit).
 */
capacity: boolean, 
/**
 * It proves lower bounds beyond L.
 */
minimise: boolean, 
/**
 * Its result depends on the seed.
 */
randomised: boolean, 
/**
 * It searches from a start plan ([`SolveOptions::start`]) and does better with a good one:
 * callers that have one (the run, the portfolio) pass it in.
 */
warm_start: boolean, 
/**
 * It uses buffers' gaps (conflicts only where live pieces meet). A solver without it is given
 * the buffers' hulls ([`crate::Problem::hull`]), which gives valid plans, only looser.
 */
gaps: boolean, 
/**
 * It uses windowed gaps too. A solver with `gaps` but without it is given them as alive
 * (plain gaps kept): valid plans, only looser.
 */
windows: boolean, 
/**
 * It is given zero-size buffers, as conflicts of the buffers alive with them: a planner that
 * reproduces a compiler whose order or offsets they change (TVM's count them). A solver
 * without it never sees them (they occupy nothing) and they are placed at their pin or 0.
 */
zero_size: boolean, };

export type SolverInfo = { name: string, description: string, capabilities: Capabilities, parameters: Array<Parameter>, };

export type Choice = { name: string, description: string, };

export type Catalogue = { solvers: Array<SolverInfo>, 
/**
 * The greedy orders and fits that `greedy-<order>-<fit>` combines.
 */
orders: Array<Choice>, fits: Array<Choice>, 
/**
 * A line describing the combinations.
 */
combinations: string, efforts: Array<Effort>, semantics: Array<Semantics>, 
/**
 * The most threads a solve may use.
 */
max_threads: number, };

export type MovedBuffer = { 
/**
 * Its index in the instance.
 */
index: number, id: string, name: string | null, size: number | string, 
/**
 * Its offset in plan A.
 */
from: number | string, 
/**
 * Its offset in plan B.
 */
to: number | string, };

export type PlanDiff = { buffers: number, 
/**
 * The most bytes alive at once (L): no plan's peak is lower.
 */
max_load: number | string, 
/**
 * Plan A's peak address (its makespan).
 */
peak_a: number | string, peak_b: number | string, 
/**
 * peak_a − peak_b: negative when B needs more.
 */
saved_bytes: number | string, 
/**
 * `saved_bytes` as a percentage of peak_a (0 when peak_a is 0).
 */
saved_pct: number, 
/**
 * How many buffers are at another offset in B.
 */
moved: number, 
/**
 * Those buffers, in instance order.
 */
moved_buffers: Array<MovedBuffer>, };

export type ModelKind = "tflite" | "xla" | "pte";

export type ModelInfo = { kind: ModelKind, 
/**
 * The file name it came with.
 */
name: string, 
/**
 * Whose plan `compiler_plan` is, in words.
 */
compiler: string, 
/**
 * The buffers of the instance.
 */
buffers: number, 
/**
 * The model's steps: a TFLite graph's operators; an XLA trace's values (logical buffers
 * before sharing is merged).
 */
operators: number, };

/** Which group each stop reason belongs to (the core's `Stopped::group`). */
export const STOP_GROUPS: Record<Stopped, StopGroup> = {
  lower_bound: 'proven',
  optimal: 'proven',
  fits: 'proven',
  infeasible: 'infeasible',
  completed: 'heuristic',
  given: 'heuristic',
  budget: 'interrupted',
  time_limit: 'interrupted',
  cancelled: 'interrupted',
};
