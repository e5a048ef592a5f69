// The playground page: wires the input panel, the controls, the plan view, compare mode, share
// links and exports to the solver worker. The main thread only draws; parsing and solving happen in
// the worker (engine.ts).
import { Engine, EngineError } from './engine';
import { InputPanel, type Example, type LoadRequest } from './input';
import { Controls } from './controls';
import { ComparePanel } from './compare';
import { ModelPanel } from './import';
import { decode, encode, type PageState } from './share';
import { PlanView, type Detail } from './view/planview';
import { Viewport } from './view/viewport';
import { Replay } from './view/replay';
import { COLOR_MODES, LEGEND_ENDS, legendGradient, type ColorBy } from './view/colors';
import { categoriesPresent, categoryColour, hasCategories } from './view/categories';
import { exportImage } from './view/exportimage';
import { axisTop } from './axis';
import { SearchBox } from './view/searchbox';
import { bytes, duration, grouped, percent, span } from './format';
import { ProgressTrace, drawSparkline, progressLine } from './progress';
import type { ImportedModel, InstanceData, ModelSource, SolveResult } from './protocol';
import { drawable, toneOf, verdictText } from './verdict';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

const initial = decode(location.search);

/** The example the first screen shows and solves: MiniMalloc's challenging C, 203 buffers under a
 * 1 MiB capacity. `auto` fits it in well under a second on one thread, proven within the capacity
 * (0.8 % above L); the plan is dense enough to look like a real packing and small enough to read;
 * and since it stops at the first plan that fits, it shows the one-click "minimise" (optimal at L). */
const DEFAULT_EXAMPLE = 'minimalloc/challenging/C';
/** Compare's first selection: a contrast worth seeing, in three steps. On the default example
 * what a runtime allocator does online (first-fit-start, 1.69 MiB), what a compiler's greedy
 * planner does (TFLite's arena, 1.35 MiB: slff and xla give the same there) and memplan's
 * portfolio (auto, within the 1 MiB capacity). */
const COMPARE_DEFAULT = ['first-fit-start', 'tflite', 'auto'];
// Light or dark: a link's `theme` (an embed matching the page around it), else the system's,
// followed as it changes. Set before the plan view reads the colours.
const darkScheme = matchMedia('(prefers-color-scheme: dark)');
const applyTheme = () => {
  document.documentElement.dataset.theme = initial.theme ?? (darkScheme.matches ? 'dark' : 'light');
};
applyTheme();
darkScheme.addEventListener('change', applyTheme);

if (initial.embed) {
  // Compact layout for an iframe: the plan, and the solver, Run and Cancel moved into the top bar.
  document.body.classList.add('embed');
  const strip = document.createElement('span');
  strip.className = 'embed-strip';
  const full = document.createElement('a');
  full.textContent = 'open in the playground ↗';
  full.target = '_blank';
  full.href = `${location.pathname}?${new URLSearchParams(Array.from(new URLSearchParams(location.search)).filter(([k]) => k !== 'embed'))}`;
  strip.append($('solver-select'), $('run-button'), $('cancel-button'), full);
  $('status').before(strip);
}

const maxThreads = navigator.hardwareConcurrency || 1;
const engine = new Engine(initial.controls.threads ?? maxThreads);

const status = $('status');
function setStatus(text: string, kind: 'ok' | 'busy' | 'error' = 'ok') {
  status.textContent = text;
  status.className = `status ${kind === 'ok' ? '' : kind}`;
  status.dataset.state = kind;
}

// ---- page state -------------------------------------------------------------------------------
let inst: InstanceData | null = null;
let loaded: LoadRequest | null = null;
let result: SolveResult | null = null;
/** A solve (or a compare) is running or about to: from Run until its result is shown. */
let solving = false;
/** The newest load asked for; a load that finds a newer one on its return is dropped. */
let loadSerial = 0;
/** The load that `inst` came from: a run whose instance is no longer shown drops its result. */
let instSerial = 0;
/** The capacity (bytes) the shown result was minimised under: a "minimise" run leaves it out of
 * the request, so the page itself says whether the plan is within it. */
