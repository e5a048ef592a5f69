// The messages between the page (main thread) and the solver worker. The worker owns the wasm
// module and its thread pool; the page only sends requests and draws what comes back.
//
// Every request carries an `id`; the worker answers it with exactly one final message carrying the
// same id (`ready`, `parsed`, `result`, `conflicts`, `exported`, `size` or `error`), and a solve may
// send `progress` messages before its `result`. `cancel` has no answer of its own: the solve it
// stops ends with its `result` (the best plan so far) or an `error` of kind `cancelled`.
//
// Values that may pass 2^53 (sizes, times, offsets) travel as BigUint64Array or decimal strings;
// the Float64Array copies are for drawing only.

/** Where an instance comes from. The worker reads it, so large inputs never pass the main thread. */
export type Source =
  | { kind: 'text'; text: string; name: string }
  | { kind: 'url'; url: string; name: string }
  | { kind: 'file'; file: File }
  | { kind: 'generate'; buffers: number; seed: string };

export interface InputError {
  line: number | null;
  column: number | null;
  message: string;
}

export interface Parameter {
  name: string;
  kind: 'int' | 'float' | 'bool' | string;
  default: string;
  description: string;
  /** The values the core accepts (it refuses others by name); ends as decimal text, `max` null when open. */
  range: { min: string; max: string | null; text: string } | null;
}

export interface SolverInfo {
  name: string;
  description: string;
  capabilities: { alignment: boolean; pinned: boolean; capacity: boolean; minimise: boolean; randomised: boolean };
  parameters: Parameter[];
}

/** `listSolvers()` of the core. */
export interface Catalogue {
  solvers: SolverInfo[];
  orders: [string, string][];
  fits: [string, string][];
  combinations: string;
  efforts: string[];
  semantics: string[];
}

/** `Instance.summary()`; u64 values as decimal strings. */
export interface Summary {
  buffers: number;
  max_load: string;
  total_size: string;
  min_size: string;
  max_size: string;
  first_start: string;
  last_end: string;
  conflicts: string;
  pinned: number;
  aligned: number;
  capacity: string | null;
  semantics: string;
  format: string;
}

/** A parsed instance, as columns. */
export interface InstanceData {
  name: string;
  n: number;
  summary: Summary;
  /** Every id concatenated; id i is `idText.slice(idOffsets[i], idOffsets[i + 1])`. */
  idText: string;
  idOffsets: Uint32Array;
  starts: BigUint64Array;
  ends: BigUint64Array;
  sizes: BigUint64Array;
  alignments: BigUint64Array;
  /** 1-based input line of each buffer (0 when unknown). */
  lines: Uint32Array;
  startsF: Float64Array;
  endsF: Float64Array;
  sizesF: Float64Array;
  /** The load as steps: from profileTimes[i] on, profileLoads[i] bytes are alive. */
  profileTimes: Float64Array;
  profileLoads: Float64Array;
  /** The text, when small enough for the editor (else null; `bytes` says how big it was). */
  text: string | null;
  bytes: number;
}

/** What the page asks of a solve (the facade's JobOptions). */
export interface SolveOptions {
  solver: string;
  capacity?: string;
  /** Seconds. */
  timeLimit?: number;
  seed?: string;
  effort?: string;
  params?: Record<string, string>;
}

export interface Progress {
  solver: string;
  best_makespan: string | null;
  lower_bound: string;
  nodes: string;
}

/** The facade's description of a solution, validated by the core's validator. */
export interface Described {
  solver: string;
  winner: unknown;
  makespan: string;
  max_load: string;
  lower_bound: string;
  fragmentation: string;
  fragmentation_pct: number;
  optimal: boolean;
  feasible: boolean;
  capacity: string | null;
  elapsed_ms: number;
  seed: string;
  stats: Record<string, unknown>;
  valid: boolean;
  violations: string[];
}

export interface SolveResult {
  described: Described;
  offsets: BigUint64Array;
  offsetsF: Float64Array;
  /** Buffer indices in the order the solver placed them. */
  order: Uint32Array;
  /** The solve was cut by a cancel (the plan is the best so far). */
  cancelled: boolean;
  /** Wall time seen by the worker, ms. */
  wallMs: number;
}

export type Request =
  | { type: 'init'; id: number; threads: number }
  | { type: 'parse'; id: number; source: Source; format: string; semantics: string }
  | { type: 'solve'; id: number; options: SolveOptions }
  | { type: 'cancel' }
  | { type: 'conflicts'; id: number; index: number }
  | { type: 'export'; id: number; offsets: BigUint64Array; format: 'csv' | 'json' }
  | { type: 'size'; id: number; text: string }
  /** Checks the offsets written in the input (when every buffer has one) as a plan. */
  | { type: 'check'; id: number; capacity: string | null };

export type ErrorKind = 'input' | 'solve' | 'cancelled' | 'internal';

export type Reply =
  | { type: 'ready'; id: number; build: 'threads' | 'single'; threads: number; isolated: boolean; catalogue: Catalogue }
  | { type: 'parsed'; id: number; instance: InstanceData }
  | { type: 'progress'; id: number; progress: Progress | null; elapsedMs: number }
  | { type: 'result'; id: number; result: SolveResult }
  | { type: 'conflicts'; id: number; indices: Uint32Array }
  | { type: 'exported'; id: number; text: string }
  | { type: 'size'; id: number; value: string }
  | { type: 'error'; id: number; kind: ErrorKind; message: string; errors?: InputError[] };
