// The page's side of the worker protocol: promises for requests, and cancellation. In the threaded
// build a cancel sets the job's flag and the solver stops within milliseconds; the single-threaded
// build is busy inside the solve and cannot read messages, so a cancel ends the worker, starts a
// new one and loads the current instance into it again: that solve ends without a summary (an
// EngineError of kind `ended`).
import type { Catalogue, InputError, PlanDiff, Progress, RefusalKind, SolveRequest } from './generated/core';
import type { ImportedModel, InstanceData, ModelSource, Reply, Request, SolveResult, Source } from './protocol';

export interface EngineInfo {
  build: 'threads' | 'single';
  threads: number;
  isolated: boolean;
  catalogue: Catalogue;
}

/** A request that ended without its answer: the core refused it (`input`: the text or a size
 * cannot be read, `errors` locate each problem; `request`: the solve cannot be served), the page
 * ended the worker meanwhile (`ended`: a cancel in the single-threaded build, a restart), or
 * something else failed (`failed`: a fetch, the worker itself). */
export type FailureKind = RefusalKind | 'ended' | 'failed';

export class EngineError extends Error {
  constructor(
    readonly kind: FailureKind,
    message: string,
    readonly errors: InputError[] = [],
  ) {
    super(message);
  }
}

interface Pending {
  resolve: (reply: Reply) => void;
  reject: (error: EngineError) => void;
  onProgress?: (progress: Progress | null, elapsedMs: number) => void;
}

type ParseRequest = { source: Source; format: string; semantics: string };

export class Engine {
  private worker!: Worker;
  private nextId = 1;
  private pending = new Map<number, Pending>();
  private lastParse: ParseRequest | null = null;
  private solving: number | null = null;
  info: EngineInfo | null = null;
  /** Called when the worker is replaced (after a cancel in the single-threaded build). */
  onRestart: (() => void) | null = null;

  constructor(private threads: number) {}

  async start(threads = this.threads): Promise<EngineInfo> {
    this.threads = threads;
    this.worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' });
    this.worker.onmessage = (event: MessageEvent<Reply>) => this.receive(event.data);
    this.worker.onerror = (event) => {
      for (const [, p] of this.pending) p.reject(new EngineError('failed', event.message || 'worker failed'));
      this.pending.clear();
    };
    const ready = await this.request({ type: 'init', id: 0, threads });
    if (ready.type !== 'ready') throw new EngineError('failed', 'worker did not start');
    this.info = { build: ready.build, threads: ready.threads, isolated: ready.isolated, catalogue: ready.catalogue };
    return this.info;
  }

  /** Ends the worker and starts a new one with `threads` threads, reloading the current instance. */
  async restart(threads = this.threads): Promise<EngineInfo> {
    this.worker.terminate();
    for (const [, p] of this.pending) p.reject(new EngineError('ended', 'the worker was restarted'));
    this.pending.clear();
    this.solving = null;
    // Posted back to back: the worker runs them in order, and so any request made meanwhile waits
    // for the instance to be loaded again.
    const started = this.start(threads);
    const last = this.lastParse;
    const reparsed = last ? this.parse(last.source, last.format, last.semantics) : null;
    const info = await started;
    await reparsed;
    this.onRestart?.();
    return info;
  }

  private receive(reply: Reply) {
    const pending = this.pending.get(reply.id);
    if (!pending) return;
    if (reply.type === 'progress') {
      pending.onProgress?.(reply.progress, reply.elapsedMs);
      return;
    }
    this.pending.delete(reply.id);
    if (reply.type === 'refused') pending.reject(new EngineError(reply.refusal.kind, reply.refusal.message, reply.refusal.errors));
    else if (reply.type === 'failed') pending.reject(new EngineError('failed', reply.message));
    else pending.resolve(reply);
  }