let minimisedUnder: string | null = null;
/** Why the last run ended without a summary, shown in the verdict's place: the request was refused
 * (or failed), or the single-threaded build's cancel ended its worker. */
let noSummary: { tone: 'interrupted' | 'infeasible'; stopped: 'cancelled' | ''; words: string; detail: string } | null = null;

const viewport = new Viewport();
const view = new PlanView($('plan-host'), viewport, { testid: 'plan-canvas', minimap: true, peak: true });
const replay = new Replay(view);
const search = new SearchBox($('plan-search'), $('plan-search-count'), view);

const controls = new Controls((text) => engine.parseSize(text));
/** The newest load; it settles once that load has been applied, dropped or refused. */
let pendingLoad: Promise<boolean> = Promise.resolve(false);
const input = new InputPanel(['half-open', 'inclusive', 'exclusive'], (request) => {
  pendingLoad = load(request);
});
input.onEdit = () => updateButtons();
const compare = new ComparePanel(
  (solver, show) => solveWith(solver, show),
  () => settle(),
  () => drawCapacity(),
  (busy, label, kind) => {
    setBusy(busy);
    if (label !== null) setStatus(label, busy ? 'busy' : kind);
  },
  (a, b) => engine.diff(a, b),
);

/** Run is possible with an instance, or with an edit that Run would load first. */
function updateButtons() {
  const canRun = inst !== null || input.pendingEdit;
  controls.setBusy(solving, canRun);
  compare.runButton.disabled = solving || !canRun;
}

function setBusy(busy: boolean) {
  solving = busy;
  updateButtons();
}

/** Loads an edit still waiting for its pause, then waits until every load asked for so far has
 * been applied (or refused): a run solves exactly what the editor holds when Run is pressed. */
async function settle(): Promise<InstanceData | null> {
  input.flush();
  for (let seen: Promise<boolean> | null = null; seen !== pendingLoad; ) {
    seen = pendingLoad;
    await seen;
  }
  return inst;
}

// ---- engine -----------------------------------------------------------------------------------
function showEngine() {
  const info = engine.info!;
  const badge = $('threads');
  badge.textContent = info.build === 'threads' ? `threaded wasm · ${info.threads} thread${info.threads === 1 ? '' : 's'}` : 'single-threaded wasm · 1 thread';
  badge.className = `badge ${info.build === 'threads' ? 'threads' : ''}`;
  badge.dataset.build = info.build;
  badge.dataset.threads = String(info.threads);
  badge.title = info.build === 'threads'
    ? 'cross-origin isolated: the threaded build runs a rayon pool in Web Workers'
    : 'not cross-origin isolated (no SharedArrayBuffer): the single-threaded build runs';
}

engine.onRestart = () => {
  showEngine();
  setBusy(false);
};

// ---- loading ----------------------------------------------------------------------------------
function summaryRows(i: InstanceData): [string, string][] {
  const s = i.summary;
  return [
    ['buffers', grouped(s.buffers)],
    ['max load L', `${grouped(s.max_load)} (${bytes(s.max_load)})`],
    ...(String(s.lower_bound) !== String(s.max_load) ? [['lower bound', `${grouped(s.lower_bound)} (${bytes(s.lower_bound)})`] as [string, string]] : []),
    ['sizes', `${bytes(s.min_size)} … ${bytes(s.max_size)}`],
    ['total size', bytes(s.total_size)],
    ['time span', span(s.first_start, s.last_end)],
    ['conflicts', grouped(s.conflicts)],
    ['aligned / pinned', `${grouped(s.aligned)} / ${grouped(s.pinned)}`],
    ...(s.gapped > 0 ? [['with gaps', grouped(s.gapped)] as [string, string]] : []),
    ['format', `${s.format}, ${s.semantics}`],
    ...s.notes.map((note) => ['note', `${note.line !== null ? `line ${note.line}: ` : ''}${note.message}`] as [string, string]),
  ];
}

