// The playground page: wires the input panel, the controls, the plan view, compare mode, share
// links and exports to the solver worker. The main thread only draws; parsing and solving happen in
// the worker (engine.ts).
import { Engine, EngineError } from './engine';
import { InputPanel, type Example, type LoadRequest } from './input';
import { Controls } from './controls';
import { ComparePanel } from './compare';
import { decode, encode, type PageState } from './share';
import { PlanView, type Detail } from './view/planview';
import { Viewport } from './view/viewport';
import { Replay } from './view/replay';
import { COLOR_MODES, legendGradient, type ColorBy } from './view/colors';
import { bytes, duration, grouped, percent } from './format';
import type { InstanceData, Progress, SolveResult } from './protocol';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

const initial = decode(location.search);
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
let solving = false;
let loadSerial = 0;

const viewport = new Viewport();
const view = new PlanView($('plan-host'), viewport, { testid: 'plan-canvas' });
const replay = new Replay(view);

const controls = new Controls((text) => engine.parseSize(text));
let pendingLoad: Promise<boolean> = Promise.resolve(false);
const input = new InputPanel(['half-open', 'inclusive', 'exclusive'], (request) => {
  pendingLoad = load(request);
});
const compare = new ComparePanel(
  (solver) => solveWith(solver),
  () => drawCapacity(),
  (busy, label) => {
    setBusy(busy);
    setStatus(label, busy ? 'busy' : 'ok');
  },
);

function setBusy(busy: boolean) {
  solving = busy;
  controls.setBusy(busy, inst !== null);
  compare.runButton.disabled = busy || !inst;
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
    ['sizes', `${bytes(s.min_size)} … ${bytes(s.max_size)}`],
    ['total size', bytes(s.total_size)],
    ['time span', `[${grouped(s.first_start)}, ${grouped(s.last_end)})`],
    ['conflicts', grouped(s.conflicts)],
    ['aligned / pinned', `${grouped(s.aligned)} / ${grouped(s.pinned)}`],
    ['format', `${s.format}, ${s.semantics}`],
  ];
}

function drawCapacity(): number | null {
  const text = result?.described.capacity ?? controls.capacityBytes ?? inst?.summary.capacity ?? null;
  return text === null ? null : Number(text);
}

function fitViewport(resetX: boolean) {
  if (!inst) return;
  let top = Number(inst.summary.max_load);
  const cap = drawCapacity();
  if (cap !== null) top = Math.max(top, cap);
  if (result?.described.valid) top = Math.max(top, Number(result.described.makespan));
  const full = { x0: Number(inst.summary.first_start), x1: Number(inst.summary.last_end), y0: 0, y1: top * 1.04 || 1 };
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
    inst = parsed;
    loaded = request;
    result = null;
    // A capacity the user typed stays; one that came with the previous instance gives way to
    // this instance's own (an example's, or the file's), or to none.
    if (controls.capacityFromInstance || !controls.capacityInput.value.trim()) {
      const own = request.example?.capacity ?? parsed.summary.capacity ?? '';
      controls.setCapacity(own, own !== '');
    }
    input.showText(parsed.text, parsed.name, parsed.bytes);
    $('summary').innerHTML = summaryRows(parsed).map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('');
    showResult();
    compare.setInstance(parsed);
    fitViewport(true);
    setStatus(`loaded ${parsed.name}: ${grouped(parsed.n)} buffers in ${duration(performance.now() - began)}`);
    $('instance-input').dataset.loaded = String(parsed.n);
    if (parsed.n > 0 && parsed.summary.pinned === parsed.n) await showInputPlan();
    return true;
  } catch (error) {
    if (serial !== loadSerial) return false;
    inst = null;
    loaded = null;
    result = null;
    showResult();
    compare.setInstance(null);
    $('summary').innerHTML = '';
    $('instance-input').dataset.loaded = '0';
    if (error instanceof EngineError) {
      if (request.text !== undefined) input.showText(request.text, 'input', request.text.length);
      input.showErrors(error.errors.length ? error.errors : [{ line: null, column: null, message: error.message }]);
      const first = error.errors.find((e) => e.line);
      setStatus(`not loaded: ${error.message}${first ? ` (first at line ${first.line})` : ''}`, 'error');
    } else {
      setStatus(`not loaded: ${String(error)}`, 'error');
    }
    return false;
  } finally {
    setBusy(false);
  }
}

/** Every buffer of the input has an offset: show that plan, checked by the core's validator. */
async function showInputPlan() {
  result = await engine.checkInputPlan(controls.capacityBytes);
  showResult();
  fitViewport(false);
  const d = result.described;
  if (d.valid) setStatus(`the input is a plan (every buffer has an offset): valid, makespan ${grouped(d.makespan)}; Run re-plans it with the offsets pinned`);
  else setStatus(`the input's offsets are an INVALID plan (${d.violations.length} violation${d.violations.length === 1 ? '' : 's'}): not drawn`, 'error');
}

