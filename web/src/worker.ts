/// <reference lib="webworker" />
// The solver worker: owns the wasm core and (in the threaded build) its rayon thread pool. It picks
// the threaded build only when the page is cross-origin isolated (see wasmload.ts); otherwise the
// single-threaded one. All parsing, solving and exporting happens here.
import type { Catalogue, JobStatus, ModelInfo, ParsedSummary, PlanDiff, SolveRequest, Summary } from './generated/core';
import { isRefusal, type InstanceData, type ModelSource, type Reply, type Request, type SolveResult, type Source } from './protocol';
import { sortByStart, startIndex } from './view/timeblocks';
import { loadWasm, type Wasm } from './wasmload';

type Instance = InstanceType<Wasm['Instance']>;

declare const self: DedicatedWorkerGlobalScope;

/** Texts up to this size go back to the page's editor; larger ones stay here. */
const EDITOR_LIMIT = 512 * 1024;
/** How often a running threaded job is polled, ms. */
const POLL_MS = 25;
/** How often a running solve reports progress to the page, ms. Each report makes the page lay out
 * and paint again, on a core the solver threads could use; the elapsed time is drawn by the page. */
const PROGRESS_MS = 250;

let wasm: Wasm | null = null;
let instance: Instance | null = null;
let running: { id: number; cancel: () => void } | null = null;

const post = (reply: Reply, transfer: Transferable[] = []) => self.postMessage(reply, transfer);

async function init(id: number, threads: number) {
  const module = await loadWasm(threads);
  wasm = module;
  post({
    type: 'ready',
    id,
    build: module.buildKind() === 'threads' ? 'threads' : 'single',
    threads: module.numThreads(),
    isolated: self.crossOriginIsolated === true,
    catalogue: module.listSolvers() as Catalogue,
  });
}

async function readSource(source: Source): Promise<{ text: string; name: string }> {
  switch (source.kind) {
    case 'text':
      return { text: source.text, name: source.name };
    case 'url': {
      const response = await fetch(source.url);
      if (!response.ok) throw new Error(`${source.url}: ${response.status} ${response.statusText}`);
      return { text: await response.text(), name: source.name };
    }
    case 'file':
      return { text: await source.file.text(), name: source.file.name };
    case 'generate':
      return {
        text: wasm!.generateTrace(source.buffers, BigInt(source.seed || '0')),
        name: `generated ${source.buffers} buffers, seed ${source.seed || '0'}`,
      };
  }
}

const toFloat = (values: BigUint64Array) => {
  const out = new Float64Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = Number(values[i]);
  return out;
};

async function parse(id: number, source: Source, format: string, semantics: string) {
  const { text, name } = await readSource(source);
  // Throws a Refusal listing every problem with its line and column (posted by the queue).
  const parsed = new wasm!.Instance(text, format, semantics);
  instance?.free();
  instance = parsed;
  const { data, transfer } = instanceData(parsed, name, text);
  post({ type: 'parsed', id, instance: data }, transfer);
}

/** A model file (TFLite, told by its content) imported by the core: its instance becomes the
 * loaded one (its text the instance as CSV, ids the compiler's), with the compiler's own plan. */
async function importModel(id: number, source: ModelSource) {
  const response = source.kind === 'url' ? await fetch(source.url) : null;
  if (response && !response.ok) throw new Error(`${source.kind === 'url' ? source.url : ''}: ${response.status} ${response.statusText}`);
  const bytes = new Uint8Array(response ? await response.arrayBuffer() : await (source as { file: File }).file.arrayBuffer());
  const name = source.kind === 'url' ? source.name : source.file.name;
  // Throws a Refusal saying why the model cannot be read (posted by the queue).
  const model = wasm!.importModel(bytes, name);
  const imported = model.instance();
  const info = model.info() as ModelInfo;
  const plan = model.compilerPlan();
  model.free();
  instance?.free();
  instance = imported;
  const { data, transfer } = instanceData(imported, name, imported.export(new BigUint64Array(), 'csv'));
  const began = performance.now();
  const summary = imported.checkPlan(plan) as Summary;
  const compiler: SolveResult = { summary, offsets: plan, offsetsF: toFloat(plan), order: new Uint32Array(), wallMs: performance.now() - began };
  transfer.push(compiler.offsets.buffer as ArrayBuffer, compiler.offsetsF.buffer as ArrayBuffer);
  post({ type: 'imported', id, model: { instance: data, info, compiler } }, transfer);
}