function drawCapacity(): number | null {
  const value = result?.summary.capacity ?? controls.capacityBytes ?? inst?.summary.capacity ?? null;
  return value === null ? null : Number(value);
}

function fitViewport(resetX: boolean) {
  if (!inst) return;
  let top = Number(inst.summary.max_load);
  const cap = drawCapacity();
  if (cap !== null) top = Math.max(top, cap);
  if (result && drawable(result)) top = Math.max(top, Number(result.summary.makespan));
  // The plot is the plan host less its axis labels (about 30 px).
  const full = { x0: Number(inst.summary.first_start), x1: Number(inst.summary.last_end), y0: 0, y1: axisTop(top, $('plan-host').clientHeight - 30) };
  if (resetX) viewport.setFull(full);
  else {
    viewport.setFull(full, false);
    viewport.set({ x0: viewport.x0, x1: viewport.x1, y0: 0, y1: full.y1 });
  }
}

async function load(request: LoadRequest): Promise<boolean> {
  const serial = ++loadSerial;
  if (solving) await engine.cancel();
  setStatus(`parsing ${request.example?.name ?? (request.source.kind === 'generate' ? `a ${grouped(request.source.buffers)}-buffer trace` : 'input')}…`, 'busy');
  input.showErrors([]);
  const began = performance.now();
  try {
    const parsed = await engine.parse(request.source, input.format, input.semantics);
    if (serial !== loadSerial) return false;
    showLoaded(parsed, request, serial, began, request.example?.capacity ?? null);
    if (parsed.n > 0 && parsed.summary.pinned === parsed.n) await showInputPlan();
    return true;
  } catch (error) {
    if (serial !== loadSerial) return false;
    showLoadFailure(error, serial, request.text);
    return false;
  } finally {
    updateButtons();
  }
}

/** Imports a model file in the worker and loads its instance (as CSV text, ids = the compiler's)
 * like any input; null when it was refused or a newer load replaced it. */
async function loadModel(source: ModelSource): Promise<ImportedModel | null> {
  const serial = ++loadSerial;
  let settled!: (ok: boolean) => void;
  pendingLoad = new Promise((resolve) => (settled = resolve));
  if (solving) await engine.cancel();
  setStatus(`importing ${source.kind === 'url' ? source.name : source.file.name}…`, 'busy');
  input.showErrors([]);
  const began = performance.now();
  try {
    const model = await engine.importModel(source);
    if (serial !== loadSerial) return null;
    const text = model.instance.text ?? '';
    input.exampleSelect.value = source.kind === 'url' ? input.exampleSelect.value : '';
    input.setFormat('csv');
    input.semanticsSelect.value = 'half-open';
    showLoaded(model.instance, { source: { kind: 'text', text, name: model.instance.name }, text }, serial, began, null);
    // A model's buffers say what they hold (inputs, outputs, temporaries): show that first.
    if (hasCategories(inst)) setColourMode('category');
    return model;
  } catch (error) {
    if (serial !== loadSerial) return null;
    showLoadFailure(error, serial, undefined);
    return null;
  } finally {
    settled(serial === loadSerial && inst !== null);
    updateButtons();
  }
}

/** A load succeeded: `parsed` becomes the page's instance. */
function showLoaded(parsed: InstanceData, request: LoadRequest, serial: number, began: number, capacity: string | null) {
  inst = parsed;
  instSerial = serial;
  loaded = request;
  result = null;
  minimisedUnder = null;
  noSummary = null;
  // A capacity the user typed stays; one that came with the previous instance gives way to
  // this instance's own (an example's, or the file's), or to none.
  if (controls.capacityFromInstance || !controls.capacityInput.value.trim()) {
    const own = String(capacity ?? parsed.summary.capacity ?? '');
    controls.setCapacity(own, own !== '');
  }
  // An edit made while this parsed is newer than it: the editor keeps it.
  if (!input.pendingEdit) input.showText(parsed.text, parsed.name, parsed.bytes);
  $('summary').innerHTML = summaryRows(parsed).map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('');
  showResult();
  compare.setInstance(parsed);
  offerColourModes();
  fitViewport(true);
  setStatus(`loaded ${parsed.name}: ${grouped(parsed.n)} buffers in ${duration(performance.now() - began)}`);
  $('instance-input').dataset.loaded = String(parsed.n);
  syncUrl();
}