// ---- solving ----------------------------------------------------------------------------------
async function solveWith(solver: string): Promise<SolveResult> {
  const progress = $('progress');
  const began = performance.now();
  // One line, redrawn by the timer only: the worker's reports just update what it shows.
  let last: Progress | null = null;
  const show = () => {
    const elapsed = duration(performance.now() - began);
    if (!last) {
      progress.textContent = `${solver}: ${elapsed}`;
      return;
    }
    const best = last.best_makespan ? `best ${grouped(last.best_makespan)}` : 'no plan yet';
    progress.textContent = `${last.solver}: ${elapsed} · ${best} · bound ${grouped(last.lower_bound)} · ${grouped(last.nodes)} nodes`;
  };
  const timer = window.setInterval(show, 250);
  try {
    return await engine.solve(controls.options(solver), (p) => {
      last = p ?? last;
    });
  } finally {
    clearInterval(timer);
    progress.textContent = '';
  }
}

async function run() {
  if (!inst || solving) return;
  const solver = controls.solver;
  setBusy(true);
  setStatus(`solving with ${solver}…`, 'busy');
  try {
    const solved = await solveWith(solver);
    result = solved;
    showResult();
    fitViewport(false);
    const d = solved.described;
    if (!d.valid) setStatus(`${solver}: the plan is INVALID (${d.violations.length} violation${d.violations.length === 1 ? '' : 's'}); not drawn`, 'error');
    else if (solved.cancelled) setStatus(`cancelled: best plan so far from ${solver}`);
    else setStatus(`${solver}: done in ${duration(d.elapsed_ms)}${d.feasible ? '' : ' (over capacity)'}`, d.feasible ? 'ok' : 'error');
  } catch (error) {
    if (error instanceof EngineError && error.kind === 'cancelled') setStatus('cancelled');
    else setStatus(`${solver} failed: ${error instanceof Error ? error.message : String(error)}`, 'error');
  } finally {
    setBusy(false);
  }
}

async function cancel() {
  setStatus(engine.info?.build === 'threads' ? 'cancelling…' : 'cancelling: restarting the single-threaded worker…', 'busy');
  await engine.cancel();
}

function showResult() {
  const d = result?.described;
  const set = (id: string, text: string, value = '', cls = '') => {
    const el = $(id);
    el.textContent = text;
    el.dataset.value = value;
    el.className = cls;
  };
  if (inst) set('max-load', `${grouped(inst.summary.max_load)}`, inst.summary.max_load);
  else set('max-load', '—');
  if (!d) {
    for (const id of ['makespan', 'fragmentation', 'elapsed', 'result-solver', 'result-valid']) set(id, '—');
  } else {
    set('makespan', d.valid ? grouped(d.makespan) : 'invalid', d.valid ? d.makespan : '', d.valid ? '' : 'bad');
    set('fragmentation', d.valid ? `${grouped(d.fragmentation)} (${percent(d.fragmentation_pct)})` : '—', d.fragmentation);
    set('elapsed', duration(d.elapsed_ms), String(d.elapsed_ms));
    const winner = typeof d.winner === 'string' ? ` → ${d.winner}` : '';
    set('result-solver', `${d.solver}${winner}${d.optimal ? ' · optimal' : ''}`);
    set('result-valid', d.valid ? (d.feasible ? 'valid' : 'valid, over capacity') : 'INVALID', String(d.valid), d.valid && d.feasible ? 'good' : 'bad');
  }
  const violations = $('violations');
  violations.hidden = !d || d.valid;
  violations.textContent = d && !d.valid ? `The core's validator rejected this plan; it is not drawn.\n${d.violations.slice(0, 20).join('\n')}` : '';
  for (const id of ['export-csv', 'export-json', 'export-png']) ($(id) as HTMLButtonElement).disabled = !d || !d.valid;
  view.setData(inst ? { inst, result: d ? result : null, capacity: drawCapacity() } : null);
  replay.reset();
}

