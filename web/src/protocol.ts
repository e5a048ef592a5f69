// The messages between the page (main thread) and the solver worker. The worker owns the wasm
// module and its thread pool; the page only sends requests and draws what comes back.
//
// What the core defines (the catalogue, a solve request, a run's summary, progress, refusals) is
// generated from its Rust types into ./generated/core and imported here, never declared again.
// This file holds only the page↔worker messages and the page-side data built on those types.
//
// Every request carries an `id`; the worker answers it with exactly one final message carrying the
// same id (`ready`, `parsed`, `result`, `conflicts`, `exported`, `size`, `refused` or `failed`),
// and a solve may send `progress` messages before its `result`. `cancel` has no answer of its own:
// the solve it stops ends with its `result`, whose summary says `stopped: 'cancelled'`.
//
// Values that may pass 2^53 (sizes, times, offsets) travel as BigUint64Array, or as the core's
// `number | string` (a decimal string past 2^53 − 1); the Float64Array copies are for drawing only.
import type { Catalogue, ModelInfo, ParsedSummary, PlanDiff, Progress, Refusal, SolveRequest, Summary } from './generated/core';

/** Where an instance comes from. The worker reads it, so large inputs never pass the main thread. */
export type Source =
  | { kind: 'text'; text: string; name: string }
  | { kind: 'url'; url: string; name: string }
  | { kind: 'file'; file: File }
  | { kind: 'generate'; buffers: number; seed: string };

/** A parsed instance, as columns. */
export interface InstanceData {
  name: string;
  n: number;
  summary: ParsedSummary;
  /** Every id concatenated; id i is `idText.slice(idOffsets[i], idOffsets[i + 1])`. */
  idText: string;
  idOffsets: Uint32Array;
  /** The buffers' names (a tensor's, an HLO value's), like the ids: buffer i's is
   * `nameText.slice(nameOffsets[i], nameOffsets[i + 1])`, '' when it has none. Both are empty
   * when no buffer has a name. */
  nameText: string;
  nameOffsets: Uint32Array;
  /** What each buffer holds, as a code: 0 unknown, k the name `categoryNames[k - 1]` (input,
   * output, ...; the core's order). Empty when no buffer has a category. */
  categories: Uint8Array;
  categoryNames: string[];
  starts: BigUint64Array;
  ends: BigUint64Array;
  sizes: BigUint64Array;
  alignments: BigUint64Array;
  /** 1-based input line of each buffer (0 when unknown). */
  lines: Uint32Array;
  startsF: Float64Array;
  endsF: Float64Array;
  sizesF: Float64Array;
  /** Buffers with gaps are drawn as their live pieces: those of buffer i are
   * `pieces[4k .. 4k + 4]` (start, end, lower, upper; bytes above its offset) for k from
   * `pieceStart[i]` to `pieceStart[i + 1]`. Both are empty when no buffer has gaps. */
  pieceStart: Uint32Array;
  pieces: Float64Array;
  /** The load as steps: from profileTimes[i] on, profileLoads[i] bytes are alive. */
  profileTimes: Float64Array;
  profileLoads: Float64Array;
  /** Buffer numbers sorted by start, ties by number: the plan view's index of the buffers in a
   * time window (see view/timeblocks.ts), sorted in the worker, off the page's thread. */
  byStart: Uint32Array;
  /** `byStart` cut into blocks (see view/timeblocks.ts's `startIndex`): each block's first start
   * and latest end, also built in the worker (scattered reads over every buffer: ~10 ms at 500k
   * buffers, a task the page's thread need not run). */
  blockStart: Float64Array;
  blockMaxEnd: Float64Array;
  /** The text, when small enough for the editor (else null; `bytes` says how big it was). */
  text: string | null;
  bytes: number;
}

/** A finished run: the core's summary (why it stopped, what is proven, what the validator found)
 * and the plan's columns, empty when no plan came back (`summary.makespan` is null). */
export interface SolveResult {
  summary: Summary;
  offsets: BigUint64Array;
  offsetsF: Float64Array;
  /** Buffer indices in the order the solver placed them (empty when not reported). */
  order: Uint32Array;
  /** Wall time seen by the worker, ms. */
  wallMs: number;
}

/** Where a model file comes from (its bytes are read in the worker). */
export type ModelSource = { kind: 'file'; file: File } | { kind: 'url'; url: string; name: string };

/** An imported model: its instance (loaded in the worker like a parsed one; `text` is its CSV),
 * what it is, and the compiler's own plan, checked by the core like a solver's. */
export interface ImportedModel {
  instance: InstanceData;
  info: ModelInfo;
  compiler: SolveResult;
}

export type Request =
  | { type: 'init'; id: number; threads: number }
  | { type: 'parse'; id: number; source: Source; format: string; semantics: string }
  | { type: 'solve'; id: number; options: SolveRequest }
  | { type: 'cancel' }
  | { type: 'conflicts'; id: number; index: number }
  | { type: 'export'; id: number; offsets: BigUint64Array; format: 'csv' | 'json' }
  | { type: 'size'; id: number; text: string }
  /** Imports a model file (TFLite; told by its content) and loads its instance. */
  | { type: 'import'; id: number; source: ModelSource }
  /** What plan `b` changes from plan `a` on the loaded instance. */
  | { type: 'diff'; id: number; a: BigUint64Array; b: BigUint64Array }
  /** Checks the offsets written in the input (when every buffer has one) as a plan. */
  | { type: 'check'; id: number; capacity: string | null }
  /** Checks `offsets` (a plan of the loaded instance, e.g. a compiler's) as a plan. */
  | { type: 'checkPlan'; id: number; offsets: BigUint64Array };

export type Reply =
  | { type: 'ready'; id: number; build: 'threads' | 'single'; threads: number; isolated: boolean; catalogue: Catalogue }
  | { type: 'parsed'; id: number; instance: InstanceData }
  | { type: 'progress'; id: number; progress: Progress | null; elapsedMs: number }
  | { type: 'result'; id: number; result: SolveResult }
  | { type: 'conflicts'; id: number; indices: Uint32Array }
  | { type: 'exported'; id: number; text: string }
  | { type: 'size'; id: number; value: string }
  | { type: 'imported'; id: number; model: ImportedModel }
  | { type: 'diffed'; id: number; diff: PlanDiff }
  /** The core refused the request: the input cannot be read, or the solve cannot be served. */
  | { type: 'refused'; id: number; refusal: Refusal }
  /** Something failed that the core did not refuse (a fetch, a bug): a message for people. */
  | { type: 'failed'; id: number; message: string };

/** A value the core threw is a Refusal (the facade throws nothing else on purpose). */
export function isRefusal(thrown: unknown): thrown is Refusal {
  if (typeof thrown !== 'object' || thrown === null) return false;
  const r = thrown as Partial<Refusal>;
  return (r.kind === 'input' || r.kind === 'request') && typeof r.message === 'string' && Array.isArray(r.errors);
}