/** A load failed: no instance, and the errors where the input is. */
function showLoadFailure(error: unknown, serial: number, text: string | undefined) {
  inst = null;
  instSerial = serial;
  loaded = null;
  result = null;
  minimisedUnder = null;
  noSummary = null;
  showResult();
  compare.setInstance(null);
  offerColourModes();
  $('summary').innerHTML = '';
  $('instance-input').dataset.loaded = '0';
  if (error instanceof EngineError) {
    if (text !== undefined && !input.pendingEdit) input.showText(text, 'input', text.length);
    input.showErrors(error.errors.length ? error.errors : [{ line: null, column: null, message: error.message }]);
    const first = error.errors.find((e) => e.line);
    setStatus(`not loaded: ${error.message}${first ? ` (first at line ${first.line})` : ''}`, 'error');
  } else {
    setStatus(`not loaded: ${error instanceof Error ? error.message : String(error)}`, 'error');
  }
}

/** Every buffer of the input has an offset: show that plan, checked by the core's validator. */
async function showInputPlan() {
  result = await engine.checkInputPlan(controls.capacityBytes);
  showResult();
  fitViewport(false);
  const s = result.summary;
  if (s.valid) setStatus(`the input is a plan (every buffer has an offset): valid, makespan ${grouped(s.makespan ?? '—')}; Run re-plans it with the offsets pinned`);
  else setStatus(`the input's offsets are an INVALID plan (${s.violations.length} violation${s.violations.length === 1 ? '' : 's'}): not drawn`, 'error');
}

// ---- solving ----------------------------------------------------------------------------------
/** Solves with `solver`; `show` gets a progress line (and the history of the best plan and the
 * bound, for the sparkline) four times a second, drawn by the timer only: the worker's reports
 * just update what it shows. `minimise` leaves the capacity out, so that a solver that would stop
 * at the first plan within it minimises instead. */
async function solveWith(solver: string, show: (line: string, trace: ProgressTrace) => void, minimise = false): Promise<SolveResult> {
  const began = performance.now();
  const trace = new ProgressTrace(inst?.summary.lower_bound ?? null);
  const tick = () => show(progressLine(solver, trace, performance.now() - began), trace);
  tick();
  const timer = window.setInterval(tick, 250);
  const options = controls.options(solver);
  if (minimise) options.capacity = undefined;
  try {
    return await engine.solve(options, (p, elapsedMs) => trace.add(p, elapsedMs));
  } finally {
    clearInterval(timer);
  }
}

/** While a run goes on, the verdict's place shows its progress, and the figures and plan below,
 * the last run's, are dimmed: they are not this run's. */
function showRunning(line: string, trace: ProgressTrace) {
  const box = $('verdict');
  box.className = 'verdict running';
  box.dataset.stopped = '';
  box.title = line;
  $('verdict-text').textContent = '● solving';
  $('verdict-detail').textContent = line;
  $('minimise-button').hidden = true;
  $('verdict-note').textContent = '';
  drawSparkline($('sparkline'), trace);
  document.body.classList.add('stale-result');
}

/** Runs `solver` on the page's instance and shows its result; the result, or null when the run
 * ended without one (or another run or load took its place). */