// ---- view controls ----------------------------------------------------------------------------
const colorSelect = $<HTMLSelectElement>('color-select');
colorSelect.innerHTML = COLOR_MODES.map(([v, label]) => `<option value="${v}">${label}</option>`).join('');
function showLegend() {
  const mode = colorSelect.value as ColorBy;
  const ends: Record<ColorBy, [string, string]> = { size: ['small', 'large'], lifetime: ['short', 'long'], order: ['first', 'last placed'], id: ['', ''] };
  $('legend').innerHTML = mode === 'id' ? `<i style="background:${legendGradient(mode)}"></i>` : `${ends[mode][0]} <i style="background:${legendGradient(mode)}"></i> ${ends[mode][1]}`;
}
colorSelect.addEventListener('change', () => {
  view.setColorBy(colorSelect.value as ColorBy);
  compare.setColorBy(colorSelect.value as ColorBy);
  showLegend();
});
showLegend();
$<HTMLSelectElement>('detail-select').addEventListener('change', (ev) => view.setDetail((ev.target as HTMLSelectElement).value as Detail));
const centre = () => ({ x: (viewport.x0 + viewport.x1) / 2, y: (viewport.y0 + viewport.y1) / 2 });
$('zoom-in').addEventListener('click', () => viewport.zoom(0.6, centre().x, centre().y, { x: true, y: false }));
$('zoom-out').addEventListener('click', () => viewport.zoom(1 / 0.6, centre().x, centre().y, { x: true, y: false }));
$('zoom-reset').addEventListener('click', () => viewport.reset());
$('zoom-peak').addEventListener('click', () => {
  if (!inst) return;
  const { profileTimes: t, profileLoads: l } = inst;
  let peak = 0;
  for (let i = 1; i < l.length; i++) if (l[i] > l[peak]) peak = i;
  const from = t[peak], to = t[Math.min(peak + 1, t.length - 1)];
  const full = viewport.fullRange;
  const half = Math.max((to - from) * 6, (full.x1 - full.x0) / 40, 1);
  viewport.set({ x0: (from + to) / 2 - half, x1: (from + to) / 2 + half, y0: full.y0, y1: full.y1 });
});
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
  if (!result || !result.described.valid || solving) return;
  const text = await engine.exportPlan(result.offsets, format);
  download(`${baseName()}.${result.described.solver}.${format}`, new Blob([text], { type: format === 'csv' ? 'text/csv' : 'application/json' }));
}
$('export-csv').addEventListener('click', () => void exportPlan('csv'));
$('export-json').addEventListener('click', () => void exportPlan('json'));
$('export-png').addEventListener('click', () => {
  view.renderNow();
  view.canvas.toBlob((blob) => blob && download(`${baseName()}.png`, blob), 'image/png');
});

// ---- tabs -------------------------------------------------------------------------------------
function showTab(tab: 'plan' | 'compare') {
  $('tab-plan').setAttribute('aria-selected', String(tab === 'plan'));
  $('tab-compare').setAttribute('aria-selected', String(tab === 'compare'));
  $('plan-pane').hidden = tab !== 'plan';
  $('compare-pane').hidden = tab !== 'compare';
  if (tab === 'plan') view.draw();
}
$('tab-plan').addEventListener('click', () => showTab('plan'));
$('tab-compare').addEventListener('click', () => showTab('compare'));

// ---- share ------------------------------------------------------------------------------------
function pageState(): PageState {
  const l = loaded;
  return {
    example: l?.example?.id,
    gen: l?.gen,
    text: l?.example || l?.gen ? undefined : l?.text,
    format: input.format || undefined,
    semantics: input.semantics,
    controls: { ...controls.state(), threads: controls.state().threads === maxThreads ? undefined : controls.state().threads },
    compare: compare.checked,
    tab: $('compare-pane').hidden ? 'plan' : 'compare',
    run: result !== null,
    embed: initial.embed,
  };
}
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
controls.onCancel = () => void cancel();
controls.onCapacity = () => {
  if (!inst) return;
  view.setData({ inst, result, capacity: drawCapacity() });
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
    compare.setSolvers(info.catalogue.solvers, initial.compare ?? info.catalogue.solvers.filter((s) => !s.capabilities.minimise).slice(0, 6).map((s) => s.name));
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
  if (initial.format) input.formatSelect.value = initial.format;
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
  } else if (example) {
    input.loadExample(example);
    ok = true;
  } else if (!location.search || initial.embed) {
    const first = examples.find((e) => e.id === 'minimalloc/challenging/C') ?? examples[0];
    if (first) input.loadExample(first);
  }
  if (ok && initial.controls.capacity !== undefined) controls.setCapacity(initial.controls.capacity);
  (window as unknown as { __memplan: unknown }).__memplan = { engine, view, viewport, compare, state: () => ({ inst, result, solving }) };
  if (ok && initial.run) {
    await waitLoaded();
    if (initial.controls.capacity !== undefined) controls.setCapacity(initial.controls.capacity);
    if (inst) await (initial.tab === 'compare' ? compare.run() : run());
  }
}

/** Resolves once the pending load has finished. */
async function waitLoaded(): Promise<void> {
  await pendingLoad;
}

void start();