/** The loaded instance as the columns the page draws from. */
function instanceData(parsed: Instance, name: string, text: string): { data: InstanceData; transfer: ArrayBuffer[] } {
  const ids = parsed.ids();
  const idOffsets = new Uint32Array(ids.length + 1);
  for (let i = 0; i < ids.length; i++) idOffsets[i + 1] = idOffsets[i] + ids[i].length;
  const starts = parsed.starts();
  const ends = parsed.ends();
  const sizes = parsed.sizes();
  const profile = parsed.loadProfile() as { times: BigUint64Array; loads: BigUint64Array };
  const { pieceStart, pieces } = livePieces(parsed.pieces(), parsed.length);
  const { nameText, nameOffsets } = bufferNames(parsed);
  const categories = parsed.categories();
  const data: InstanceData = {
    name,
    n: parsed.length,
    summary: parsed.summary() as ParsedSummary,
    idText: ids.join(''),
    idOffsets,
    nameText,
    nameOffsets,
    categories,
    categoryNames: categories.length ? wasm!.categoryNames() : [],
    starts,
    ends,
    sizes,
    alignments: parsed.alignments(),
    lines: parsed.lines(),
    startsF: toFloat(starts),
    endsF: toFloat(ends),
    sizesF: toFloat(sizes),
    pieceStart,
    pieces,
    profileTimes: toFloat(profile.times),
    profileLoads: toFloat(profile.loads),
    byStart: new Uint32Array(0), // below, from startsF
    blockStart: new Float64Array(0),
    blockMaxEnd: new Float64Array(0),
    text: text.length <= EDITOR_LIMIT ? text : null,
    bytes: text.length,
  };
  data.byStart = sortByStart(data.startsF);
  const index = startIndex(data.byStart, data.startsF, data.endsF);
  data.blockStart = index.blockStart;
  data.blockMaxEnd = index.blockMaxEnd;
  const transfer = [
    data.byStart, data.blockStart, data.blockMaxEnd, data.idOffsets, data.nameOffsets, data.categories, data.starts, data.ends, data.sizes, data.alignments, data.lines,
    data.startsF, data.endsF, data.sizesF, data.pieceStart, data.pieces, data.profileTimes, data.profileLoads,
  ].map((a) => a.buffer as ArrayBuffer);
  return { data, transfer };
}

/** The buffers' names, as the ids: one string and the offsets into it; both empty without names. */
function bufferNames(parsed: Instance): { nameText: string; nameOffsets: Uint32Array } {
  const names = parsed.names();
  if (names.length === 0) return { nameText: '', nameOffsets: new Uint32Array(0) };
  const nameOffsets = new Uint32Array(names.length + 1);
  for (let i = 0; i < names.length; i++) nameOffsets[i + 1] = nameOffsets[i] + names[i].length;
  return { nameText: names.join(''), nameOffsets };
}

/** The core's flat pieces (index, start, end, lower, upper, by buffer) as per-buffer ranges into
 * a flat list of (start, end, lower, upper); both empty when no buffer has gaps. */
function livePieces(flat: BigUint64Array, n: number): { pieceStart: Uint32Array; pieces: Float64Array } {
  if (flat.length === 0) return { pieceStart: new Uint32Array(0), pieces: new Float64Array(0) };
  const count = flat.length / 5;
  const pieceStart = new Uint32Array(n + 1);
  const pieces = new Float64Array(count * 4);
  for (let k = 0; k < count; k++) {
    pieceStart[Number(flat[5 * k]) + 1]++;
    for (let f = 0; f < 4; f++) pieces[4 * k + f] = Number(flat[5 * k + 1 + f]);
  }
  for (let i = 0; i < n; i++) pieceStart[i + 1] += pieceStart[i];
  return { pieceStart, pieces };
}