async function run(solver = controls.solver, minimise = false): Promise<SolveResult | null> {
  if (solving) return null;
  setBusy(true);
  try {
    // A pasted edit is loaded first (not after its pause), and the run waits for it.
    if (!(await settle())) return null;
    const serial = instSerial;
    setStatus(`${minimise ? 'minimising' : 'solving'} with ${solver}…`, 'busy');
    let solved: SolveResult | null = null;
    try {
      solved = await solveWith(solver, showRunning, minimise);
    } catch (error) {
      if (instSerial !== serial) return null; // a new input replaced this one (and says so)
      // No summary came back: the previous result goes (it is not this run's), and the verdict's
      // place says why.
      result = null;
      minimisedUnder = null;
      const message = error instanceof Error ? error.message : String(error);
      if (error instanceof EngineError && error.kind === 'ended') {
        // The single-threaded build stops a solve by ending its worker: nothing comes back.
        noSummary = { tone: 'interrupted', stopped: 'cancelled', words: '◼ cancelled: no plan kept', detail: 'the single-threaded build stops a solve by restarting its worker' };
        setStatus('cancelled: no plan kept (the single-threaded build stops a solve by restarting its worker)');
      } else {
        const refused = error instanceof EngineError && (error.kind === 'input' || error.kind === 'request');
        noSummary = { tone: 'infeasible', stopped: '', words: refused ? '✗ not run: the request was refused' : '✗ the run failed', detail: message };
        setStatus(`${solver} ${refused ? 'refused' : 'failed'}: ${message}`, 'error');
      }
      showResult();
      return null;
    }
    if (instSerial !== serial) return null; // solved an instance no longer shown: the new one stays
    result = solved;
    minimisedUnder = minimise ? controls.capacityBytes : null;
    noSummary = null;
    showResult();
    fitViewport(false);
    syncUrl();
    // One line: the verdict next to the result says why, with the core's detail.
    const s = solved.summary;
    if (!s.valid) setStatus(`${solver}: the plan is INVALID (${s.violations.length} violation${s.violations.length === 1 ? '' : 's'}); not drawn`, 'error');
    else if (s.makespan === null) setStatus(`${solver}: no plan (${s.verdict})`, toneOf(s.stopped) === 'infeasible' ? 'error' : 'ok');
    else {
      const ended = toneOf(s.stopped) === 'interrupted' ? 'stopped after' : 'done in';
      setStatus(`${solver}: ${ended} ${duration(s.elapsed_ms)}${s.feasible ? '' : ', over capacity'}`, s.feasible ? 'ok' : 'error');
    }
    return solved;
  } finally {
    document.body.classList.remove('stale-result');
    setBusy(false);
    showVerdict(); // the run's, or the last result's again when it ended without one
  }
}

async function cancel() {
  setStatus(engine.info?.build === 'threads' ? 'cancelling…' : 'cancelling: restarting the single-threaded worker…', 'busy');
  await engine.cancel();
}

/** The result's numbers, and why the run stopped (the core's words, coloured by its reason). */
function showResult() {
  const s = result?.summary;
  const set = (id: string, text: string, value = '', cls = '') => {
    const el = $(id);
    el.textContent = text;
    el.dataset.value = value;
    el.className = cls;
  };
  if (inst) set('max-load', `${grouped(inst.summary.max_load)}`, String(inst.summary.max_load));
  else set('max-load', '—');
  const plan = drawable(result) ? result : null;
  if (!s) {
    for (const id of ['makespan', 'fragmentation', 'elapsed', 'result-solver', 'result-valid']) set(id, '—');
  } else {
    if (s.makespan === null) set('makespan', 'no plan', '', 'bad');
    else set('makespan', s.valid ? grouped(s.makespan) : 'invalid', s.valid ? String(s.makespan) : '', s.valid ? '' : 'bad');
    set('fragmentation', plan && s.fragmentation !== null ? `${grouped(s.fragmentation)} (${percent(s.fragmentation_pct ?? 0)})` : '—', String(s.fragmentation ?? ''));
    set('elapsed', duration(s.elapsed_ms), String(s.elapsed_ms));
    set('result-solver', `${s.solver}${s.winner !== null ? ` → ${s.winner}` : ''}`);
    if (s.makespan === null) set('result-valid', '—');
    else set('result-valid', s.valid ? (s.feasible ? 'valid' : 'valid, over capacity') : 'INVALID', String(s.valid), s.valid && s.feasible ? 'good' : 'bad');
  }
  showVerdict();
  const violations = $('violations');
  violations.hidden = !s || s.valid;
  violations.textContent = s && !s.valid ? `The core's validator rejected this plan; it is not drawn.\n${s.violations.slice(0, 20).join('\n')}` : '';
  for (const id of ['export-csv', 'export-json', 'export-png']) ($(id) as HTMLButtonElement).disabled = !plan;
  // A result without a plan clears the previous one: the view shows the instance alone.
  view.setData(inst ? { inst, result: plan, capacity: drawCapacity() } : null);
  replay.reset();
}

