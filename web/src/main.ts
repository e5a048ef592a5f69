// The playground page: wires the input panel, the controls, the plan view, compare mode, the Model
// tab, share links and exports to the solver worker. The main thread only draws; parsing and
// solving happen in the worker (engine.ts). Each part that changes for its own reasons lives in
// page/: the run lifecycle (session.ts), what is shown (state.ts, results.ts, planpanel.ts), the
// address (urlstate.ts), the tabs, the view controls, the exports, the theme and embed layout.
import { Engine } from './engine';
import { InputPanel, type Example } from './input';
import { Controls } from './controls';
import { ComparePanel } from './compare';
import { ModelPanel } from './import';
import { decode } from './share';
import { hasCategories } from './view/categories';
import { drawable } from './verdict';
import { Shown } from './page/state';
import { Session } from './page/session';
import { PlanPanel } from './page/planpanel';
import { showRunning, showVerdict } from './page/results';
import { setStatus } from './page/status';
import { Tabs } from './page/tabs';
import { ColourControl, attachViewButtons } from './page/viewcontrols';
import { attachExports, download } from './page/exports';
import { AddressSync, pageState } from './page/urlstate';
import { applyEmbed, applyTheme } from './page/theme';
import { $ } from './dom';

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

applyTheme(initial); // before the plan view reads the colours
if (initial.embed) applyEmbed();

const maxThreads = navigator.hardwareConcurrency || 1;
const engine = new Engine(initial.controls.threads ?? maxThreads);
const shown = new Shown();
const controls = new Controls((text) => engine.parseSize(text));
const plan = new PlanPanel(shown, controls, engine);
const { view, viewport, replay, search } = plan;
const tabs = new Tabs();

const input = new InputPanel(['half-open', 'inclusive', 'exclusive'], (request) => session.request(request));
input.onEdit = () => updateButtons();
const compare = new ComparePanel({
  runOne: (solver, show) => session.solveWith(solver, show),
  prepare: () => session.settle(),
  capacity: () => plan.capacity(),
  busyChanged: (busy, label, kind) => {
    session.setBusy(busy);
    if (label !== null) setStatus(label, busy ? 'busy' : kind);
  },
  diffPlans: (a, b) => engine.diff(a, b),
});
const models = new ModelPanel({
  load: async (source) => {
    const model = await session.loadModel(source);
    // A model's buffers say what they hold (inputs, outputs, temporaries): show that first.
    if (model && hasCategories(shown.inst)) colours.set('category');
    return model;
  },
  // memplan's best: auto at the controls' effort, seed and time limit, from the compiler's plan.
  solve: (warmStart) => session.run('auto', { warmStart }),
  diff: (a, b) => engine.diff(a, b),
  exportPlan: (offsets, format) => engine.exportPlan(offsets, format),
  download,
  showTab: () => tabs.show('model'),
  checkPlan: (offsets) => engine.checkPlan(offsets),
  shown: () => address.syncLater(),
});
input.onModel = (source) => void models.open(source);
const colours = new ColourControl([view, compare, models], () => shown.inst);

const address = new AddressSync(() =>
  pageState({
    loaded: shown.loaded,
    model: models.linkState(shown.inst),
    format: input.format,
    semantics: input.semantics,
    controls: controls.state(),
    maxThreads,
    compare: compare.checked,
    tab: tabs.open,
    ran: shown.result !== null,
    minimised: shown.minimisedUnder !== null,
    opened: initial,
  }),
);

const session = new Session(shown, engine, input, controls, {
  instanceChanged: (loaded) => {
    plan.showResult();
    compare.setInstance(shown.inst);
    colours.offer();
    plan.fit(true);
    if (loaded) address.syncLater();
  },
  resultChanged: (fit, sync) => {
    plan.showResult();
    plan.showPrompt(controls.solver);
    if (fit) plan.fit(false);
    if (sync) address.syncLater();
  },
  updateButtons: () => updateButtons(),
  running: showRunning,
  runEnded: () => showVerdict(shown),
});

/** Run is possible with an instance, or with an edit that Run would load first. */
function updateButtons() {
  const canRun = shown.inst !== null || input.pendingEdit;
  controls.setBusy(shown.solving, canRun);
  compare.runButton.disabled = shown.solving || !canRun;
  plan.showPrompt(controls.solver);
}

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
  session.setBusy(false);
};

colours.offer();
attachViewButtons(view, viewport);
attachExports(shown, engine, view);
tabs.onShow = (tab) => {
  if (tab === 'plan') view.draw();
  if (tab === 'model') models.draw();
  address.sync();
};
document.addEventListener('change', () => {
  address.sync();
  plan.showPrompt(controls.solver); // it names the solver chosen
});

$('share-button').addEventListener('click', async () => {
  const { url, omitted, modelOmitted } = address.link();
  const left = omitted
    ? ' — the instance is too large for a link, only the settings are in it'
    : modelOmitted ? ' — it carries the instance only: the compiler\'s plan is too large for a link' : '';
  const field = $<HTMLInputElement>('share-link');
  field.value = url;
  field.select();
  try {
    await navigator.clipboard.writeText(url);
    setStatus(`link copied${left}`);
  } catch {
    setStatus(left ? `link ready${left}` : 'link ready (copy it from the field)');
  }
});

controls.onRun = () => void (tabs.open === 'compare' ? compare.run() : session.run());
$('run-prompt-button').addEventListener('click', () => void session.run());
$('minimise-button').addEventListener('click', () => void session.run(shown.result?.summary.solver ?? controls.solver, { minimise: true }));
controls.onCancel = () => void session.cancel();
controls.onCapacity = () => plan.capacityChanged();
controls.onThreads = async (threads) => {
  if (shown.solving) await engine.cancel();
  setStatus(`restarting the worker with ${threads} thread${threads === 1 ? '' : 's'}…`, 'busy');
  await engine.restart(threads);
  setStatus(`${threads} thread${threads === 1 ? '' : 's'} ready`);
};

/** The first screen: the engine, the gallery, and the instance (and run) the address names, else
 * the default example solved at once. */
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
  if (initial.tab) tabs.show(initial.tab);
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
  if (ok && initial.model) {
    // A link made after a model import: its instance and the compiler's plan, compared again
    // (memplan's plan is solved by the Model tab itself).
    const inst = await session.settle();
    if (inst) await models.reopen(initial.model, inst);
  } else if (ok && initial.run && example?.kind !== 'model') {
    // (A gallery model is imported and solved by the Model tab itself.)
    await session.settle();
    if (initial.controls.capacity !== undefined) controls.setCapacity(initial.controls.capacity);
    if (shown.inst) await (initial.tab === 'compare' ? compare.run() : session.run(controls.solver, { minimise: initial.minimise }));
    if (initial.autoplay && shown.result && drawable(shown.result)) replay.start();
  }
  address.start();
  // Last, so that a test that waits for it finds the first screen finished.
  (window as unknown as { __memplan: unknown }).__memplan = {
    engine, view, viewport, compare, search, replay, tabs,
    state: () => ({ inst: shown.inst, result: shown.result, solving: shown.solving }),
  };
}

void start();