function postResult(id: number, summary: Summary, offsets: BigUint64Array, order: Uint32Array, began: number) {
  const result: SolveResult = { summary, offsets, offsetsF: toFloat(offsets), order, wallMs: performance.now() - began };
  post({ type: 'result', id, result }, [result.offsets.buffer, result.offsetsF.buffer, result.order.buffer] as ArrayBuffer[]);
}

/** Starts a solve and polls it until the core says it is done; the summary says why it stopped
 * (a cancelled solve is done too, with its best plan so far or none). */
function solve(id: number, request: SolveRequest) {
  if (!wasm || !instance) {
    post({ type: 'failed', id, message: 'no instance loaded' });
    return;
  }
  const began = performance.now();
  // Throws a Refusal when the request cannot be served (posted by the queue).
  const job = wasm.Job.start(instance, request);
  running = { id, cancel: () => job.cancel() };
  let reported = -Infinity;
  const poll = () => {
    let status: JobStatus;
    try {
      status = job.poll() as JobStatus;
    } catch (thrown) {
      running = null;
      job.free();
      postThrown(id, thrown);
      return;
    }
    if (status.state === 'running') {
      const now = performance.now();
      if (now - reported >= PROGRESS_MS) {
        reported = now;
        post({ type: 'progress', id, progress: status.progress, elapsedMs: now - began });
      }
      setTimeout(poll, POLL_MS);
      return;
    }
    running = null;
    postResult(id, status.summary, job.offsets(), job.placementOrder(), began);
    job.free();
  };
  // The single-threaded build has solved inside `start`; the threaded one solves on the pool.
  poll();
}

/** The input's own offsets as a plan, checked by the core like any solver's (throws a Refusal
 * when the input has no offset for every buffer or the capacity cannot be read). */
function check(id: number, capacity: string | null) {
  if (!instance) {
    post({ type: 'failed', id, message: 'no instance loaded' });
    return;
  }
  const began = performance.now();
  const summary = instance.checkInputPlan(capacity) as Summary;
  postResult(id, summary, instance.inputPlan(), new Uint32Array(), began);
}

/** What a request threw, as the reply that ends it. */
function postThrown(id: number, thrown: unknown) {
  if (isRefusal(thrown)) post({ type: 'refused', id, refusal: thrown });
  else post({ type: 'failed', id, message: thrown instanceof Error ? thrown.message : String(thrown) });
}

async function handle(request: Request) {
  switch (request.type) {
    case 'init':
      return init(request.id, request.threads);
    case 'parse':
      return parse(request.id, request.source, request.format, request.semantics);
    case 'solve':
      return solve(request.id, request.options);
    case 'cancel':
      return;
    case 'conflicts': {
      const indices = instance ? instance.conflictsOf(request.index) : new Uint32Array();
      post({ type: 'conflicts', id: request.id, indices }, [indices.buffer as ArrayBuffer]);
      return;
    }
    case 'export':
      post({ type: 'exported', id: request.id, text: instance!.export(request.offsets, request.format) });
      return;
    case 'check':
      return check(request.id, request.capacity);
    case 'checkPlan':
      if (!instance) return post({ type: 'failed', id: request.id, message: 'no instance loaded' });
      return postResult(request.id, instance.checkPlan(request.offsets) as Summary, request.offsets, new Uint32Array(), performance.now());
    case 'size':
      post({ type: 'size', id: request.id, value: wasm!.parseSize(request.text) });
      return;
    case 'import':
      return importModel(request.id, request.source);
    case 'diff':
      post({ type: 'diffed', id: request.id, diff: instance!.diff(request.a, request.b) as PlanDiff });
      return;
  }
}

// Requests run one after another (a parse never overlaps the init it follows); a cancel acts at
// once. A threaded solve returns as soon as its job is started and polls it from timers, so a
// cancel reaches it while it runs.
let queue: Promise<void> = Promise.resolve();
self.onmessage = (event: MessageEvent<Request>) => {
  const request = event.data;
  if (request.type === 'cancel') {
    running?.cancel();
    return;
  }
  queue = queue.then(() =>
    handle(request).catch((thrown: unknown) => postThrown(request.id, thrown)),
  );
};