/** Why the run stopped, next to the result: the core's verdict and detail, with a mark and a
 * colour by reason (proven, a heuristic's plan, interrupted, infeasible). */
function showVerdict() {
  const box = $('verdict');
  const words = $('verdict-text');
  const detail = $('verdict-detail');
  const s = result?.summary;
  // The line keeps its place when empty, so that the plan below does not move (and redraw) when a
  // run starts or ends.
  const minimise = $('minimise-button');
  const note = $('verdict-note');
  $('sparkline').replaceChildren();
  minimise.hidden = true;
  note.textContent = '';
  if (!s) {
    box.className = noSummary ? `verdict ${noSummary.tone}` : 'verdict empty';
    box.dataset.stopped = noSummary?.stopped ?? '';
    words.textContent = noSummary?.words ?? '';
    detail.textContent = noSummary?.detail ?? '';
    box.title = detail.textContent;
    return;
  }
  // Stopping at the first plan within the capacity proves it fits, not that it is low (the core's
  // words say so): offer the run that minimises, the same solver without the capacity.
  if (s.stopped === 'fits') {
    minimise.hidden = solving;
  } else if (minimisedUnder !== null && s.makespan !== null) {
    const within = BigInt(s.makespan) <= BigInt(minimisedUnder);
    note.textContent = `minimised without the capacity: ${within ? 'within' : 'OVER'} ${bytes(minimisedUnder)}`;
  }
  box.className = `verdict ${toneOf(s.stopped)}`;
  box.dataset.stopped = s.stopped;
  words.textContent = verdictText(s);
  const notes: string[] = [];
  if (s.detail) notes.push(s.detail);
  else if (!s.optimal && s.makespan !== null) notes.push(`no plan can be below ${grouped(s.lower_bound)} (the proven lower bound)`);
  detail.textContent = notes.join(' · ');
  box.title = `${words.textContent} ${detail.textContent}`;
}

// ---- view controls ----------------------------------------------------------------------------
const colorSelect = $<HTMLSelectElement>('color-select');
/** The colour modes this instance supports: by category only when its buffers have categories
 * (an imported model's). A mode that goes away falls back to size. */
function offerColourModes() {
  const current = colorSelect.value as ColorBy;
  const offered = COLOR_MODES.filter(([mode]) => mode !== 'category' || hasCategories(inst));
  colorSelect.innerHTML = offered.map(([v, label]) => `<option value="${v}">${label}</option>`).join('');
  const keep = offered.some(([mode]) => mode === current);
  setColourMode(keep ? current : 'size');
}
function setColourMode(mode: ColorBy) {
  colorSelect.value = mode;
  view.setColorBy(mode);
  compare.setColorBy(mode);
  showLegend();
}
function showLegend() {
  const mode = colorSelect.value as ColorBy;
  const ends = LEGEND_ENDS;
  if (mode === 'category') {
    const present = inst ? categoriesPresent(inst) : [];
    $('legend').innerHTML = present
      .map((name) => `<span class="category" data-category="${name}"><i class="swatch" style="background:${categoryColour(name)}"></i>${name}</span>`)
      .join('');
    return;
  }
  $('legend').innerHTML = mode === 'id' ? `<i style="background:${legendGradient(mode)}"></i>` : `${ends[mode][0]} <i style="background:${legendGradient(mode)}"></i> ${ends[mode][1]}`;
}
colorSelect.addEventListener('change', () => setColourMode(colorSelect.value as ColorBy));
offerColourModes();
$<HTMLSelectElement>('detail-select').addEventListener('change', (ev) => view.setDetail((ev.target as HTMLSelectElement).value as Detail));
const centre = () => ({ x: (viewport.x0 + viewport.x1) / 2, y: (viewport.y0 + viewport.y1) / 2 });
$('zoom-in').addEventListener('click', () => viewport.zoom(0.6, centre().x, centre().y, { x: true, y: false }));
$('zoom-out').addEventListener('click', () => viewport.zoom(1 / 0.6, centre().x, centre().y, { x: true, y: false }));
$('zoom-reset').addEventListener('click', () => viewport.reset());
$('zoom-peak').addEventListener('click', () => view.jumpToPeak());
view.onSelect = async (index) => {
  if (index === null || solving) return view.setSelection(null, null);
  view.setSelection(index, null);
  view.setSelection(index, await engine.conflicts(index));
};