  private request(request: Request, onProgress?: Pending['onProgress'], transfer: Transferable[] = []): Promise<Reply> {
    const id = this.nextId++;
    const message = { ...request, id } as Request;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onProgress });
      this.worker.postMessage(message, transfer);
    });
  }

  async parse(source: Source, format: string, semantics: string): Promise<InstanceData> {
    const reply = await this.request({ type: 'parse', id: 0, source, format, semantics });
    if (reply.type !== 'parsed') throw new EngineError('failed', 'unexpected reply');
    this.lastParse = { source, format, semantics };
    return reply.instance;
  }

  /** Imports a model (TFLite) and loads its instance; a restart reloads that instance from its CSV. */
  async importModel(source: ModelSource): Promise<ImportedModel> {
    const reply = await this.request({ type: 'import', id: 0, source });
    if (reply.type !== 'imported') throw new EngineError('failed', 'unexpected reply');
    const { instance } = reply.model;
    this.lastParse = { source: { kind: 'text', text: instance.text ?? '', name: instance.name }, format: 'csv', semantics: 'half-open' };
    return reply.model;
  }

  /** What plan `b` changes from plan `a` on the loaded instance (both checked by the core). */
  async diff(a: BigUint64Array, b: BigUint64Array): Promise<PlanDiff> {
    const reply = await this.request({ type: 'diff', id: 0, a: a.slice(), b: b.slice() });
    if (reply.type !== 'diffed') throw new EngineError('failed', 'unexpected reply');
    return reply.diff;
  }

  /** Solves the loaded instance; the result's summary says why the run stopped (a cancel in the
   * threaded build ends it with `stopped: 'cancelled'`). */
  async solve(options: SolveRequest, onProgress?: Pending['onProgress']): Promise<SolveResult> {
    const id = this.nextId;
    this.solving = id;
    try {
      const reply = await this.request({ type: 'solve', id: 0, options }, onProgress);
      if (reply.type !== 'result') throw new EngineError('failed', 'unexpected reply');
      return reply.result;
    } finally {
      if (this.solving === id) this.solving = null;
    }
  }

  get busy(): boolean {
    return this.solving !== null;
  }

  /** Stops the running solve. */
  async cancel(): Promise<void> {
    if (this.solving === null) return;
    if (this.info?.build === 'threads') {
      this.worker.postMessage({ type: 'cancel' } satisfies Request);
    } else {
      await this.restart();
    }
  }

  /** The input's own offsets as a plan, checked by the core's validator. */
  async checkInputPlan(capacity: string | null): Promise<SolveResult> {
    const reply = await this.request({ type: 'check', id: 0, capacity });
    if (reply.type !== 'result') throw new EngineError('failed', 'unexpected reply');
    return reply.result;
  }

  /** `offsets` as a plan of the loaded instance, checked by the core's validator (a compiler's
   * plan that a share link carried). */
  async checkPlan(offsets: BigUint64Array): Promise<SolveResult> {
    const reply = await this.request({ type: 'checkPlan', id: 0, offsets: offsets.slice() });
    if (reply.type !== 'result') throw new EngineError('failed', 'unexpected reply');
    return reply.result;
  }

  async conflicts(index: number): Promise<Uint32Array> {
    const reply = await this.request({ type: 'conflicts', id: 0, index });
    return reply.type === 'conflicts' ? reply.indices : new Uint32Array();
  }

  async exportPlan(offsets: BigUint64Array, format: 'csv' | 'json'): Promise<string> {
    // A copy: the caller keeps its offsets.
    const reply = await this.request({ type: 'export', id: 0, offsets: offsets.slice(), format });
    return reply.type === 'exported' ? reply.text : '';
  }

  /** Checks a size such as `1MiB` with the core's parser; the decimal value, or an EngineError of
   * kind `input` saying why not. */
  async parseSize(text: string): Promise<string> {
    const reply = await this.request({ type: 'size', id: 0, text });
    return reply.type === 'size' ? reply.value : '';
  }
}