// ---- exports ----------------------------------------------------------------------------------
function download(name: string, blob: Blob) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
}
const baseName = () => (inst?.name ?? 'plan').replace(/\.(csv|json)$/i, '').replace(/[^\w.-]+/g, '_');
async function exportPlan(format: 'csv' | 'json') {
  if (!result || !drawable(result) || solving) return;
  const text = await engine.exportPlan(result.offsets, format);
  download(`${baseName()}.${result.summary.solver.replace(/[^\w.-]+/g, '_')}.${format}`, new Blob([text], { type: format === 'csv' ? 'text/csv' : 'application/json' }));
}
$('export-csv').addEventListener('click', () => void exportPlan('csv'));
$('export-json').addEventListener('click', () => void exportPlan('json'));
$('export-png').addEventListener('click', () => {
  view.renderNow();
  exportImage(view).toBlob((blob) => blob && download(`${baseName()}.png`, blob), 'image/png');
});

// ---- tabs -------------------------------------------------------------------------------------
type Tab = 'plan' | 'compare' | 'model';
function showTab(tab: Tab) {
  for (const name of ['plan', 'compare', 'model'] as const) {
    $(`tab-${name}`).setAttribute('aria-selected', String(tab === name));
    $(`${name}-pane`).hidden = tab !== name;
  }
  if (tab === 'plan') view.draw();
  if (tab === 'model') models.draw();
  syncUrl();
}
$('tab-plan').addEventListener('click', () => showTab('plan'));
$('tab-compare').addEventListener('click', () => showTab('compare'));
$('tab-model').addEventListener('click', () => showTab('model'));

// ---- bring your own model ---------------------------------------------------------------------
const models = new ModelPanel({
  load: loadModel,
  // memplan's best: auto at the controls' effort, seed and time limit.
  solve: () => run('auto'),
  diff: (a, b) => engine.diff(a, b),
  exportPlan: (offsets, format) => engine.exportPlan(offsets, format),
  download,
  showTab: () => showTab('model'),
});
input.onModel = (source) => void models.open(source);

// ---- share ------------------------------------------------------------------------------------
function pageState(): PageState {
  const l = loaded;
  return {
    example: l?.example?.id,
    url: l?.url,
    gen: l?.gen,
    text: l?.example || l?.gen || l?.url ? undefined : l?.text,
    format: input.format || undefined,
    semantics: input.semantics,
    controls: { ...controls.state(), threads: controls.state().threads === maxThreads ? undefined : controls.state().threads },
    compare: compare.checked,
    tab: $('compare-pane').hidden ? 'plan' : 'compare',
    run: result !== null,
    minimise: result !== null && minimisedUnder !== null,
    embed: initial.embed,
    theme: initial.theme,
    autoplay: initial.autoplay,
  };
}
/** Set once the first screen is up: before, the address is the one the page was opened with. */
let started = false;
/** Longest pasted text the address is kept in step with (deflating more on every change costs). */
const SYNC_TEXT_MAX = 100_000;
/** Keeps the address in step with what the page shows (instance, settings, tab, whether it ran),
 * so that reloading or copying the address gives the same state; Share link also copies it. */
function syncUrl() {
  if (!started) return;
  const state = pageState();
  if (state.text !== undefined && state.text.length > SYNC_TEXT_MAX) state.text = undefined;
  const query = encode(state).query;
  if (`?${query}` !== location.search) history.replaceState(null, '', `?${query}`);
}
document.addEventListener('change', () => syncUrl());

$('share-button').addEventListener('click', async () => {
  const { query, omitted } = encode(pageState());
  const url = `${location.origin}${location.pathname}?${query}`;
  const field = $<HTMLInputElement>('share-link');
  field.value = url;
  field.select();
  history.replaceState(null, '', `?${query}`);
  try {
    await navigator.clipboard.writeText(url);
    setStatus(omitted ? 'link copied — the instance is too large for a link, only the settings are in it' : 'link copied');
  } catch {
    setStatus(omitted ? 'link ready — the instance is too large for a link, only the settings are in it' : 'link ready (copy it from the field)');
  }
});

// ---- start ------------------------------------------------------------------------------------
controls.onRun = () => void ($('compare-pane').hidden ? run() : compare.run());
$('minimise-button').addEventListener('click', () => void run(result?.summary.solver ?? controls.solver, true));
controls.onCancel = () => void cancel();
controls.onCapacity = () => {
  if (!inst) return;
  view.setData({ inst, result: drawable(result) ? result : null, capacity: drawCapacity() });
  fitViewport(false);
};
controls.onThreads = async (threads) => {
  if (solving) await engine.cancel();
  setStatus(`restarting the worker with ${threads} thread${threads === 1 ? '' : 's'}…`, 'busy');
  await engine.restart(threads);
  setStatus(`${threads} thread${threads === 1 ? '' : 's'} ready`);
};

async function start() {
  try {
    const info = await engine.start();
    showEngine();
    controls.setCatalogue(info.catalogue, info.build, info.threads, maxThreads);
    compare.setSolvers(info.catalogue.solvers, initial.compare ?? COMPARE_DEFAULT.filter((name) => info.catalogue.solvers.some((s) => s.name === name)));
    setStatus('ready');
  } catch (error) {
    setStatus(`the planner failed to start: ${error instanceof Error ? error.message : String(error)}`, 'error');
    return;
  }
  let examples: Example[] = [];
  try {
    examples = await input.loadIndex();
  } catch {
    setStatus('the example gallery is not available', 'error');
  }
  controls.apply(initial.controls);
  if (initial.semantics) input.semanticsSelect.value = initial.semantics;
  if (initial.format) input.setFormat(initial.format); // a shared link's (an edit reads by content again)
  if (initial.tab) showTab(initial.tab);
  let ok = false;
  const example = examples.find((e) => e.id === initial.example);
  if (initial.text !== undefined) {
    input.showText(initial.text, 'shared', initial.text.length);
    input.loadText(initial.text, 'shared instance');
    ok = true;
  } else if (initial.gen) {
    input.generate(initial.gen.buffers, initial.gen.seed);
    ok = true;
  } else if (initial.url) {
    input.loadUrl(initial.url);
    ok = true;
  } else if (example) {
    input.loadExample(example);
    ok = true;
  } else {
    // No instance named: the first screen. The default example is solved at once with the
    // settings shown, so that a newcomer first sees what the page is for: a plan, and why it is
    // good.
    const first = examples.find((e) => e.id === DEFAULT_EXAMPLE) ?? examples[0];
    if (first) {
      input.loadExample(first);
      ok = true;
      initial.run = true;
    }
  }
  if (ok && initial.controls.capacity !== undefined) controls.setCapacity(initial.controls.capacity);
  if (ok && initial.run) {
    await settle();
    if (initial.controls.capacity !== undefined) controls.setCapacity(initial.controls.capacity);
    if (inst) await (initial.tab === 'compare' ? compare.run() : run(controls.solver, initial.minimise));
    if (initial.autoplay && result && drawable(result)) replay.start();
  }
  started = true;
  syncUrl();
  // Last, so that a test that waits for it finds the first screen finished.
  (window as unknown as { __memplan: unknown }).__memplan = { engine, view, viewport, compare, search, replay, state: () => ({ inst, result, solving }) };
}

void start();
