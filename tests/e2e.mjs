// Browser tests of the playground: playwright-core driving Debian's Chromium against the built
// page. Usage: node tests/e2e.mjs [URL of `vite preview`, default http://127.0.0.1:4173]
// Needs dist/ (npm run build) and the memplan CLI the page is compared with: $MEMPLAN_CLI, else
// target/release/memplan, else target/debug/memplan.
// Prints one line per test, the measured figures, and "N passed, M failed" last. Screenshots go to
// tests/output/ (ignored by git): a test run changes no tracked file.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startStaticServer } from './static-server.mjs';
import { launchProfile, pageIdle } from './chromium.mjs';

const root = new URL('..', import.meta.url).pathname;
const base = (process.argv[2] ?? 'http://127.0.0.1:4173').replace(/\/$/, '');
const only = process.env.ONLY ? new RegExp(process.env.ONLY) : null;
const cli = process.env.MEMPLAN_CLI ?? [join(root, 'target/release/memplan'), join(root, 'target/debug/memplan')].find((p) => existsSync(p));
const examplesDir = join(root, 'public/examples');
const screenshots = join(root, 'tests/output');
mkdirSync(screenshots, { recursive: true });

const { context, close } = await launchProfile({ viewport: { width: 1400, height: 860 } });

let passed = 0, failed = 0;
const figures = [];
function assert(condition, message) {
  if (!condition) throw new Error(message);
}
async function test(name, body) {
  if (only && !only.test(name)) return;
  const began = Date.now();
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  try {
    await body(page);
    assert(errors.length === 0, `page errors: ${errors.join('; ')}`);
    passed++;
    console.log(`ok   ${name} (${((Date.now() - began) / 1000).toFixed(1)} s)`);
  } catch (error) {
    failed++;
    console.log(`FAIL ${name}: ${error?.message ?? error}`);
    try {
      await page.screenshot({ path: join(screenshots, `failed-${name.replace(/\W+/g, '-')}.png`) });
    } catch { /* page gone */ }
  } finally {
    await page.close();
  }
}

// ---- helpers --------------------------------------------------------------------------------------
const T = (id) => `[data-testid=${id}]`;
const status = (page) => page.textContent(T('status'));

async function idle(page, timeout = 60_000) {
  await pageIdle(page, { timeout });
}

async function open(page, query = '', url = base) {
  await page.goto(`${url}/${query}`);
  await page.waitForFunction(() => window.__memplan !== undefined, null, { timeout: 30_000 });
  await idle(page);
}

async function paste(page, text) {
  await page.fill(T('instance-input'), text);
  await page.waitForFunction(() => document.querySelector('[data-testid=status]').dataset.state === 'busy' ||
    document.querySelector('[data-testid=instance-input]').dataset.loaded !== undefined, null, { timeout: 5000 });
  await page.waitForTimeout(600); // the editor waits 450 ms after the last keystroke
  await idle(page);
}

async function run(page, solver, { timeLimit = '', seed = '0', capacity } = {}) {
  if (solver) await page.selectOption(T('solver-select'), solver);
  await page.fill('#time-limit', timeLimit);
  await page.fill('#seed-input', seed);
  if (capacity !== undefined) await page.fill(T('capacity-input'), capacity);
  await page.click(T('run-button'));
  await idle(page, 120_000);
  return page.getAttribute(T('makespan'), 'data-value');
}

/** The CLI's JSON line (run::Summary): `makespan` is null without a plan, integers past 2^53 are
 * decimal strings, `stopped` and `verdict` say why the run stopped. */
function cliSolve(file, solver, seed, timeLimit, out, extra = []) {
  const args = ['solve', file, '--solver', solver, '--seed', seed, ...extra];
  if (timeLimit !== undefined && timeLimit !== '') args.push('--time-limit', timeLimit);
  if (out) args.push('--out', out);
  let text;
  try {
    text = execFileSync(cli, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    text = error.stdout; // exit 1: infeasible for the capacity (a summary all the same)
  }
  return JSON.parse(text.trim().split('\n').pop());
}
/** The CLI's makespan as the page's makespan cell holds it in data-value ('' without a plan). */
const cliMakespan = (summary) => (summary.makespan === null ? '' : String(summary.makespan));

/** What the page says about why the run stopped: the reason's name, its words and its tone. */
async function verdict(page) {
  return page.evaluate(() => {
    const box = document.querySelector('[data-testid=verdict]');
    return { visible: !box.classList.contains('empty'), stopped: box.dataset.stopped, text: box.querySelector('b').textContent, detail: box.querySelector('span').textContent, tone: box.className };
  });
}

/** The tone the page gives a stop reason (as web/src/verdict.ts), to check the CLI's reason is a proof. */
const toneClass = (stopped) => ({ lower_bound: 'proven', optimal: 'proven', fits: 'proven', completed: 'heuristic', given: 'heuristic' })[stopped] ?? 'other';

/** Screenshots at the desktop size and at a phone's (390x844), into tests/output/. */
async function shoot(page, name) {
  await page.mouse.move(0, 0);
  await page.waitForTimeout(150);
  await page.screenshot({ path: join(screenshots, `${name}.png`) });
  const size = page.viewportSize();
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(250);
  await page.screenshot({ path: join(screenshots, `${name}-390.png`) });
  await page.setViewportSize(size);
  await page.waitForTimeout(150);
}

const maxLongTask = (page, since = 0) => page.evaluate((t) => Math.max(0, ...window.__longtasks.filter((e) => e.start >= t).map((e) => e.duration)), since);
const now = (page) => page.evaluate(() => performance.now());

const index = JSON.parse(readFileSync(join(examplesDir, 'index.json'), 'utf8')).examples;
const small = join(examplesDir, 'handmade/small.csv');
const smallText = readFileSync(small, 'utf8');

/** What is wrong with the layout at the page's size, as sentences (none: nothing). Checked on
 * the boxes the browser laid out, not on pixels:
 * - `apart`: selectors of boxes that must not overlap one another (page coordinates, so that a
 *   box drawn over another after a scroll counts; one that holds another is its container);
 * - `whole`: selectors of elements that must be seen whole: none is cut by a box around it that
 *   clips (an inner scroll box smaller than it, or a cell cut by its table) once scrolled to;
 * - `fits`: selectors of elements whose text must fit their box (no ellipsis, no cut word);
 * - `lines`: selectors of elements whose text must stay on one line;
 * and the page never scrolls sideways. */
async function layoutProblems(page, { apart = [], whole = [], fits = [], lines = [] }) {
  return page.evaluate(({ apart, whole, fits, lines }) => {
    const problems = [];
    const W = innerWidth, H = innerHeight;
    const name = (e) => e.dataset.testid ?? e.dataset.solver ?? (e.id || `${e.tagName.toLowerCase()}.${e.className}`);
    const shown = (e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden'; };
    if (document.documentElement.scrollWidth > W) problems.push(`the page is ${document.documentElement.scrollWidth} px wide at ${W}`);
    // Overlaps, in page coordinates.
    const boxes = apart.flatMap((s) => [...document.querySelectorAll(s)]).filter(shown).map((e) => {
      const r = e.getBoundingClientRect();
      return { e, x0: r.left + scrollX, x1: r.right + scrollX, y0: r.top + scrollY, y1: r.bottom + scrollY };
    });
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i], b = boxes[j];
        if (a.e.contains(b.e) || b.e.contains(a.e)) continue;
        const w = Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0), h = Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
        if (w > 1 && h > 1) problems.push(`${name(a.e)} overlaps ${name(b.e)} (${Math.round(w)}×${Math.round(h)} px)`);
      }
    }
    // Seen whole: scrolled into view, the element is inside every clipping box around it and
    // inside the window.
    for (const e of whole.flatMap((s) => [...document.querySelectorAll(s)]).filter(shown)) {
      e.scrollIntoView({ block: 'nearest', inline: 'nearest' });
      const r = e.getBoundingClientRect();
      let x0 = 0, y0 = 0, x1 = W, y1 = H;
      for (let p = e.parentElement; p && p !== document.body && p !== document.documentElement; p = p.parentElement) {
        const style = getComputedStyle(p);
        if (style.overflowX === 'visible' && style.overflowY === 'visible') continue;
        const c = p.getBoundingClientRect();
        x0 = Math.max(x0, c.left); y0 = Math.max(y0, c.top); x1 = Math.min(x1, c.right); y1 = Math.min(y1, c.bottom);
      }
      const seen = Math.max(0, Math.min(r.bottom, y1) - Math.max(r.top, y0)), across = Math.max(0, Math.min(r.right, x1) - Math.max(r.left, x0));
      if (seen < r.height - 1 || across < r.width - 1) problems.push(`${name(e)} is cut: ${Math.round(across)}×${Math.round(seen)} of ${Math.round(r.width)}×${Math.round(r.height)} px seen`);
    }
    for (const e of fits.flatMap((s) => [...document.querySelectorAll(s)]).filter(shown)) {
      if (e.scrollWidth > e.clientWidth + 1) problems.push(`${name(e)}'s text is cut: "${e.textContent.trim().slice(0, 60)}" needs ${e.scrollWidth} px, has ${e.clientWidth}`);
      if (e.scrollHeight > e.clientHeight + 1) problems.push(`${name(e)}'s text is cut: "${e.textContent.trim().slice(0, 60)}" needs ${e.scrollHeight} px high, has ${e.clientHeight}`);
    }
    for (const e of lines.flatMap((s) => [...document.querySelectorAll(s)]).filter(shown)) {
      // The lines its text fills (text only: a checkbox beside it is not a line).
      const bottoms = [];
      const walk = document.createTreeWalker(e, NodeFilter.SHOW_TEXT);
      for (let t = walk.nextNode(); t; t = walk.nextNode()) {
        const range = document.createRange();
        range.selectNodeContents(t);
        for (const r of range.getClientRects()) if (r.width > 0 && !bottoms.some((b) => Math.abs(b - r.bottom) < 3)) bottoms.push(r.bottom);
      }
      if (bottoms.length > 1) problems.push(`${name(e)} wraps onto ${bottoms.length} lines: "${e.textContent.trim().slice(0, 60)}"`);
    }
    window.scrollTo(0, 0);
    return problems;
  }, { apart, whole, fits, lines });
}

// ---- tests ----------------------------------------------------------------------------------------
await test('cross-origin isolated, threaded build with more than one thread', async (page) => {
  await open(page);
  assert(await page.evaluate(() => crossOriginIsolated), 'page is not cross-origin isolated');
  const badge = page.locator(T('threads'));
  assert((await badge.getAttribute('data-build')) === 'threads', `build is ${await badge.getAttribute('data-build')}`);
  const threads = Number(await badge.getAttribute('data-threads'));
  assert(threads > 1, `${threads} thread(s)`);
  assert(/threaded wasm · \d+ threads/.test(await badge.textContent()), 'badge does not say which build runs');
});

await test('every example of the gallery loads', async (page) => {
  await open(page);
  for (const example of index) {
    await page.selectOption(T('example-select'), example.id);
    await idle(page);
    const loaded = await page.getAttribute(T('instance-input'), 'data-loaded');
    assert(Number(loaded) === example.buffers, `${example.id}: ${loaded} buffers loaded, expected ${example.buffers} (${await status(page)})`);
    // The gallery shows the instance's max load, and it is the loaded instance's.
    const maxLoad = await page.evaluate(() => String(window.__memplan.state().inst.summary.max_load));
    assert(maxLoad === example.max_load, `${example.id}: L ${maxLoad} loaded, ${example.max_load} in index.json`);
    const label = await page.$eval(`${T('example-select')} option[value="${example.id}"]`, (o) => o.textContent);
    assert(/ · L \d/.test(label) && !/ · [\d.]+ (B|KiB|MiB)$/.test(label.replace(/ · L .*/, '')), `${example.id}: gallery label ${label}`);
  }
});

await test('the gallery figures in index.json match the CLI (scripts/examples-index.mjs --check)', async () => {
  execFileSync(process.execPath, [join(root, 'scripts/examples-index.mjs'), '--check'], { encoding: 'utf8', env: { ...process.env, MEMPLAN_CLI: cli }, stdio: ['ignore', 'pipe', 'pipe'] });
});

await test('each solver gives the CLI makespan and plan on a pasted CSV (same seed)', async (page) => {
  await open(page);
  await paste(page, smallText);
  // The capacity that came with the example loaded first must not carry over to the pasted text.
  const capacity = await page.inputValue(T('capacity-input'));
  assert(capacity === '', `the previous example's capacity stayed: '${capacity}'`);
  // The small example is aligned: a solver whose capabilities say it takes no alignment (`peak`)
  // declines it, on the page as in the CLI, so it is left out here.
  const solvers = await page.evaluate(() =>
    window.__memplan.engine.info.catalogue.solvers.filter((s) => s.capabilities.alignment).map((s) => s.name));
  assert(solvers.length >= 10, `only ${solvers.length} solvers listed`);
  const out = join(tmpdir(), `memplan-e2e-${process.pid}.csv`);
  const mismatches = [];
  for (const solver of [...solvers, 'greedy-contention-best']) {
    if (solver.startsWith('greedy-')) {
      await page.selectOption(T('solver-select'), 'greedy-…');
      await page.selectOption('#order-select', 'contention');
      await page.selectOption('#fit-select', 'best');
    }
    if (!solver.startsWith('greedy-')) {
      // The solver's declared parameters get a control each, from the core's list.
      await page.selectOption(T('solver-select'), solver);
      const declared = await page.evaluate((name) => window.__memplan.engine.info.catalogue.solvers.find((s) => s.name === name).parameters.length, solver);
      const shown = await page.locator('#params input[data-param]').count();
      if (shown !== declared) mismatches.push(`${solver}: ${shown} parameter controls for ${declared} parameters`);
    }
    const web = await run(page, solver.startsWith('greedy-') ? null : solver, { timeLimit: '20', seed: '7' });
    const native = cliSolve(small, solver, '7', '20', out);
    if (cliMakespan(native) !== web) mismatches.push(`${solver}: page ${web}, CLI ${native.makespan}`);
    const shown = await verdict(page);
    if (shown.stopped !== native.stopped || !shown.text.endsWith(native.verdict)) {
      mismatches.push(`${solver}: page stopped ${shown.stopped} '${shown.text}', CLI ${native.stopped} '${native.verdict}'`);
    }
    const exported = await page.evaluate(async () => {
      const { engine, state } = window.__memplan;
      return engine.exportPlan(state().result.offsets, 'csv');
    });
    if (exported.trim() !== readFileSync(out, 'utf8').trim()) mismatches.push(`${solver}: the plans differ`);
  }
  rmSync(out, { force: true });
  assert(mismatches.length === 0, mismatches.join('; '));
  figures.push(`same plan in wasm and natively: ${solvers.length + 1} solvers on handmade/small.csv, seed 7 — identical makespans and offsets`);
});

await test('the page says why each run stopped: optimal, budget, time limit, infeasible without a plan', async (page) => {
  // The first screen: the default example and the default solver, run once.
  await open(page);
  const defaultExample = index.find((e) => e.id === 'minimalloc/challenging/C');
  const file = join(examplesDir, defaultExample.path);
  const solver = await page.inputValue(T('solver-select'));
  await page.click(T('run-button'));
  await idle(page, 120_000);
  // The example comes with a capacity: the run stops at a plan that fits it (proven to fit).
  let native = cliSolve(file, solver, '0', undefined, undefined, ['--capacity', defaultExample.capacity]);
  let shown = await verdict(page);
  assert(shown.visible && shown.stopped === native.stopped && shown.text.endsWith(native.verdict) && /proven/.test(shown.tone),
    `default run: page ${JSON.stringify(shown)}, CLI ${native.stopped} '${native.verdict}'`);
  assert((await page.getAttribute(T('makespan'), 'data-value')) === cliMakespan(native), 'default run: makespan differs from the CLI');
  await shoot(page, 'first-screen');

  // Without the capacity it minimises, and proves the plan optimal.
  const optimal = await run(page, solver, { capacity: '' });
  native = cliSolve(file, solver, '0');
  shown = await verdict(page);
  assert(native.optimal, `the CLI's ${solver} is not optimal on the default example: ${native.stopped}`);
  assert(shown.stopped === native.stopped && shown.text.endsWith(native.verdict) && /proven/.test(shown.tone), `optimal run: ${JSON.stringify(shown)}, CLI ${native.stopped}`);
  assert(optimal === cliMakespan(native), `optimal run: page ${optimal}, CLI ${native.makespan}`);
  await shoot(page, 'verdict-optimal');

  // A work budget: MiniMalloc with a node budget of 5 stops before a proof, with its best plan.
  await page.selectOption(T('solver-select'), 'minimalloc');
  await page.fill('#params input[data-param=budget]', '5');
  const budgeted = await run(page, null);
  native = cliSolve(file, 'minimalloc', '0', undefined, undefined, ['--param', 'budget=5']);
  shown = await verdict(page);
  assert(native.stopped === 'budget', `the CLI stopped for ${native.stopped}, not its budget`);
  assert(shown.stopped === 'budget' && shown.text.endsWith(native.verdict) && /interrupted/.test(shown.tone), `budget run: ${JSON.stringify(shown)}`);
  assert(budgeted === cliMakespan(native), `budget run: page ${budgeted}, CLI ${native.makespan}`);
  assert(/lower bound/.test(shown.detail), `a result short of a proof does not give its bound: '${shown.detail}'`);
  await shoot(page, 'verdict-budget');

  // A time limit of 0 s has passed at once: the best plan before any search.
  await page.fill('#params input[data-param=budget]', '');
  const limited = await run(page, null, { timeLimit: '0' });
  native = cliSolve(file, 'minimalloc', '0', '0');
  shown = await verdict(page);
  assert(native.stopped === 'time_limit', `the CLI stopped for ${native.stopped}, not its time limit`);
  assert(shown.stopped === 'time_limit' && shown.text.endsWith(native.verdict) && /interrupted/.test(shown.tone), `time-limited run: ${JSON.stringify(shown)}`);
  assert(limited === cliMakespan(native), `time-limited run: page ${limited}, CLI ${native.makespan}`);
  await shoot(page, 'verdict-time-limit');

  // Below the max load nothing fits: MiniMalloc proves it and returns no plan. The previous plan
  // is cleared (not left on screen) and the page says why.
  assert((await page.evaluate(() => window.__memplan.view.lastMode)) === 'rectangles', 'the previous plan is not drawn');
  const none = await run(page, null, { capacity: '1000000' });
  native = cliSolve(file, 'minimalloc', '0', undefined, undefined, ['--capacity', '1000000']);
  shown = await verdict(page);
  assert(native.stopped === 'infeasible' && native.makespan === null, `the CLI: ${native.stopped}, makespan ${native.makespan}`);
  assert(none === '' && (await page.textContent(T('makespan'))) === 'no plan', `an infeasible run shows makespan '${await page.textContent(T('makespan'))}'`);
  assert(shown.stopped === 'infeasible' && shown.text.endsWith(native.verdict) && /infeasible/.test(shown.tone), `infeasible run: ${JSON.stringify(shown)}`);
  assert(shown.detail === native.detail, `the core's detail is not shown: '${shown.detail}'`);
  assert(/infeasible/.test(await status(page)) && (await page.getAttribute(T('status'), 'data-state')) === 'error', `status: ${await status(page)}`);
  await page.waitForTimeout(100);
  assert(await page.evaluate(() => window.__memplan.view.plan.result === null && window.__memplan.view.lastMode !== 'rectangles'), 'the previous plan is still drawn');
  assert(await page.isDisabled('#export-csv'), 'no plan, yet it can be exported');
  await shoot(page, 'verdict-infeasible');

  // A heuristic's plan over the capacity: the plan is shown, over the capacity line, and why.
  await run(page, 'slff', { capacity: '1000000' });
  native = cliSolve(file, 'slff', '0', undefined, undefined, ['--capacity', '1000000']);
  shown = await verdict(page);
  assert(shown.stopped === native.stopped && shown.text.endsWith(native.verdict), `slff over capacity: ${JSON.stringify(shown)}, CLI ${native.stopped}`);
  assert((await page.getAttribute(T('makespan'), 'data-value')) === cliMakespan(native), 'slff over capacity: makespan differs');
  await shoot(page, 'verdict-over-capacity');

  // A request the core refuses (a capacity it cannot read) runs nothing: the previous plan goes,
  // and the page says why.
  await run(page, 'slff', { capacity: '12 apples' });
  shown = await verdict(page);
  assert(shown.visible && /not run/.test(shown.text) && /capacity/.test(shown.detail) && /infeasible/.test(shown.tone), `refused run: ${JSON.stringify(shown)}`);
  assert((await page.getAttribute(T('status'), 'data-state')) === 'error' && /refused/.test(await status(page)), `status: ${await status(page)}`);
  assert((await page.textContent(T('makespan'))) === '—' && (await page.evaluate(() => window.__memplan.view.plan.result === null)), 'the previous plan stayed after a refused run');
  await shoot(page, 'verdict-refused');
});

await test('first screen: the default example solved by auto, within its capacity, saying why it stopped', async (page) => {
  // No query: the page loads its default example and solves it with the default solver at once.
  await open(page);
  const defaultExample = index.find((e) => e.id === 'minimalloc/challenging/C');
  const solver = await page.inputValue(T('solver-select'));
  assert(solver === 'auto', `default solver ${solver}`);
  assert((await page.inputValue(T('example-select'))) === defaultExample.id, 'not the default example');
  assert((await page.inputValue(T('capacity-input'))) === defaultExample.capacity, "the example's capacity is not shown");
  const native = cliSolve(join(examplesDir, defaultExample.path), 'auto', '0', undefined, undefined, ['--capacity', defaultExample.capacity]);
  assert(native.feasible && /proven/.test(toneClass(native.stopped)), `the CLI itself does not fit the default example: ${native.stopped}`);
  const shown = await verdict(page);
  assert(shown.visible && shown.stopped === native.stopped && shown.text.endsWith(native.verdict) && /proven/.test(shown.tone),
    `first screen: ${JSON.stringify(shown)}, CLI ${native.stopped}`);
  const makespan = await page.getAttribute(T('makespan'), 'data-value');
  assert(makespan === cliMakespan(native) && BigInt(makespan) <= BigInt(defaultExample.capacity), `makespan ${makespan}, CLI ${native.makespan}`);
  const check = page.locator('#result-valid');
  assert((await check.textContent()) === 'valid' && (await check.getAttribute('class')) === 'good', `check says ${await check.textContent()}`);
  assert(!/over capacity/.test(await page.textContent('#plan-pane')), 'the first screen says over capacity');
  await shoot(page, 'first-screen');
});

await test('minimise in one click: a plan that stops at the first fit is minimised without the capacity', async (page) => {
  await open(page); // the first screen: auto fits the default example's capacity and stops there
  const defaultExample = index.find((e) => e.id === 'minimalloc/challenging/C');
  assert((await verdict(page)).stopped === 'fits', 'the first screen does not stop at the first fit');
  assert(await page.isVisible(T('minimise-button')), 'no minimise offered after a plan that only fits');
  await page.click(T('minimise-button'));
  await idle(page, 120_000);
  const native = cliSolve(join(examplesDir, defaultExample.path), 'auto', '0');
  const shown = await verdict(page);
  assert(shown.stopped === native.stopped && shown.text.endsWith(native.verdict) && /proven/.test(shown.tone), `after minimise: ${JSON.stringify(shown)}, CLI ${native.stopped}`);
  assert((await page.getAttribute(T('makespan'), 'data-value')) === cliMakespan(native), 'minimised makespan differs from the CLI without a capacity');
  assert(/within 1\.00 MiB/.test(await page.textContent(T('verdict-note'))), `note: ${await page.textContent(T('verdict-note'))}`);
  assert((await page.inputValue(T('capacity-input'))) === defaultExample.capacity, 'minimise cleared the capacity field');
  assert(!(await page.isVisible(T('minimise-button'))), 'minimise still offered after minimising');
  await shoot(page, 'minimised');
  // Its share link reproduces the minimised plan, not the first fit.
  await page.click('#share-button');
  const link = await page.inputValue(T('share-link'));
  assert(/run=min/.test(link), `share link ${link}`);
  const other = await page.context().newPage();
  await open(other, link.slice(link.indexOf('?')));
  assert((await other.getAttribute(T('makespan'), 'data-value')) === cliMakespan(native), 'the shared link does not reproduce the minimised plan');
  assert(/within/.test(await other.textContent(T('verdict-note'))), 'the shared link does not say the plan is within the capacity');
  await other.close();
});

await test('a failed solve clears the previous result: no plan, no figures', async (page) => {
  await open(page); // the first screen has a result
  assert(await page.getAttribute(T('makespan'), 'data-value'), 'no first result');
  // A parameter out of its range: the core refuses the request and nothing runs.
  await page.selectOption(T('solver-select'), 'minimalloc');
  await page.fill('input[data-param=orderings]', '99');
  await page.click(T('run-button'));
  await idle(page);
  const shown = await verdict(page);
  assert(/not run|failed/.test(shown.text) && /infeasible/.test(shown.tone), `verdict after a refused run: ${JSON.stringify(shown)}`);
  for (const id of ['makespan', 'fragmentation', 'elapsed']) assert((await page.textContent(`#${id}`)) === '—', `${id} still shows ${await page.textContent(`#${id}`)}`);
  assert(await page.evaluate(() => window.__memplan.view.plan.result === null && window.__memplan.state().result === null), 'the previous plan is still drawn');
  assert(await page.isDisabled('#export-csv'), 'the previous plan can still be exported');
  assert(!(await page.isVisible(T('minimise-button'))), 'minimise offered without a result');
});

await test('the Format selector after a JSON file then a pasted CSV reads the CSV', async (page) => {
  await open(page);
  const json = JSON.stringify({ buffers: [{ id: 'a', start: 0, end: 2, size: 4 }, { id: 'b', start: 1, end: 3, size: 4 }] });
  await page.setInputFiles('#file-input', { name: 'two.json', mimeType: 'application/json', buffer: Buffer.from(json) });
  await page.waitForFunction(() => document.querySelector('[data-testid=instance-input]').dataset.loaded === '2', null, { timeout: 10_000 });
  await idle(page);
  assert((await page.inputValue('#format-select')) === 'json', 'a .json file is not shown as JSON');
  await paste(page, smallText);
  assert((await page.inputValue('#format-select')) === '', `format after a pasted CSV: ${await page.inputValue('#format-select')}`);
  const loaded = await page.getAttribute(T('instance-input'), 'data-loaded');
  assert(loaded === '14' && (await page.locator(`${T('errors')} li`).count()) === 0, `the pasted CSV did not load (${loaded} buffers): ${await status(page)}`);
  // A format the user picks stays through an edit.
  await page.selectOption('#format-select', 'csv');
  await idle(page);
  await paste(page, `${smallText}\n`);
  assert((await page.inputValue('#format-select')) === 'csv', 'the chosen format did not survive an edit');
});

await test('progress: the bound from the start, then best and bound as the core reports, in honest units', async (page) => {
  await open(page, '?gen=40000:5');
  await page.selectOption(T('solver-select'), 'auto');
  await page.click(T('run-button'));
  await page.waitForFunction(() => document.querySelector('[data-testid=verdict]').classList.contains('running'), null, { timeout: 5000 });
  const early = await page.textContent('#verdict-detail');
  assert(/bound [\d,]+/.test(early), `the first progress line has no bound: ${early}`);
  const seen = new Set();
  while ((await page.getAttribute(T('status'), 'data-state')) === 'busy') {
    seen.add(await page.textContent('#verdict-detail'));
    await page.waitForTimeout(200);
  }
  const lines = [...seen];
  assert(lines.some((l) => /best [\d,]+/.test(l)), `no best plan while running: ${lines.join(' | ')}`);
  assert(!lines.some((l) => /\b(nodes|work)\b/.test(l)), `a line counts work in an unnamed unit: ${lines.join(' | ')}`);
  figures.push(`progress lines during auto on a 40k trace: ${lines.length}, the first: "${early}"`);
});

await test('phone (390x844) and embeds (800x450, 640x360): nothing overflows, the plan has room', async (page) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await open(page);
  const width = () => page.evaluate(() => document.documentElement.scrollWidth);
  assert((await width()) <= 390, `phone: the page is ${await width()} px wide`);
  await page.selectOption(T('solver-select'), 'minimalloc'); // the solver with the most parameters
  assert((await width()) <= 390, `phone, minimalloc's parameters: ${await width()} px wide`);
  const budget = await page.getAttribute('input[data-param=budget]', 'placeholder');
  assert(budget === 'unlimited', `budget placeholder ${budget}`);
  await page.click('#tab-compare');
  await page.click(T('compare-run'));
  await idle(page, 120_000);
  assert((await width()) <= 390, `phone, compare: ${await width()} px wide`);
  await page.screenshot({ path: join(screenshots, 'phone-compare-390.png') });
  for (const [w, h] of [[800, 450], [640, 360]]) {
    await page.setViewportSize({ width: w, height: h });
    await open(page, '?embed');
    assert((await width()) <= w, `embed ${w}x${h}: ${await width()} px wide`);
    const plan = await page.locator(T('plan-canvas')).boundingBox();
    assert(plan && plan.height >= h * 0.45 && plan.y + plan.height <= h + 1, `embed ${w}x${h}: the plan is ${JSON.stringify(plan)}`);
    assert((await verdict(page)).visible, `embed ${w}x${h}: no verdict`);
    await page.screenshot({ path: join(screenshots, `embed-${w}x${h}.png`) });
  }
});

await test('Run at once after a paste solves the pasted instance, not the one before', async (page) => {
  await open(page); // the default example (203 buffers) is loaded
  const native = cliSolve(small, 'slff', '0');
  assert(native.buffers !== 203, 'the pasted instance must differ from the default');
  await page.selectOption(T('solver-select'), 'slff');
  // Paste and press Run in the same breath, well inside the editor's pause before it parses.
  await page.fill(T('instance-input'), smallText);
  await page.click(T('run-button'));
  await idle(page, 60_000);
  const state = await page.evaluate(() => {
    const { inst, result } = window.__memplan.state();
    return { loaded: inst?.n, buffers: result?.summary.buffers, makespan: result ? String(result.summary.makespan) : null };
  });
  assert(state.loaded === native.buffers && state.buffers === native.buffers, `solved ${state.buffers} buffers (loaded ${state.loaded}), the paste has ${native.buffers}: ${await status(page)}`);
  assert((await page.getAttribute(T('makespan'), 'data-value')) === cliMakespan(native), `makespan ${await page.getAttribute(T('makespan'), 'data-value')}, CLI ${native.makespan}`);
  assert((await verdict(page)).stopped === native.stopped, 'the run does not say why it stopped');
  // Nothing arrives later to replace it (the editor's pause has long passed).
  await page.waitForTimeout(700);
  assert((await page.getAttribute(T('makespan'), 'data-value')) === cliMakespan(native), 'a late parse replaced the result');
  assert(/slff/.test(await status(page)), `status: ${await status(page)}`);

  // From an input with errors (Run disabled), an edit enables Run, and Run loads it first.
  await paste(page, 'id,lower,upper,size\na,0,4,x\n');
  assert(await page.isDisabled(T('run-button')), 'Run is enabled without an instance');
  const other = 'id,lower,upper,size\na,0,4,16\nb,2,6,8\nc,5,9,16\n';
  await page.fill(T('instance-input'), other);
  assert(!(await page.isDisabled(T('run-button'))), 'an edit does not enable Run');
  await page.click(T('run-button'));
  await idle(page, 60_000);
  const file = join(tmpdir(), `memplan-e2e-paste-${process.pid}.csv`);
  writeFileSync(file, other);
  const expected = cliSolve(file, 'slff', '0');
  rmSync(file, { force: true });
  assert((await page.getAttribute(T('makespan'), 'data-value')) === cliMakespan(expected), `edited text: makespan ${await page.getAttribute(T('makespan'), 'data-value')}, CLI ${expected.makespan}`);
  assert((await page.evaluate(() => window.__memplan.state().result?.summary.buffers)) === 3, 'the edited text was not the one solved');
});

await test('sizes past 2^53 stay exact: page and CLI agree on a makespan past 2^53', async (page) => {
  await open(page);
  const text = 'id,lower,upper,size\na,0,4,1152921504606846976\nb,2,6,1152921504606846976\nc,5,9,1099511627776\n';
  const file = join(tmpdir(), `memplan-e2e-huge-${process.pid}.csv`);
  writeFileSync(file, text);
  const native = cliSolve(file, 'slff', '0');
  rmSync(file, { force: true });
  // The CLI's JSON line writes integers past 2^53 - 1 as decimal strings.
  assert(typeof native.makespan === 'string' && typeof native.max_load === 'string', `CLI makespan ${JSON.stringify(native.makespan)}`);
  await paste(page, text);
  const makespan = await run(page, 'slff', { capacity: '' });
  assert(makespan === native.makespan, `page ${makespan}, CLI ${native.makespan}`);
  const shown = await verdict(page);
  assert(shown.stopped === native.stopped && shown.text.endsWith(native.verdict), `verdict ${JSON.stringify(shown)}, CLI ${native.stopped}`);
  assert((await page.textContent(T('makespan'))) === BigInt(native.makespan).toLocaleString('en-US'), `shown as ${await page.textContent(T('makespan'))}`);
});

await test('dropping a file loads it', async (page) => {
  await open(page);
  const text = readFileSync(join(examplesDir, 'minimalloc/challenging/A.1048576.csv'), 'utf8');
  const transfer = await page.evaluateHandle((content) => {
    const dt = new DataTransfer();
    dt.items.add(new File([content], 'A.1048576.csv', { type: 'text/csv' }));
    return dt;
  }, text);
  await page.dispatchEvent(T('file-drop'), 'dragenter', { dataTransfer: transfer });
  await page.dispatchEvent(T('file-drop'), 'drop', { dataTransfer: transfer });
  await page.waitForFunction(() => document.querySelector('[data-testid=instance-input]').dataset.loaded === '154', null, { timeout: 15_000 });
  assert((await status(page)).includes('A.1048576.csv'), `status: ${await status(page)}`);
  const makespan = await run(page, 'slff');
  assert(makespan === cliMakespan(cliSolve(join(examplesDir, 'minimalloc/challenging/A.1048576.csv'), 'slff', '0')), 'dropped file plans differently');
});

await test('a bad line shows its error and line number, and nothing loads', async (page) => {
  await open(page);
  await paste(page, 'id,lower,upper,size\na,0,4,16\nb,5,2,8\nc,1,3,x\n');
  const errors = await page.textContent(T('errors'));
  assert(/line 3\b/.test(errors) && /line 4\b/.test(errors), `errors: ${errors}`);
  assert((await status(page)).includes('line 3'), `status: ${await status(page)}`);
  assert(await page.isDisabled(T('run-button')), 'run is enabled without an instance');
  assert((await page.getAttribute(T('instance-input'), 'data-loaded')) === '0', 'something half-loaded');
  const marks = await page.locator('#editor-marks div').count();
  assert(marks === 2, `${marks} lines marked in the editor`);
  // Line numbers: the two lines with errors are marked there, their message on hover.
  const gutter = await page.$$eval(`${T('editor-gutter')} div`, (divs) => divs.map((d) => [d.textContent, d.className, d.title]));
  assert(gutter.slice(0, 5).map((g) => g[0]).join() === '1,2,3,4,5', `line numbers: ${JSON.stringify(gutter)}`);
  const bad = gutter.filter((g) => g[1] === 'bad');
  assert(bad.length === 2 && bad[0][0] === '3' && /line 3/.test(bad[0][2]) && bad[1][0] === '4' && /line 4/.test(bad[1][2]), `marked numbers: ${JSON.stringify(bad)}`);
});

await test('an invalid plan is shown as an error and never drawn; a valid one is drawn', async (page) => {
  await open(page);
  // A plan file whose offsets overlap (b sits inside a while both are alive).
  await paste(page, 'id,lower,upper,size,offset\na,0,4,16,0\nb,1,3,8,8\nc,4,6,8,0\n');
  assert(/INVALID/.test(await status(page)), `status: ${await status(page)}`);
  assert(await page.isVisible('#violations'), 'violations not shown');
  assert(/overlaps/.test(await page.textContent('#violations')), 'the violation is not described');
  assert((await page.textContent(T('makespan'))) === 'invalid', 'makespan shown for an invalid plan');
  await page.waitForTimeout(100);
  assert((await page.evaluate(() => window.__memplan.view.lastMode)) !== 'rectangles', 'the invalid plan was drawn');
  assert(await page.isDisabled('#export-csv'), 'an invalid plan can be exported');
  // The CLI's output for a valid plan is shown as it is, and checked.
  const out = join(tmpdir(), `memplan-e2e-plan-${process.pid}.csv`);
  const native = cliSolve(small, 'tvm', '0', '', out);
  await paste(page, readFileSync(out, 'utf8'));
  rmSync(out, { force: true });
  assert((await page.getAttribute(T('makespan'), 'data-value')) === cliMakespan(native), 'input plan makespan differs');
  await page.waitForTimeout(100);
  assert((await page.evaluate(() => window.__memplan.view.lastMode)) === 'rectangles', 'the valid plan was not drawn');
});

await test('cancel stops a long solve and the page stays responsive', async (page) => {
  await open(page);
  await page.fill('#gen-buffers', '200000');
  await page.fill('#gen-seed', '3');
  await page.click('#gen-button');
  await idle(page, 120_000);
  await page.selectOption(T('solver-select'), 'auto');
  await page.selectOption('#effort-select', 'high');
  await page.fill(T('capacity-input'), '');
  await page.click(T('run-button'));
  await page.waitForTimeout(1500);
  assert((await page.getAttribute(T('status'), 'data-state')) === 'busy', `not solving: ${await status(page)}`);
  const before = Date.now();
  await page.click(T('cancel-button'));
  await idle(page, 30_000);
  const stopped = Date.now() - before;
  // The core says the run was cancelled, with its best plan so far (or none), and the page says so.
  const shown = await verdict(page);
  assert(shown.visible && shown.stopped === 'cancelled' && /interrupted/.test(shown.tone), `verdict after cancel: ${JSON.stringify(shown)}`);
  assert(/cancelled/.test(shown.text), `verdict text after cancel: ${shown.text}`);
  const plan = await page.getAttribute(T('makespan'), 'data-value');
  const drawn = await page.evaluate(() => window.__memplan.view.plan?.result !== null);
  assert(drawn === (plan !== ''), `a cancelled run ${plan ? 'with' : 'without'} a plan is ${drawn ? '' : 'not '}drawn`);
  await shoot(page, 'verdict-cancelled');
  const t0 = Date.now();
  await page.evaluate(() => 1 + 1);
  const answer = Date.now() - t0;
  assert(answer < 1000, `page took ${answer} ms to answer`);
  assert(!(await page.isDisabled(T('run-button'))), 'run stays disabled after cancel');
  // It can solve again after the cancel.
  const makespan = await run(page, 'slff');
  assert(makespan, 'no result after cancel');
  assert((await verdict(page)).stopped === 'completed', 'the next run does not say why it stopped');
  figures.push(`cancel: auto (effort high, 200k buffers) stopped ${stopped} ms after the click`);
});

await test('a share link round-trips (example and settings; pasted text)', async (page) => {
  await open(page, '?ex=minimalloc/challenging/D');
  const makespan = await run(page, 'xla', { seed: '5', capacity: '1MiB', timeLimit: '3' });
  await page.click('#share-button');
  const link = await page.inputValue(T('share-link'));
  assert(link.includes('ex=minimalloc%2Fchallenging%2FD') && link.includes('solver=xla') && link.includes('seed=5'), `link: ${link}`);
  const other = await context.newPage();
  await open(other, link.slice(link.indexOf('?')));
  await other.waitForFunction(() => document.querySelector('[data-testid=makespan]').dataset.value, null, { timeout: 30_000 });
  assert((await other.getAttribute(T('makespan'), 'data-value')) === makespan, 'shared page plans differently');
  assert((await other.inputValue(T('solver-select'))) === 'xla', 'solver not restored');
  assert((await other.inputValue(T('capacity-input'))) === '1MiB', 'capacity not restored');
  assert((await other.inputValue('#seed-input')) === '5', 'seed not restored');
  assert((await other.inputValue('#time-limit')) === '3', 'time limit not restored');
  await other.close();
  // A pasted instance travels compressed in the link.
  await paste(page, smallText);
  await page.click('#share-button');
  const inline = await page.inputValue(T('share-link'));
  assert(inline.includes('src='), `no instance in ${inline}`);
  const third = await context.newPage();
  await open(third, inline.slice(inline.indexOf('?')));
  await idle(third);
  assert((await third.inputValue(T('instance-input'))) === smallText, 'pasted text did not survive the link');
  await third.close();
});

await test('the address follows the page: settings, instance and run are in it, and reloading gives the same plan', async (page) => {
  await open(page, '?ex=handmade/small');
  let query = new URLSearchParams(await page.evaluate(() => location.search));
  assert(query.get('ex') === 'handmade/small' && !query.has('run'), `after a load: ${query}`);
  const makespan = await run(page, 'slff', { seed: '3' });
  query = new URLSearchParams(await page.evaluate(() => location.search));
  assert(query.get('solver') === 'slff' && query.get('seed') === '3' && query.get('run') === '1', `after a run: ${query}`);
  await page.click('#tab-compare');
  assert(new URLSearchParams(await page.evaluate(() => location.search)).get('tab') === 'compare', 'the tab is not in the address');
  await page.click('#tab-plan');
  await page.reload();
  await page.waitForFunction(() => window.__memplan !== undefined, null, { timeout: 30_000 });
  await idle(page);
  const again = await page.getAttribute(T('makespan'), 'data-value');
  assert(again === makespan && (await page.inputValue(T('solver-select'))) === 'slff', `reloaded: ${again} (${await page.inputValue(T('solver-select'))}), before ${makespan}`);
});

await test('compare fills its table and marks the best', async (page) => {
  await open(page, '?ex=minimalloc/challenging/B');
  await page.click('#tab-compare');
  const checked = await page.evaluate(() => window.__memplan.compare.checked);
  assert(checked.length >= 3, `${checked.length} solvers checked`);
  await page.click(T('compare-run'));
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid=compare-table] tbody tr[data-stopped]').length === n, checked.length, { timeout: 60_000 });
  await idle(page);
  const rows = await page.locator(`${T('compare-table')} tbody tr`).count();
  assert(rows === checked.length, `${rows} rows for ${checked.length} solvers`);
  assert((await page.locator(`${T('compare-table')} tr.best`).count()) === 1, 'no best row');
  const views = await page.locator('#compare-grid canvas').count();
  assert(views === checked.length, `${views} plan views`);
  // Every row says why its run stopped, as the CLI does.
  const file = join(examplesDir, index.find((e) => e.id === 'minimalloc/challenging/B').path);
  const reasons = await page.$$eval(`${T('compare-table')} tbody tr`, (trs) => trs.map((tr) => [tr.dataset.solver, tr.dataset.stopped, tr.querySelector('span.verdict')?.textContent ?? '']));
  for (const [solver, stopped, text] of reasons) {
    const native = cliSolve(file, solver, '0');
    assert(stopped === native.stopped && text.endsWith(native.verdict), `${solver}: table says ${stopped} '${text}', CLI ${native.stopped} '${native.verdict}'`);
  }
  // The best row has the smallest makespan.
  const values = await page.$$eval(`${T('compare-table')} tbody td[data-value]`, (cells) => cells.filter((c) => c.dataset.value !== '').map((c) => BigInt(c.dataset.value)));
  const best = await page.getAttribute(`${T('compare-table')} tr.best td[data-value]`, 'data-value');
  assert(values.every((v) => v >= BigInt(best)), 'best is not the smallest makespan');
  // Sorting by solver name.
  await page.click(`${T('compare-table')} th[data-key=solver]`);
  const names = await page.$$eval(`${T('compare-table')} tbody tr`, (trs) => trs.map((tr) => tr.dataset.solver));
  assert(names.join() === [...names].sort().join(), `not sorted: ${names}`);
  await shoot(page, 'compare');
});

await test('compare: a contrast by default, panels best first, each to its own peak unless the axis is shared', async (page) => {
  await open(page);
  await page.click('#tab-compare');
  const checked = await page.evaluate(() => window.__memplan.compare.checked);
  assert(checked.includes('auto') && checked.some((s) => ['tflite', 'slff', 'first-fit-start', 'xla'].includes(s)), `default selection ${checked}`);
  await page.click(T('compare-run'));
  await idle(page, 120_000);
  const order = (await page.getAttribute('#compare-grid', 'data-order')).split(',');
  const makespans = await page.$$eval(`${T('compare-table')} tbody tr`, (trs) => Object.fromEntries(trs.map((tr) => [tr.dataset.solver, tr.querySelector('td[data-value]')?.dataset.value ?? ''])));
  const file = join(examplesDir, index.find((e) => e.id === 'minimalloc/challenging/C').path);
  for (const solver of checked) {
    const native = cliSolve(file, solver, '0', undefined, undefined, ['--capacity', '1048576']);
    assert(makespans[solver] === cliMakespan(native), `${solver}: table ${makespans[solver]}, CLI ${native.makespan}`);
  }
  const inOrder = order.map((s) => BigInt(makespans[s]));
  assert(inOrder.every((m, i) => i === 0 || inOrder[i - 1] <= m), `panels not by makespan: ${order.map((s) => `${s} ${makespans[s]}`)}`);
  const panels = await page.$$eval('#compare-grid .planview', (els) => els.map((e) => e.dataset.solver));
  assert(panels.join() === order.join(), `panels ${panels} in the page, order ${order}`);
  // Own axes: each panel's top is its own plan's peak; shared: one top for all, the worst plan's.
  const tops = () => page.evaluate(() => window.__memplan.compare.views.map((v) => v.viewport.fullRange.y1));
  let y = await tops();
  assert(y[0] < y[y.length - 1], `own axes: tops ${y}`);
  await page.check(T('compare-shared'));
  await page.waitForTimeout(100);
  y = await tops();
  const worst = Number(makespans[order[order.length - 1]]);
  assert(y.every((t) => t === y[0]) && y[0] >= worst, `shared axis: tops ${y}, worst plan ${worst}`);
  await page.uncheck(T('compare-shared'));
  // The diff: by default from the worst plan to the best; its saving is the two makespans' gap and
  // its moved buffers are those at another offset in the two plans (counted here, not by the core).
  await page.waitForFunction(() => document.querySelector('[data-testid=diff-summary]').dataset.moved !== undefined, null, { timeout: 10_000 });
  const diff = await page.evaluate(() => {
    const rows = window.__memplan.compare.rows;
    const pick = (id) => document.querySelector(`[data-testid=${id}]`).selectedOptions[0].textContent.split(' ')[0];
    const [a, b] = [pick('diff-a'), pick('diff-b')];
    const offsets = (solver) => rows.find((r) => r.solver === solver).result.offsets;
    const oa = offsets(a), ob = offsets(b);
    let moved = 0;
    for (let i = 0; i < oa.length; i++) if (oa[i] !== ob[i]) moved++;
    const summary = document.querySelector('[data-testid=diff-summary]');
    return { a, b, moved, shown: { saved: summary.dataset.saved, moved: Number(summary.dataset.moved) }, canvases: document.querySelectorAll('#diff-grid canvas').length };
  });
  assert(diff.a === order[order.length - 1] && diff.b === order[0], `diff ${diff.a} → ${diff.b}, panels ${order}`);
  assert(BigInt(diff.shown.saved) === BigInt(makespans[diff.a]) - BigInt(makespans[diff.b]), `diff saves ${diff.shown.saved}: ${JSON.stringify(diff)}`);
  assert(diff.shown.moved === diff.moved && diff.moved > 0 && diff.canvases === 2, `diff: ${JSON.stringify(diff)}`);
  await page.locator(T('compare-diff')).scrollIntoViewIfNeeded();
  await shoot(page, 'compare-order');
});

await test('gaps: solved with them (page = CLI, below the hull), drawn and hovered as live pieces', async (page) => {
  // a is not alive in [3, 6), where b lives: with the gap all fit in 12 bytes (L), as hulls in 16.
  const text = 'id,lower,upper,size,gaps\na,0,10,8,3-6\nb,3,6,8,\nc,0,2,4,\n';
  const file = join(tmpdir(), `memplan-e2e-gaps-${process.pid}.csv`);
  writeFileSync(file, text);
  await open(page);
  await paste(page, text);
  for (const solver of ['auto', 'slff', 'minimalloc']) {
    const web = await run(page, solver);
    const native = cliSolve(file, solver, '0');
    assert(web === cliMakespan(native), `${solver}: page ${web}, CLI ${native.makespan}`);
    if (solver !== 'slff') assert(web === '12', `${solver} did not use the gap: makespan ${web}`);
  }
  rmSync(file, { force: true });
  // Hovering in a's gap (inside its hull) finds b where b is, else nothing: a is only its pieces.
  const offsets = await page.evaluate(() => Array.from(window.__memplan.state().result.offsets, Number));
  const hover = async (time, address) => {
    const box = await page.locator(T('plan-canvas')).boundingBox();
    const at = await page.evaluate(([t, y]) => window.__memplan.view.fromData(t, y), [time, address]);
    await page.mouse.move(box.x + at.x, box.y + at.y);
    await page.waitForTimeout(150);
    return (await page.locator('.tooltip:not([hidden])').count()) > 0 ? page.innerHTML('.tooltip') : '';
  };
  const inGap = await hover(4.5, offsets[0] + 4);
  const bThere = offsets[1] <= offsets[0] + 4 && offsets[0] + 4 < offsets[1] + 8;
  assert(bThere ? inGap.includes('<span>id</span><b>b</b>') : inGap === '', `inside a's gap the tooltip shows: '${inGap}'`);
  const live = await hover(1.5, offsets[0] + 4);
  assert(live.includes('<span>id</span><b>a</b>') && /alive.*0 – 3, 6 – 10/.test(live), `a's tooltip: ${live}`);
  await shoot(page, 'gaps');
});

// A buffer with gaps is drawn as its live pieces: its name goes on the largest one in view.
await test('gaps: a buffer with gaps is labelled on its largest live piece', async (page) => {
  const text = 'id,lower,upper,size,gaps\ngapped,0,10,8,3-6\nb,3,6,8,\nc,0,2,4,\n';
  await open(page);
  await paste(page, text);
  await run(page, 'auto');
  await page.waitForFunction(() => window.__memplan.view.settled);
  await page.waitForTimeout(100);
  const label = await page.evaluate(() => {
    const view = window.__memplan.view;
    const l = view.lastLabels.find((x) => x.index === 0);
    return l ? { text: l.text, x: l.x / devicePixelRatio, piece: view.fromData(6, 0).x, hull: view.fromData(0, 0).x } : null;
  });
  assert(label && label.text === 'gapped', `no label on the buffer with gaps: ${JSON.stringify(label)}`);
  // Its pieces are times 0-3 and 6-10: the label starts 3 px into the second, not at the hull.
  assert(Math.abs(label.x - label.piece - 3) < 1.5, `label at ${label.x}, the piece starts at ${label.piece} (the hull at ${label.hull})`);
});

await test('plan view: hover, select with conflicts, zoom to peak, replay, PNG; screenshot', async (page) => {
  await open(page, '?ex=minimalloc/challenging/C');
  await run(page, 'auto');
  const box = await page.locator(T('plan-canvas')).boundingBox();
  // Find a buffer by scanning the canvas.
  let hit = false;
  for (let k = 0; k < 40 && !hit; k++) {
    await page.mouse.move(box.x + 100 + (k * 37) % (box.width - 120), box.y + box.height - 40 - (k * 53) % (box.height - 80));
    await page.waitForTimeout(60);
    hit = await page.locator('.tooltip:not([hidden])').count() > 0;
  }
  assert(hit, 'no tooltip over the plan');
  const tip = await page.textContent('.tooltip');
  assert(/lifetime.*size.*offset.*alignment.*placement step/s.test(tip), `tooltip: ${tip}`);
  await page.mouse.down();
  await page.mouse.up();
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(screenshots, 'plan-selected.png') });
  await page.keyboard.press('Escape');
  await page.click('#zoom-peak');
  await page.waitForTimeout(100);
  const zoomed = await page.evaluate(() => { const v = window.__memplan.viewport; return v.x1 - v.x0; });
  assert(zoomed < 1048576, `zoom to peak kept the width ${zoomed}`);
  await page.click('#zoom-reset');
  await page.click('#replay-step');
  assert((await page.textContent('#replay-label')).startsWith('1 /'), 'replay did not step');
  await page.click('#replay-step');
  await page.click('#replay-step');
  assert((await page.textContent('#replay-label')).startsWith('3 /'), 'replay did not step');
  await page.click('#replay-play');
  await page.waitForTimeout(400);
  assert(!(await page.textContent('#replay-label')).startsWith('3 /'), 'replay does not play');
  await page.click('#replay-play');
  await page.evaluate(() => window.__memplan.view.setReplay(null));
  const download = page.waitForEvent('download');
  await page.click('#export-png');
  const png = await (await download).path();
  assert(readFileSync(png).subarray(1, 4).toString() === 'PNG', 'export is not a PNG');
  const csvDownload = page.waitForEvent('download');
  await page.click('#export-csv');
  const csv = readFileSync(await (await csvDownload).path(), 'utf8');
  assert(csv.startsWith('id,lower,upper,size,offset'), `CSV export: ${csv.slice(0, 40)}`);
  // Colour modes, and Ctrl+Enter runs.
  for (const mode of ['lifetime', 'order', 'id', 'size']) await page.selectOption('#color-select', mode);
  await page.selectOption(T('solver-select'), 'tvm');
  await page.focus('#seed-input');
  await page.keyboard.press('Control+Enter');
  await idle(page);
  assert((await page.textContent('#result-solver')).startsWith('tvm'), 'Ctrl+Enter did not run');
  await page.mouse.move(0, 0);
  await page.waitForTimeout(100);
  await page.screenshot({ path: join(screenshots, 'plan.png') });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.waitForTimeout(200);
  await page.screenshot({ path: join(screenshots, 'plan-dark.png') });
});

await test('hover list: the buffers alive at the hovered time, largest first, their total = the load there', async (page) => {
  await open(page, '?ex=minimalloc/challenging/C');
  await run(page, 'auto');
  const box = await page.locator(T('plan-canvas')).boundingBox();
  // What the instance says is alive at a time, computed here from its columns.
  const expected = (time) => page.evaluate((t) => {
    const { inst } = window.__memplan.state();
    const alive = [];
    for (let i = 0; i < inst.n; i++) if (inst.startsF[i] <= t && t < inst.endsF[i]) alive.push(i);
    alive.sort((a, b) => inst.sizesF[b] - inst.sizesF[a] || a - b);
    const id = (i) => inst.idText.slice(inst.idOffsets[i], inst.idOffsets[i + 1]);
    let k = 0;
    while (k < inst.profileTimes.length && inst.profileTimes[k] <= t) k++;
    return { ids: alive.slice(0, 10).map(id), sizes: alive.slice(0, 10).map((i) => inst.sizesF[i]), alive: alive.map(id), count: alive.length, total: alive.reduce((s, i) => s + inst.sizesF[i], 0), load: k ? inst.profileLoads[k - 1] : 0 };
  }, time);
  const shown = () => page.evaluate(() => {
    const list = document.querySelector('[data-testid=plan-canvas-alive]');
    const { inst } = window.__memplan.state();
    const rows = [...list.querySelectorAll('tr')];
    return { hidden: list.hidden, time: Number(list.dataset.time), count: Number(list.dataset.count), total: Number(list.dataset.total), ids: rows.map((tr) => tr.querySelector('td').textContent), sizes: rows.map((tr) => inst.sizesF[Number(tr.dataset.index)]), text: list.textContent };
  });
  const { full, peakTime } = await page.evaluate(() => {
    const { inst } = window.__memplan.state();
    let peak = 0;
    for (let k = 1; k < inst.profileLoads.length; k++) if (inst.profileLoads[k] > inst.profileLoads[peak]) peak = k;
    return { full: window.__memplan.viewport.fullRange, peakTime: inst.profileTimes[peak] };
  });
  for (const time of [peakTime + 0.5, full.x0 + (full.x1 - full.x0) * 0.3, full.x0 + (full.x1 - full.x0) * 0.77]) {
    const at = await page.evaluate(([t, y]) => window.__memplan.view.fromData(t, y), [time, (full.y0 + full.y1) / 2]);
    await page.mouse.move(box.x + at.x, box.y + at.y);
    await page.waitForTimeout(150);
    const list = await shown();
    assert(!list.hidden, 'no list of the buffers alive at the hovered time');
    const want = await expected(list.time);
    assert(list.count === want.count && list.total === want.total, `at ${list.time}: ${list.count} alive, ${list.total} B shown; ${want.count}, ${want.total} B expected`);
    assert(list.total === want.load, `at ${list.time}: total ${list.total} is not the load ${want.load}`);
    // The largest ten, largest first (buffers of equal size may swap): each named buffer is alive
    // then, and the sizes are the ten largest.
    assert(list.ids.length === want.ids.length, `${list.ids.length} listed, ${want.ids.length} expected`);
    assert(list.ids.every((id) => want.alive.includes(id)), `listed ${list.ids}, not all alive at ${list.time}`);
    assert(JSON.stringify(list.sizes) === JSON.stringify(want.sizes), `listed sizes ${list.sizes}, expected ${want.sizes}`);
    if (want.count > 10) assert(list.text.includes(`+ ${(want.count - 10).toLocaleString('en-US')} more`), `no "+ N more": ${list.text}`);
    assert(/of the peak L/.test(list.text), `no share of the peak: ${list.text}`);
  }
  // Over the time axis, below the plot: the list, no buffer tooltip.
  const axis = await page.evaluate(([t, y]) => window.__memplan.view.fromData(t, y), [peakTime + 0.5, full.y0]);
  await page.mouse.move(box.x + axis.x, box.y + axis.y + 14);
  await page.waitForTimeout(150);
  const onAxis = await shown();
  assert(!onAxis.hidden && onAxis.count === (await expected(onAxis.time)).count, 'hovering the time axis lists no buffers');
  assert((await page.locator('.tooltip:not([hidden])').count()) === 0, 'a buffer tooltip over the axis');
  const peakAt = await page.evaluate(([t, y]) => window.__memplan.view.fromData(t, y), [peakTime + 0.5, (full.y0 + full.y1) / 2]);
  await page.mouse.move(box.x + peakAt.x, box.y + peakAt.y);
  await page.waitForTimeout(150);
  await page.screenshot({ path: join(screenshots, 'alive-list.png') });
  // Fast on 62k buffers: the list is one pass over the columns.
  await page.selectOption(T('example-select'), 'idealloc/iopddl/Y_1');
  await idle(page, 60_000);
  const big = await page.evaluate(() => window.__memplan.viewport.fullRange);
  const times = [];
  for (const f of [0.2, 0.5, 0.8]) {
    const p = await page.evaluate(([t, y]) => window.__memplan.view.fromData(t, y), [big.x0 + (big.x1 - big.x0) * f, big.y1 / 2]);
    await page.mouse.move(box.x + p.x, box.y + p.y);
    await page.waitForTimeout(120);
    const list = await shown();
    assert(!list.hidden && list.total === (await expected(list.time)).load, `Y_1: the list's total ${list.total} is not the load`);
    times.push(await page.evaluate(() => window.__memplan.view.lastAliveMs));
  }
  figures.push(`alive list at a time on Y_1 (62k buffers): ${times.map((ms) => ms.toFixed(2)).join(', ')} ms`);
  assert(Math.max(...times) < 16, `the alive list took ${Math.max(...times).toFixed(1)} ms`);
});

// The peak is marked on the time axis; a click centres and zooms there and pins the
// list of the buffers alive then (computed here from the instance's own profile).
await test('the peak: marked on the time axis, a click zooms there and pins the buffers alive then', async (page) => {
  await open(page, '?ex=minimalloc/challenging/C');
  await run(page, 'auto');
  const marker = page.locator(T('plan-canvas-peak'));
  assert(await marker.isVisible(), 'no peak mark on the time axis');
  const peak = await page.evaluate(() => {
    const { inst } = window.__memplan.state();
    let k = 0;
    for (let i = 1; i < inst.profileLoads.length; i++) if (inst.profileLoads[i] > inst.profileLoads[k]) k = i;
    return { time: inst.profileTimes[k], load: inst.profileLoads[k], maxLoad: Number(inst.summary.max_load) };
  });
  assert(peak.load === peak.maxLoad, `the profile's peak ${peak.load} is not L ${peak.maxLoad}`);
  const tipAt = async () => {
    const canvas = await page.locator(T('plan-canvas')).boundingBox();
    const mark = await marker.boundingBox();
    const x = await page.evaluate((t) => window.__memplan.view.fromData(t, 0).x, peak.time);
    return { tip: mark.x + mark.width / 2 - canvas.x, x, top: mark.y - canvas.y, bottom: canvas.height };
  };
  let at = await tipAt();
  assert(Math.abs(at.tip - at.x) <= 2, `the mark's tip at ${at.tip}, the peak at ${at.x}`);
  const wide = await page.evaluate(() => { const v = window.__memplan.viewport; return v.x1 - v.x0; });
  await marker.click();
  await page.mouse.move(1, 1); // the pointer away from the plan: the list stays, pinned
  await page.waitForTimeout(300);
  const v = await page.evaluate(() => { const v = window.__memplan.viewport; return { x0: v.x0, x1: v.x1 }; });
  assert(v.x1 - v.x0 < wide / 4, `the window ${v.x1 - v.x0} wide, was ${wide}`);
  assert(v.x0 < peak.time && peak.time < v.x1 && Math.abs((v.x0 + v.x1) / 2 - peak.time) < (v.x1 - v.x0) * 0.1, `window ${v.x0}-${v.x1} is not centred on the peak ${peak.time}`);
  at = await tipAt();
  assert(Math.abs(at.tip - at.x) <= 2, `after the jump the mark's tip is at ${at.tip}, the peak at ${at.x}`);
  const alive = page.locator(T('plan-canvas-alive'));
  assert(await alive.isVisible(), 'no alive list pinned at the peak');
  const list = await alive.evaluate((e) => ({ ...e.dataset, text: e.textContent }));
  assert(list.pinned === 'true' && Number(list.time) === peak.time, `pinned list: ${JSON.stringify(list)}`);
  assert(Number(list.total) === peak.maxLoad, `the pinned list's bytes ${list.total}, L ${peak.maxLoad}`);
  assert(/pinned at the peak/.test(list.text) && /100(\.0)? ?% of the peak/.test(list.text), `pinned list text: ${list.text}`);
  await page.screenshot({ path: join(screenshots, 'plan-peak-pinned.png') });
  // Hovering elsewhere shows that time; leaving shows the pinned list again; Escape unpins.
  const canvas = await page.locator(T('plan-canvas')).boundingBox();
  await page.mouse.move(canvas.x + canvas.width * 0.2, canvas.y + canvas.height / 2);
  await page.waitForTimeout(200);
  assert((await alive.getAttribute('data-pinned')) === '', 'hovering did not show the hovered time');
  await page.mouse.move(1, 1);
  await page.waitForTimeout(200);
  assert((await alive.getAttribute('data-pinned')) === 'true', 'leaving the plan did not show the pinned list again');
  await page.focus(T('plan-canvas'));
  await page.keyboard.press('Escape');
  await page.waitForTimeout(100);
  assert(!(await alive.isVisible()), 'Escape did not unpin the list');
  // The toolbar's "peak" does the same.
  await page.click('#zoom-reset');
  await page.click('#zoom-peak');
  await page.waitForTimeout(200);
  assert((await alive.getAttribute('data-pinned')) === 'true', 'the toolbar\'s peak did not pin the list');
});

// A .tflite model dropped anywhere on the page is imported (not read as text), planned, and
// shown in the Model tab coloured by category; the address says the Model tab is open.
await test('a .tflite model dropped on the page opens in the Model tab, coloured by category, the tab in the address', async (page) => {
  await open(page);
  const model = readFileSync(join(examplesDir, 'tflite/face_detection_short_range.tflite'));
  const transfer = await page.evaluateHandle((b64) => {
    const binary = atob(b64);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    const dt = new DataTransfer();
    dt.items.add(new File([bytes], 'face_detection_short_range.tflite'));
    return dt;
  }, model.toString('base64'));
  await page.dispatchEvent(T('file-drop'), 'dragenter', { dataTransfer: transfer });
  await page.dispatchEvent(T('file-drop'), 'drop', { dataTransfer: transfer });
  await page.waitForFunction(() => document.querySelector('[data-testid=model-saving]')?.dataset.saved !== undefined, null, { timeout: 120_000 });
  await idle(page);
  assert(await page.isVisible('#model-pane'), 'the Model tab is not shown');
  assert(Number(await page.getAttribute(T('model-saving'), 'data-saved')) > 0, 'no bytes saved on LiteRT');
  assert((await page.locator('#model-grid canvas').count()) === 2, 'not two plans side by side');
  assert((await page.inputValue('#color-select')) === 'category', 'the model is not coloured by category');
  const legend = await page.$$eval(`${T('model-legend')} .category`, (els) => els.map((e) => e.dataset.category));
  const planLegend = await page.$$eval('#legend .category', (els) => els.map((e) => e.dataset.category));
  assert(legend.includes('input') && legend.includes('temporary') && legend.join() === planLegend.join(), `Model tab legend ${legend}, plan legend ${planLegend}`);
  // Both plans are drawn in the category palette: a graph input's colour is on the canvas.
  const inputColour = await page.$eval(`${T('model-legend')} [data-category=input] .swatch`, (e) => getComputedStyle(e).backgroundColor);
  const found = await page.evaluate((css) => {
    const [r, g, b] = css.match(/\d+/g).map(Number);
    const c = document.querySelector('[data-testid=diff-canvas-b]');
    const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    for (let i = 0; i < px.length; i += 4) if (px[i] === r && px[i + 1] === g && px[i + 2] === b) return true;
    return false;
  }, inputColour);
  assert(found, `no pixel of the input colour ${inputColour} in memplan's plan`);
  const tabInAddress = (tab) => page.waitForFunction((t) => new URLSearchParams(location.search).get('tab') === t, tab, { timeout: 5000 });
  await tabInAddress('model');
  await page.click('#tab-plan');
  await tabInAddress(null);
  await page.click(T('tab-model'));
  await tabInAddress('model');
});

await test('an ExecuTorch .pte dropped on the page opens in the Model tab: saving beside ExecuTorch\'s plan, or its plan kept at L', async (page) => {
  await open(page);
  const drop = async (name) => {
    const program = readFileSync(join(root, 'crate/tests/fixtures/executorch', name));
    const transfer = await page.evaluateHandle(([b64, file]) => {
      const binary = atob(b64);
      const bytes = new Uint8Array(binary.length);
      for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], file));
      return dt;
    }, [program.toString('base64'), name]);
    await page.dispatchEvent(T('file-drop'), 'dragenter', { dataTransfer: transfer });
    await page.dispatchEvent(T('file-drop'), 'drop', { dataTransfer: transfer });
    await page.waitForFunction((file) => {
      const saving = document.querySelector('[data-testid=model-saving]');
      return saving?.dataset.saved !== undefined && saving.textContent.includes(file);
    }, name, { timeout: 120_000 });
    await idle(page);
  };
  // mobilenet_v2: ExecuTorch's greedy needs 9,936,896 bytes, memplan the max load 9,633,792.
  await drop('mobilenet_v2.pte');
  assert(await page.isVisible('#model-pane'), 'the Model tab is not shown');
  assert((await page.getAttribute(T('model-saving'), 'data-saved')) === '303104', `saved ${await page.getAttribute(T('model-saving'), 'data-saved')}`);
  assert(/ExecuTorch/.test(await page.textContent(T('model-saving'))), 'the compiler is not named');
  assert((await page.locator('#model-grid canvas').count()) === 2, 'not two plans side by side');
  // resnet18: ExecuTorch's plan is at the max load already, so it is kept and nothing moves.
  await drop('resnet18.pte');
  assert((await page.getAttribute(T('model-saving'), 'data-saved')) === '0', 'resnet18 saved bytes');
  assert(/already optimal/.test(await page.textContent(T('model-saving'))), `text: ${await page.textContent(T('model-saving'))}`);
  assert((await page.textContent('#moved-count')).startsWith('0 of'), `moved ${await page.textContent('#moved-count')}`);
});

// The Model tab starts from the compiler's plan and moves only what the saving needs: a buffer is
// shown as moved only when its compiler offset is above memplan's peak or meets a buffer alive with
// it where memplan put that one (else it could have stayed). A program at L keeps its plan whole.
await test('the Model tab starts from the compiler\'s plan: only the moves that save bytes, none at L', async (page) => {
  await open(page);
  const models = [
    ['executorch/mobilenet_v2.pte', 'saves'],
    ['xla/convnet.hlo.pb', 'any'],
    ['executorch/resnet18.pte', 'at L'],
  ];
  for (const [fixture, expect] of models) {
    const file = join(root, 'crate/tests/fixtures', fixture);
    const dir = mkdtempSync(join(tmpdir(), 'memplan-moves-'));
    const [instanceCsv, compilerCsv] = ['m.csv', 'compiler.csv'].map((f) => join(dir, f));
    execFileSync(cli, ['import', file, '-o', instanceCsv, '--compiler-plan', compilerCsv], { stdio: 'ignore' });
    const rows = (path) => readFileSync(path, 'utf8').trim().split('\n').slice(1).map((line) => line.split(','));
    const compilerOffsets = new Map(rows(compilerCsv).map((r) => [r[0], BigInt(r[r.length - 1])]));
    rmSync(dir, { recursive: true, force: true });
    const name = fixture.split('/').pop();
    await page.setInputFiles('#file-input', file);
    await page.waitForFunction((n) => {
      const saving = document.querySelector('[data-testid=model-saving]');
      return saving?.dataset.saved !== undefined && saving.textContent.includes(n);
    }, name, { timeout: 120_000 });
    await idle(page);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click(T('model-csv'))]);
    const text = readFileSync(await download.path(), 'utf8').trim().split('\n');
    // id, lower, upper and size come first and the offset last (names between may hold commas).
    assert(/^id,lower,upper,size,.*,offset$/.test(text[0]) && !text[0].includes('gaps'), `${name}: export header ${text[0]}`);
    const buffers = text.slice(1).map((line) => line.split(',')).map((r) => ({
      id: r[0], start: BigInt(r[1]), end: BigInt(r[2]), size: BigInt(r[3]), offset: BigInt(r[r.length - 1]),
    }));
    const peak = buffers.reduce((m, b) => (b.offset + b.size > m ? b.offset + b.size : m), 0n);
    const moved = buffers.filter((b) => b.offset !== compilerOffsets.get(b.id));
    const needless = moved.filter((b) => {
      const home = compilerOffsets.get(b.id);
      if (home + b.size > peak) return false;
      return !buffers.some((o) => o !== b && o.size > 0n && b.size > 0n && o.start < b.end && b.start < o.end && o.offset < home + b.size && home < o.offset + o.size);
    });
    const shown = await page.textContent('#moved-count');
    const saved = BigInt(await page.getAttribute(T('model-saving'), 'data-saved'));
    assert(shown === `${moved.length.toLocaleString('en-US')} of ${buffers.length.toLocaleString('en-US')}`, `${name}: the page says ${shown} moved, the export moves ${moved.length} of ${buffers.length}`);
    assert(needless.length === 0, `${name}: ${needless.length} of ${moved.length} moved buffers could have kept the compiler's offset (${needless.slice(0, 5).map((b) => b.id).join(', ')})`);
    if (expect === 'saves') assert(saved > 0n && moved.length < buffers.length, `${name}: saved ${saved}, moved ${moved.length} of ${buffers.length}`);
    if (expect === 'at L') assert(saved === 0n && moved.length === 0 && /already optimal/.test(await page.textContent(T('model-saving'))), `${name}: saved ${saved}, moved ${moved.length}`);
    figures.push(`Model tab, ${name}: saves ${saved} bytes, ${moved.length} of ${buffers.length} buffers moved`);
  }
});

// A link taken after a model import opens the same comparison: the instance alone would open an
// empty Model tab (the compiler's plan is not in it), so the link carries that plan too.
await test('a share link made after importing a model opens the Model tab with the compiler\'s plan', async (page) => {
  await open(page);
  await page.setInputFiles('#file-input', join(examplesDir, 'tflite/face_detection_short_range.tflite'));
  await page.waitForFunction(() => document.querySelector('[data-testid=model-saving]')?.dataset.saved !== undefined, null, { timeout: 120_000 });
  await idle(page);
  const before = { saved: await page.getAttribute(T('model-saving'), 'data-saved'), moved: await page.textContent('#moved-count'), titles: await page.$$eval('#model-grid .planview-title', (els) => els.map((e) => e.textContent)) };
  await page.click('#share-button');
  const link = await page.inputValue(T('share-link'));
  const other = await context.newPage();
  try {
    await open(other, link.slice(link.indexOf('?')));
    await other.waitForFunction(() => document.querySelector('[data-testid=model-saving]')?.dataset.saved !== undefined, null, { timeout: 120_000 });
    await idle(other);
    assert(await other.isVisible('#model-pane'), 'the link does not open the Model tab');
    const after = { saved: await other.getAttribute(T('model-saving'), 'data-saved'), moved: await other.textContent('#moved-count'), titles: await other.$$eval('#model-grid .planview-title', (els) => els.map((e) => e.textContent)) };
    assert(JSON.stringify(after) === JSON.stringify(before), `the link opens ${JSON.stringify(after)}, the page showed ${JSON.stringify(before)}`);
    assert((await other.locator('#model-grid canvas').count()) === 2, 'not both plans');
  } finally {
    await other.close();
  }
});

// What loads without a run (a gallery example, a generated trace, a link taken before a run)
// says how to plan it where the plan will be, as the first screen shows one there.
await test('an instance loaded without a run shows a Run prompt in the empty plot (example, generate, a link before a run)', async (page) => {
  const prompt = async (where) => {
    await idle(page);
    assert(await page.isVisible(T('run-prompt')), `${where}: no Run prompt in the empty plot`);
    const text = await page.textContent(T('run-prompt'));
    assert(/Run/.test(text) && /buffers? loaded/.test(text), `${where}: prompt "${text}"`);
  };
  await open(page);
  assert(!(await page.isVisible(T('run-prompt'))), 'the first screen (solved) shows a Run prompt');
  await page.selectOption(T('example-select'), 'minimalloc/challenging/A');
  await prompt('a gallery example');
  await page.click(T('run-prompt-button'));
  await idle(page, 120_000);
  assert(await page.getAttribute(T('makespan'), 'data-value'), 'the prompt\'s Run did not solve');
  assert(!(await page.isVisible(T('run-prompt'))), 'the prompt stays after a run');
  await page.fill('#gen-buffers', '500');
  await page.click('#gen-button');
  await prompt('a generated trace');
  await page.click('#tab-compare');
  assert(await page.isVisible(T('compare-prompt')), 'compare before a run has no prompt');
  await page.click('#tab-plan');
  await open(page, '?ex=handmade/small');
  await prompt('a link taken before a run');
});

// Every select of the left column shows its whole choice (an example's name was cut to
// "MiniMalloc challenging C (203 buff").
await test('the left column\'s selects show their whole text, for every example and solver', async (page) => {
  await open(page);
  const cut = await page.evaluate(async () => {
    const ctx = document.createElement('canvas').getContext('2d');
    const problems = [];
    const check = (select) => {
      const style = getComputedStyle(select);
      ctx.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
      const text = select.selectedOptions[0]?.textContent ?? '';
      // The arrow takes about 20 px beside the padding.
      const room = select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 20;
      if (ctx.measureText(text).width > room) problems.push(`${select.id}: "${text}" needs ${Math.ceil(ctx.measureText(text).width)} px, has ${Math.floor(room)}`);
    };
    for (const select of document.querySelectorAll('.side select')) {
      if (select.offsetParent === null) continue;
      const keep = select.value;
      for (const option of select.options) {
        if (option.disabled || option.value === '') continue;
        select.value = option.value;
        check(select);
      }
      select.value = keep;
    }
    return problems;
  });
  assert(cut.length === 0, cut.join('; '));
});

// The lines a plan is measured against stay readable when the moved buffers are highlighted (a
// veil over the rest faded the makespan and L labels to near invisibility); the peak's mark on the
// time axis covers no tick label; the load curve has a key in the legend.
await test('highlighting keeps the makespan and L labels; the peak mark covers no tick label; the load curve is in the legend', async (page) => {
  await open(page, '?ex=minimalloc/challenging/C&cmp=first-fit-start,tflite,auto&tab=compare');
  await page.click(T('compare-run'));
  await idle(page, 120_000);
  await page.waitForFunction(() => document.querySelector('[data-testid=diff-summary]').dataset.moved !== undefined, null, { timeout: 10_000 });
  await page.locator('#diff-grid').scrollIntoViewIfNeeded();
  // Pixels of the marker's colour in its label's box, right-aligned at the plot's right edge.
  const ink = () => page.evaluate(() => {
    const canvas = document.querySelector('[data-testid=diff-canvas-b]');
    const view = window.__memplan.compare.diff.view.views[1];
    const dpr = canvas.width / canvas.clientWidth;
    const ctx = canvas.getContext('2d');
    const colour = (name) => {
      const probe = document.createElement('i');
      probe.style.color = `var(${name})`;
      document.body.append(probe);
      const rgb = getComputedStyle(probe).color.match(/\d+/g).map(Number);
      probe.remove();
      return rgb;
    };
    const counts = {};
    for (const [name, css] of [['makespan', '--makespan'], ['max-load', '--max-load']]) {
      const top = view.markerLabels.get(name);
      if (top === undefined) { counts[name] = -1; continue; }
      const [r, g, b] = colour(css);
      // Inside the label's box (its text right-aligned 5 px from the plot's right edge, 12 px
      // from the canvas's; 12 px high), where its backdrop hides the load curve and the buffers.
      const x1 = canvas.width - 16 * dpr, x0 = x1 - 40 * dpr;
      const px = ctx.getImageData(Math.round(x0), Math.round(top + dpr), Math.round(x1 - x0), Math.round(10 * dpr)).data;
      let n = 0;
      for (let i = 0; i < px.length; i += 4) if (Math.abs(px[i] - r) + Math.abs(px[i + 1] - g) + Math.abs(px[i + 2] - b) < 60) n++;
      counts[name] = n;
    }
    return counts;
  });
  await page.uncheck(T('diff-moved'));
  await page.waitForTimeout(300);
  const plain = await ink();
  await page.check(T('diff-moved'));
  await page.waitForTimeout(300);
  const marked = await ink();
  for (const name of ['makespan', 'max-load']) {
    assert(plain[name] > 20 && marked[name] >= 0.8 * plain[name], `${name} label: ${plain[name]} px of its colour plain, ${marked[name]} with the moved buffers highlighted`);
  }
  // The peak's mark: no tick label ink under it (the tick marks end 3 px under the plot). On
  // challenging A at 800 px, the mark sat on the "500k" label.
  await page.setViewportSize({ width: 800, height: 800 });
  await open(page, '?ex=minimalloc/challenging/A&run=1');
  await page.waitForFunction(() => window.__memplan.view.settled, null, { timeout: 60_000 });
  await page.waitForTimeout(200);
  const under = await page.evaluate(() => {
    const canvas = document.querySelector('[data-testid=plan-canvas]');
    const mark = document.querySelector('[data-testid=plan-canvas-peak]').getBoundingClientRect();
    const c = canvas.getBoundingClientRect();
    const dpr = canvas.width / c.width;
    const x0 = Math.round((mark.left - c.left) * dpr), y0 = Math.round((mark.top - c.top + 5) * dpr);
    const w = Math.round(mark.width * dpr), h = Math.round((mark.bottom - mark.top - 5) * dpr);
    const ctx = canvas.getContext('2d');
    const px = ctx.getImageData(x0, y0, w, h).data;
    const [r, g, b] = ctx.getImageData(1, 1, 1, 1).data; // the margin's background
    let ink = 0;
    for (let i = 0; i < px.length; i += 4) if (Math.abs(px[i] - r) + Math.abs(px[i + 1] - g) + Math.abs(px[i + 2] - b) > 90) ink++;
    return { ink, shown: mark.width > 0 };
  });
  assert(under.shown && under.ink === 0, `the peak mark covers ${under.ink} px of tick label`);
  const key = await page.$eval('#legend [data-key=load] i', (e) => getComputedStyle(e).borderTopColor).catch(() => null);
  const load = await page.evaluate(() => { const p = document.createElement('i'); p.style.color = 'var(--load)'; document.body.append(p); const c = getComputedStyle(p).color; p.remove(); return c; });
  assert(key === load, `the legend's load key is ${key}, the load curve ${load}`);
});

// The Model tab at a phone's, a laptop's and a desktop's width: the two plans fill the room the
// pane has (at 1280x800 about 300 px stayed empty under them), their titles on one line, nothing
// over anything else.
await test('the Model tab at 390, 800 and 1280 px: the plans fill the pane, both in the window, titles on one line, nothing overlaps', async (page) => {
  const found = [];
  for (const [width, height] of [[390, 844], [800, 800], [1280, 800]]) {
    await page.setViewportSize({ width, height });
    await open(page, '?ex=tflite/face_detection_short_range');
    await page.waitForFunction(() => document.querySelector('[data-testid=model-saving]')?.dataset.saved !== undefined, null, { timeout: 120_000 });
    await idle(page);
    await page.waitForTimeout(200);
    const problems = await layoutProblems(page, {
      apart: ['.tabs', '#model-saving', '#model-pane > .toolbar', '#model-grid .planview', '#input-panel', '#controls-panel'],
      whole: ['#model-grid .planview canvas'],
      fits: ['#model-grid .planview-title'],
      lines: ['#model-grid .planview-title', '#model-saving b'],
    });
    if (width > 760) {
      // The pane's room under the plans: the grid reaches the pane's bottom (less its padding).
      const room = await page.evaluate(() => {
        const pane = document.querySelector('#model-pane').getBoundingClientRect();
        const views = [...document.querySelectorAll('#model-grid .planview')].map((v) => v.getBoundingClientRect().bottom);
        return Math.round(pane.bottom - Math.max(...views));
      });
      if (room > 24) problems.push(`${room} px empty under the plans`);
      // Both plans are seen at once, side by side or one above the other, without a scroll (at
      // 800 px the second stood a scroll below the first).
      const below = await page.evaluate(() => [...document.querySelectorAll('#model-grid .planview')].filter((v) => v.getBoundingClientRect().bottom > innerHeight + 1).length);
      if (below > 0) problems.push(`${below} plan(s) reach below the window`);
    }
    await page.screenshot({ path: join(screenshots, `model-tab-${width}.png`), fullPage: true });
    if (problems.length) found.push(`${width}x${height}: ${problems.join('; ')}`);
  }
  assert(found.length === 0, found.join(' | '));
});

// Compare's diff, explicitly: the moved buffers highlighted (the picture changes with the
// toggle), another pair chosen, and the peak change and moved count for that pair.
await test('compare diff: moved buffers highlighted, another pair, the peak change and moves of that pair', async (page) => {
  await open(page, '?ex=minimalloc/challenging/C&cmp=first-fit-start,tflite,auto&tab=compare');
  await page.click(T('compare-run'));
  await idle(page, 120_000);
  await page.waitForFunction(() => document.querySelector('[data-testid=diff-summary]').dataset.moved !== undefined, null, { timeout: 10_000 });
  const picture = () => page.evaluate(() => document.querySelector('#diff-grid [data-testid=diff-canvas-b]').toDataURL());
  await page.waitForTimeout(300);
  assert(await page.isChecked(T('diff-moved')), 'moved buffers are not highlighted by default');
  const marked = await picture();
  await page.uncheck(T('diff-moved'));
  await page.waitForTimeout(300);
  const plain = await picture();
  assert(marked !== plain, 'highlighting the moved buffers changed nothing');
  await page.check(T('diff-moved'));
  await page.waitForTimeout(300);
  assert((await picture()) === marked, 'the highlight did not come back');
  // Another pair: tflite → auto. Its peak change and moved buffers, counted here from the plans.
  const valueOf = (id, solver) => page.$eval(T(id), (select, s) => [...select.options].find((o) => o.textContent.startsWith(`${s} `)).value, solver);
  await page.selectOption(T('diff-a'), await valueOf('diff-a', 'tflite'));
  await page.selectOption(T('diff-b'), await valueOf('diff-b', 'auto'));
  await page.waitForFunction(() => /^tflite → auto/.test(document.querySelector('[data-testid=diff-summary]').textContent), null, { timeout: 10_000 });
  const pair = await page.evaluate(() => {
    const rows = window.__memplan.compare.rows;
    const of = (s) => rows.find((r) => r.solver === s).result;
    const a = of('tflite'), b = of('auto');
    let moved = 0;
    for (let i = 0; i < a.offsets.length; i++) if (a.offsets[i] !== b.offsets[i]) moved++;
    const summary = document.querySelector('[data-testid=diff-summary]');
    return { peakA: String(a.summary.makespan), peakB: String(b.summary.makespan), moved, saved: summary.dataset.saved, shown: Number(summary.dataset.moved), text: summary.textContent };
  });
  assert(BigInt(pair.saved) === BigInt(pair.peakA) - BigInt(pair.peakB) && BigInt(pair.saved) > 0n, `tflite → auto saves ${pair.saved}: peaks ${pair.peakA} → ${pair.peakB}`);
  assert(pair.shown === pair.moved && pair.moved > 0, `moved ${pair.shown}, counted ${pair.moved}`);
  const grouped = (v) => BigInt(v).toLocaleString('en-US');
  assert(pair.text.includes(`peak ${grouped(pair.peakA)} → ${grouped(pair.peakB)}`), `summary: ${pair.text}`);
});

// Compare after a run, as a newcomer opens it at a phone's, a small laptop's and a desktop's
// width: every part apart from the others, the table and every plan seen whole (each panel with
// its time axis, not inside a small inner scroll box), the page never wider than the window.
await test('compare after a run at 390, 800 and 1280 px: nothing overlaps, nothing is cut, no sideways scroll', async (page) => {
  const apart = ['.tabs', '#compare-pane .compare-controls', '#compare-table thead tr', '#compare-table tbody tr', '#compare-grid .planview',
    '#compare-diff > .toolbar', '#diff-summary', '#diff-grid .planview', '#input-panel', '#controls-panel'];
  const whole = ['#compare-table tbody td', '#compare-table tbody .cell', '#compare-grid .planview canvas', '#diff-grid .planview canvas', '#compare-solvers label', '#compare-run'];
  const found = [];
  for (const [width, height] of [[390, 844], [800, 800], [1280, 800]]) {
    await page.setViewportSize({ width, height });
    await open(page);
    await page.click('#tab-compare');
    const checked = await page.evaluate(() => window.__memplan.compare.checked);
    assert(['auto', 'tflite', 'first-fit-start'].every((s) => checked.includes(s)), `compare's selection at ${width}: ${checked}`);
    assert((await page.inputValue(T('capacity-input'))).replace(/\D/g, '') !== '' , 'no capacity on the first screen');
    await page.click(T('compare-run'));
    await idle(page, 120_000);
    await page.waitForFunction(() => document.querySelector('[data-testid=diff-summary]').dataset.moved !== undefined, null, { timeout: 10_000 });
    await page.waitForTimeout(200);
    const problems = await layoutProblems(page, { apart, whole, fits: ['#compare-table tbody td', '#compare-table tbody .cell', '.planview-title'], lines: ['.planview-title', '#compare-solvers label'] });
    // The results table is as tall as its rows (at 390 it was 0 px, the panels drawn over them).
    const table = await page.evaluate(() => {
      const t = document.querySelector('[data-testid=compare-table]').getBoundingClientRect();
      const rows = [...document.querySelectorAll('[data-testid=compare-table] tbody tr')].map((r) => r.getBoundingClientRect());
      return { height: t.height, inside: rows.every((r) => r.top >= t.top - 1 && r.bottom <= t.bottom + 1), rows: rows.length };
    });
    if (!table.inside || table.height < 20 * table.rows) problems.push(`the results table is ${table.height} px tall for ${table.rows} rows${table.inside ? '' : ', its rows outside it'}`);
    await page.screenshot({ path: join(screenshots, `compare-after-run-${width}.png`), fullPage: true });
    if (problems.length) found.push(`${width}x${height}: ${problems.join('; ')}`);
  }
  assert(found.length === 0, found.join(' | '));
});

await test('axes: binary address ticks, time ticks that never repeat a label, marker labels apart; PNG has a title strip', async (page) => {
  await open(page, '?ex=minimalloc/challenging/C');
  const makespan = await run(page, 'auto');
  const labels = () => page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done(window.__memplan.view.tickLabels())))));
  const unique = (xs) => new Set(xs).size === xs.length;
  const check = async (what) => {
    const l = await labels();
    assert(l.time.length >= 2 && l.address.length >= 2, `${what}: ticks ${JSON.stringify(l)}`);
    assert(unique(l.time), `${what}: time labels repeat: ${l.time.join(' | ')}`);
    assert(unique(l.address), `${what}: address labels repeat: ${l.address.join(' | ')}`);
    assert(l.address.every((a) => /^(0|\d+(\.\d{1,2})? (B|KiB|MiB|GiB|TiB))$/.test(a)), `${what}: address labels ${l.address.join(' | ')}`);
    assert(l.time.every((a) => /^\d+(\.\d+)?[kMGTP]?$/.test(a)), `${what}: time labels ${l.time.join(' | ')}`);
    return l;
  };
  const whole = await check('whole plan');
  // Binary steps: the address ticks are multiples of a power of two.
  const ticks = await page.evaluate(() => {
    const { view, viewport } = window.__memplan;
    return { steps: view.tickLabels().address.length, y: [viewport.y0, viewport.y1] };
  });
  assert(ticks.steps >= 2, 'address ticks');
  // Zoomed far into time: ticks every step, integers, no repeats.
  for (const [x0, x1] of [[100.2, 103.9], [1000, 1012], [0, 2.5]]) {
    await page.evaluate(([a, b]) => { const v = window.__memplan.viewport; v.set({ x0: a, x1: b, y0: v.y0, y1: v.y1 }); }, [x0, x1]);
    const l = await check(`time ${x0}-${x1}`);
    assert(l.time.every((t) => Number.isInteger(Number(t))), `time ${x0}-${x1}: ${l.time.join(' | ')}`);
    // Fewer steps in view than ticks fit: a tick at every step.
    if (x1 - x0 < 4) assert(l.time.length === Math.floor(x1) - Math.ceil(x0) + 1, `time ${x0}-${x1}: not every step: ${l.time.join(' | ')}`);
  }
  // Zoomed into addresses too.
  await page.evaluate(() => { const v = window.__memplan.viewport; v.set({ x0: 0, x1: 50, y0: 1000, y1: 1040 }); });
  await check('addresses 1000-1040');
  // Long address labels (1021.75 KiB) widen the left margin so that they stay clear of the title.
  await page.evaluate(() => { const v = window.__memplan.viewport; v.set({ x0: 0, x1: 50, y0: 1046000, y1: 1048000 }); });
  const long = await check('addresses near 1 MiB');
  const plotLeft = await page.evaluate(() => window.__memplan.view.fromData(0, 1047000).x);
  assert(long.address.some((a) => a.length >= 10) && plotLeft > 84, `labels ${long.address.join(' | ')} with the plot at ${plotLeft} px`);
  await page.locator(T('plan-canvas')).screenshot({ path: join(screenshots, 'axes-long-labels.png') });
  await page.click('#zoom-reset');
  // Capacity = makespan: the makespan and capacity labels are on one line; they must not overlap,
  // nor L's (C packs to L, so all three are within a few pixels).
  await run(page, null, { capacity: makespan });
  await page.waitForTimeout(200);
  const placed = await page.evaluate(() => Object.fromEntries(window.__memplan.view.markerLabels));
  const names = Object.keys(placed);
  assert(names.includes('capacity') && names.includes('makespan') && names.includes('max-load'), `labels drawn: ${names}`);
  const height = 12 * (await page.evaluate(() => devicePixelRatio));
  for (let a = 0; a < names.length; a++) for (let b = a + 1; b < names.length; b++) {
    assert(Math.abs(placed[names[a]] - placed[names[b]]) >= height, `${names[a]} and ${names[b]} labels overlap: ${JSON.stringify(placed)}`);
  }
  await shoot(page, 'axes');
  // The PNG: the canvas under a title strip.
  const download = page.waitForEvent('download');
  await page.click('#export-png');
  const png = readFileSync(await (await download).path());
  const canvasHeight = await page.evaluate(() => window.__memplan.view.canvas.height);
  assert(png.readUInt32BE(20) > canvasHeight, `the PNG is ${png.readUInt32BE(20)} high, the canvas ${canvasHeight}: no title strip`);
  writeFileSync(join(screenshots, 'export.png'), png);
  figures.push(`axis labels of the whole plan: time ${whole.time.join(', ')}; address ${whole.address.join(', ')}`);
});

await test('large instances: Y_1 (62k buffers) and a 500k-buffer trace load, solve and draw (longest main-thread tasks as figures)', async (page) => {
  await open(page);
  let t = await now(page);
  await page.selectOption(T('example-select'), 'idealloc/iopddl/Y_1');
  await idle(page, 60_000);
  assert((await page.getAttribute(T('instance-input'), 'data-loaded')) === '62185', 'Y_1 did not load');
  await page.waitForTimeout(300);
  const y1Load = await maxLongTask(page, t);
  t = await now(page);
  await run(page, 'xla');
  // The first rectangles frame of a plan this large follows background work: wait for it.
  await page.waitForFunction(() => window.__memplan.view.lastMode === 'rectangles' && window.__memplan.view.settled);
  await page.waitForTimeout(300);
  const y1Solve = await maxLongTask(page, t);
  assert(await page.getAttribute(T('makespan'), 'data-value'), 'no plan for Y_1');
  const drawY1 = await page.evaluate(() => window.__memplan.view.lastDrawMs);
  await page.screenshot({ path: join(screenshots, 'y1.png') });
  t = await now(page);
  await page.fill('#gen-buffers', '500000');
  await page.fill('#gen-seed', '1');
  await page.click('#gen-button');
  await idle(page, 180_000);
  assert((await page.getAttribute(T('instance-input'), 'data-loaded')) === '500000', 'the 500k trace did not load');
  await page.waitForTimeout(300);
  const bigLoad = await maxLongTask(page, t);
  t = await now(page);
  await run(page, 'slff');
  // The overview's envelope is drawn after background work: wait for it, so that every task of
  // the first render is counted.
  await page.waitForFunction(() => window.__memplan.view.lastMode === 'load' && window.__memplan.view.settled);
  await page.waitForTimeout(500);
  const bigSolve = await maxLongTask(page, t);
  const draws = await page.evaluate(async () => {
    const { view, viewport } = window.__memplan;
    const out = [];
    for (let i = 0; i < 5; i++) {
      viewport.zoom(0.7, (viewport.x0 + viewport.x1) / 2, 0, { x: true, y: false });
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      out.push(`${view.lastMode} ${view.lastDrawMs.toFixed(0)} ms`);
    }
    return out;
  });
  await page.screenshot({ path: join(screenshots, 'trace-500k.png') });
  // Long tasks are the ones of 50 ms or more: none is reported as such.
  const longest = (ms) => (ms > 0 ? `${ms.toFixed(0)} ms` : 'none (< 50 ms)');
  figures.push(`longest main-thread task: Y_1 load ${longest(y1Load)}, Y_1 solve (xla) ${longest(y1Solve)}, 500k trace generate+load ${longest(bigLoad)}, 500k solve (slff) ${longest(bigSolve)}`);
  figures.push(`frame times: Y_1 ${drawY1.toFixed(0)} ms; 500k while zooming in: ${draws.join(', ')}`);
  // The main thread's longest task is a figure, not a pass/fail threshold: it is wall-clock time,
  // and on a loaded 2-core machine the same build measured 0 to 166 ms (speed is measured in
  // benchmarks: `npm run bench:page` reports it with pan frame rates). What this test holds is
  // the flow: both instances load, solve and draw in both modes while the page keeps answering.
  assert(draws.length === 5 && draws.every((d) => /^(load|rectangles) \d+ ms$/.test(d)), `frames while zooming: ${draws}`);
});

// Bring your own model. A .tflite file dropped (here: chosen with the file picker, the
// same path) is imported in the worker; the Model tab shows LiteRT's plan and memplan's on the same
// axes with the bytes saved, which match the CLI's import + solve --warm + diff.
await test('a TFLite model: the compiler plan and memplan side by side, saving, moved toggle; screenshots', async (page) => {
  const model = join(examplesDir, 'tflite/face_detection_short_range.tflite');
  const dir = mkdtempSync(join(tmpdir(), 'memplan-model-'));
  const [instance, compiler, best] = ['m.csv', 'tflite.csv', 'best.csv'].map((f) => join(dir, f));
  execFileSync(cli, ['import', model, '-o', instance, '--compiler-plan', compiler], { stdio: 'ignore' });
  execFileSync(cli, ['solve', instance, '--warm', compiler, '--out', best], { stdio: 'ignore' });
  const diff = JSON.parse(execFileSync(cli, ['diff', instance, compiler, best], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
  rmSync(dir, { recursive: true, force: true });
  await open(page);
  await page.setInputFiles('#file-input', model);
  await page.waitForFunction(() => document.querySelector('[data-testid=model-saving]')?.dataset.saved !== undefined, null, { timeout: 120_000 });
  await idle(page);
  assert(await page.isVisible('#model-pane'), 'the Model tab is not shown');
  const saving = await page.textContent(T('model-saving'));
  const saved = await page.getAttribute(T('model-saving'), 'data-saved');
  assert(saved === String(diff.saved_bytes), `the page saves ${saved} bytes, the CLI ${diff.saved_bytes}`);
  assert(Number(saved) > 0 && /memplan saves [\d,]+ bytes .*%/.test(saving), `saving text: ${saving}`);
  assert((await page.locator('#model-grid canvas').count()) === 2, 'not two plans side by side');
  assert(Number(await page.getAttribute(T('instance-input'), 'data-loaded')) === diff.buffers, 'the model\'s instance is not the page\'s input');
  // The toggle marks the moved buffers: the picture changes, and changes back.
  const picture = () => page.evaluate(() => document.querySelector('[data-testid=diff-canvas-b]').toDataURL());
  await page.waitForTimeout(300);
  const plain = await picture();
  await page.check(T('moved-toggle'));
  await page.waitForTimeout(300);
  const marked = await picture();
  assert(marked !== plain, 'highlighting the moved buffers changed nothing');
  assert((await page.textContent('#moved-count')).startsWith(String(diff.moved)), `moved count ${await page.textContent('#moved-count')}, CLI ${diff.moved}`);
  await shoot(page, 'model');
  await page.uncheck(T('moved-toggle'));
  await page.waitForTimeout(300);
  assert((await picture()) === plain, 'the toggle did not clear the marks');
  // The export is keyed by the compiler's ids (tensor indices), with memplan's offsets.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(T('model-csv'))]);
  const text = readFileSync(await download.path(), 'utf8');
  assert(text.startsWith('id,lower,upper,size,alignment,name,category,offset\n'), `export: ${text.slice(0, 80)}`);
  assert(text.trim().split('\n').length === diff.buffers + 1, 'the export does not have a row per buffer');
  // The gallery's model loads the same way.
  await page.selectOption(T('example-select'), 'tflite/face_detection_short_range');
  await page.waitForFunction(() => document.querySelector('[data-testid=model-saving]')?.dataset.saved !== undefined, null, { timeout: 120_000 });
  figures.push(`face_detection_short_range.tflite: LiteRT ${diff.peak_a} bytes, memplan ${diff.peak_b} bytes, saves ${diff.saved_bytes} (${diff.saved_pct} %), ${diff.moved} of ${diff.buffers} buffers moved`);
});

// Views engineers expect. Names on the rectangles, a search over ids and names, keys
// that pan and zoom, and the overview strip under the plan.
await test('plan navigation: names on rectangles, search marks and counts, keys pan and zoom, the strip moves the window', async (page) => {
  await open(page);
  await page.selectOption(T('example-select'), 'tflite/face_detection_short_range');
  await page.waitForFunction(() => document.querySelector('[data-testid=model-saving]')?.dataset.saved !== undefined, null, { timeout: 120_000 });
  await idle(page);
  await page.click('#tab-plan');
  await page.waitForFunction(() => window.__memplan.view.lastMode === 'rectangles' && window.__memplan.view.settled);
  const canvas = T('plan-canvas');
  // Names reach the page, and the rectangles with room say them (shortened in the middle when
  // they do not fit whole); the canvas's data-labels counts them.
  const labels = await page.evaluate(() => {
    const { view, state } = window.__memplan;
    const { inst } = state();
    const text = (t, o, i) => t.slice(o[i], o[i + 1]);
    return {
      named: inst.nameOffsets.length === inst.n + 1,
      count: Number(view.canvas.dataset.labels),
      labels: view.lastLabels.map((l) => ({ text: l.text, name: inst.nameOffsets.length ? text(inst.nameText, inst.nameOffsets, l.index) : '', id: text(inst.idText, inst.idOffsets, l.index) })),
    };
  });
  assert(labels.named, 'the model\'s tensor names did not reach the page');
  assert(labels.count > 0 && labels.count === labels.labels.length, `${labels.count} labels counted, ${labels.labels.length} listed`);
  for (const l of labels.labels) {
    const whole = l.name || l.id;
    const [head, tail] = l.text.split('…');
    assert(l.text === whole || (tail !== undefined && whole.startsWith(head) && whole.endsWith(tail)), `label '${l.text}' is not '${whole}' or a shortening of it`);
  }
  assert(labels.labels.some((l) => l.name && l.text === l.name && l.name !== l.id), `no label says a tensor name: ${labels.labels.map((l) => l.text)}`);
  // Hovering a labelled rectangle: the tooltip names the buffer too.
  const spot = await page.evaluate(() => {
    const { view } = window.__memplan;
    const l = view.lastLabels.find((x) => x.text === 'input') ?? view.lastLabels[0];
    return { x: (l.x + 4) / devicePixelRatio, y: l.y / devicePixelRatio, text: l.text };
  });
  const planBox = await page.locator(canvas).boundingBox();
  await page.mouse.move(planBox.x + spot.x, planBox.y + spot.y);
  await page.waitForSelector('.tooltip:not([hidden])', { timeout: 3000 });
  const tip = await page.textContent('.tooltip');
  assert(/name/.test(tip), `the tooltip over '${spot.text}' names no buffer: ${tip}`);
  await page.mouse.move(0, 0);
  // Search: marks the buffers whose id or name contains the text, and counts them.
  const expectedMatches = (q) => page.evaluate((query) => {
    const { inst } = window.__memplan.state();
    const text = (t, o, i) => (o.length ? t.slice(o[i], o[i + 1]) : '');
    const out = [];
    for (let i = 0; i < inst.n; i++) {
      if (text(inst.idText, inst.idOffsets, i).toLowerCase().includes(query) || text(inst.nameText, inst.nameOffsets, i).toLowerCase().includes(query)) out.push(i);
    }
    return out;
  }, q);
  const picture = () => page.evaluate(() => window.__memplan.view.canvas.toDataURL());
  const stripPicture = () => page.evaluate(() => document.querySelector('[data-testid=plan-canvas-minimap]').toDataURL());
  const plain = await picture();
  const plainStrip = await stripPicture();
  for (const query of ['conv', '17']) {
    await page.fill(T('plan-search'), query.toUpperCase());
    const want = await expectedMatches(query);
    // The search runs after a pause in the typing.
    await page.waitForFunction((n) => document.querySelector('[data-testid=plan-search-count]').dataset.count === String(n), want.length, { timeout: 5000 }).catch(() => {});
    const shown = await page.evaluate(() => ({ count: document.querySelector('[data-testid=plan-search-count]').dataset.count, text: document.querySelector('[data-testid=plan-search-count]').textContent, matches: Array.from(window.__memplan.search.matches) }));
    assert(want.length > 0, `nothing in the model contains '${query}'`);
    assert(shown.count === String(want.length) && shown.text === `${want.length} found`, `'${query}': ${shown.text} (${shown.count}), ${want.length} expected`);
    assert(JSON.stringify(shown.matches) === JSON.stringify(want), `'${query}': marked ${shown.matches}, expected ${want}`);
  }
  await page.waitForTimeout(200);
  assert((await picture()) !== plain, 'the search marked nothing on the plan');
  assert((await stripPicture()) !== plainStrip, 'the search marked nothing on the overview strip');
  await page.screenshot({ path: join(screenshots, 'search.png') });
  // Enter shows the buffers found: every one inside the window.
  await page.press(T('plan-search'), 'Enter');
  await page.waitForTimeout(200);
  const inside = await page.evaluate(() => {
    const { viewport: v, search, state } = window.__memplan;
    const { inst, result } = state();
    return Array.from(search.matches).every((i) => inst.startsF[i] >= v.x0 && inst.endsF[i] <= v.x1 && result.offsetsF[i] >= v.y0 && result.offsetsF[i] + inst.sizesF[i] <= v.y1);
  });
  assert(inside, 'Enter did not bring every buffer found into the window');
  await page.fill(T('plan-search'), '');
  await page.waitForTimeout(400);
  assert((await page.textContent(T('plan-search-count'))) === '', 'clearing the search left a count');
  // Keys on the focused plan, as the hint under it says.
  const hint = await page.textContent('#plan-keys');
  for (const key of ['A D', 'W S', 'Z or F', '0: reset']) assert(hint.includes(key), `the hint does not mention ${key}: ${hint}`);
  await page.click('#zoom-reset');
  await page.focus(canvas);
  const vp = () => page.evaluate(() => { const v = window.__memplan.viewport; return { x0: v.x0, x1: v.x1, y0: v.y0, y1: v.y1, full: v.fullRange }; });
  const near = (a, b) => Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(a), Math.abs(b));
  const v0 = await vp();
  const w0 = v0.x1 - v0.x0, h0 = v0.y1 - v0.y0;
  await page.keyboard.press('w');
  let v = await vp();
  assert(near(v.x1 - v.x0, w0 * 0.8) && near(v.y1 - v.y0, h0), `W: width ${v.x1 - v.x0}, expected ${w0 * 0.8}`);
  await page.keyboard.press('s');
  v = await vp();
  assert(near(v.x1 - v.x0, w0), `S did not zoom back out: ${v.x1 - v.x0}`);
  await page.keyboard.press('d');
  v = await vp();
  assert(near(v.x0, v0.x0 + w0 * 0.1), `D: x0 ${v.x0}, expected ${v0.x0 + w0 * 0.1}`);
  await page.keyboard.press('a');
  await page.keyboard.press('ArrowRight');
  v = await vp();
  assert(near(v.x0, v0.x0 + w0 * 0.1), `A then → : x0 ${v.x0}`);
  await page.keyboard.press('ArrowUp');
  v = await vp();
  assert(near(v.y0, v0.y0 + h0 * 0.1), `↑: y0 ${v.y0}, expected ${v0.y0 + h0 * 0.1}`);
  await page.keyboard.press('+');
  v = await vp();
  assert(near(v.x1 - v.x0, w0 * 0.8), `+: width ${v.x1 - v.x0}`);
  await page.keyboard.press('0');
  v = await vp();
  assert(near(v.x0, v.full.x0) && near(v.x1, v.full.x1) && near(v.y1, v.full.y1), '0 did not reset');
  // Z zooms to the selected buffer.
  const chosen = await page.evaluate(() => {
    const { inst } = window.__memplan.state();
    let best = 0;
    for (let i = 0; i < inst.n; i++) if (inst.endsF[i] - inst.startsF[i] < inst.endsF[best] - inst.startsF[best]) best = i;
    window.__memplan.view.setSelection(best, null);
    return best;
  });
  await page.keyboard.press('z');
  v = await vp();
  const box = await page.evaluate((i) => { const { inst, result } = window.__memplan.state(); return { x0: inst.startsF[i], x1: inst.endsF[i], y0: result.offsetsF[i], y1: result.offsetsF[i] + inst.sizesF[i] }; }, chosen);
  assert(v.x0 <= box.x0 && v.x1 >= box.x1 && v.y0 <= box.y0 && v.y1 >= box.y1, `Z: window ${JSON.stringify(v)} does not hold buffer ${JSON.stringify(box)}`);
  assert(v.x1 - v.x0 < (v.full.x1 - v.full.x0) / 2, `Z did not zoom in: ${v.x1 - v.x0}`);
  await page.keyboard.press('Escape');
  await page.keyboard.press('0');
  // The strip under the plan: zoomed in, a click centres the window there; a drag moves it.
  for (let k = 0; k < 6; k++) await page.keyboard.press('w');
  await page.waitForTimeout(100);
  const strip = await page.locator(T('plan-canvas-minimap')).boundingBox();
  assert(strip && strip.height > 10, 'no overview strip under the plan');
  const plot = await page.evaluate(() => { const { view, viewport: v } = window.__memplan; return { left: view.fromData(v.x0, 0).x, right: view.fromData(v.x1, 0).x }; });
  const zoomedWidth = (await vp()).x1 - (await vp()).x0;
  await page.mouse.click(strip.x + plot.left + 0.7 * (plot.right - plot.left), strip.y + strip.height / 2);
  v = await vp();
  const target = v.full.x0 + 0.7 * (v.full.x1 - v.full.x0);
  assert(Math.abs((v.x0 + v.x1) / 2 - target) < (v.full.x1 - v.full.x0) * 0.01, `the strip's click centred the window at ${(v.x0 + v.x1) / 2}, not ${target}`);
  assert(near(v.x1 - v.x0, zoomedWidth), 'the strip changed the zoom');
  const centre = strip.x + plot.left + 0.7 * (plot.right - plot.left);
  await page.mouse.move(centre, strip.y + strip.height / 2);
  await page.mouse.down();
  await page.mouse.move(centre - 100, strip.y + strip.height / 2, { steps: 4 });
  await page.mouse.up();
  const dragged = await vp();
  const moved = v.x0 - dragged.x0, expectedMove = (100 / (plot.right - plot.left)) * (v.full.x1 - v.full.x0);
  assert(Math.abs(moved - expectedMove) < expectedMove * 0.05, `dragging the strip moved the window ${moved}, expected ${expectedMove}`);
  await shoot(page, 'plan-nav-model');
  // A large plan, zoomed in: its ids on the rectangles that have room; the strip still follows.
  await page.selectOption(T('example-select'), 'idealloc/iopddl/Y_1');
  await idle(page, 60_000);
  await run(page, 'xla');
  await page.waitForFunction(() => window.__memplan.view.lastMode === 'rectangles' && window.__memplan.view.settled, null, { timeout: 60_000 });
  await page.evaluate(() => {
    const { inst, result } = window.__memplan.state();
    let big = 0;
    for (let i = 0; i < inst.n; i++) if (inst.sizesF[i] * (inst.endsF[i] - inst.startsF[i]) > inst.sizesF[big] * (inst.endsF[big] - inst.startsF[big])) big = i;
    window.__memplan.viewport.show({ x0: inst.startsF[big], x1: inst.endsF[big], y0: result.offsetsF[big], y1: result.offsetsF[big] + inst.sizesF[big] }, 2);
  });
  await page.waitForFunction(() => window.__memplan.view.settled);
  await page.waitForTimeout(300);
  const y1Labels = await page.evaluate(() => window.__memplan.view.lastLabels.length);
  assert(y1Labels > 0, 'no ids on Y_1\'s rectangles zoomed in');
  await shoot(page, 'plan-nav-y1');
});

// Colour by what a buffer holds, as the importers say.
await test('a TFLite model opens coloured by category: the legend lists input/output/temporary, the tooltip of a graph input says input; screenshot', async (page) => {
  await open(page, '?ex=tflite/face_detection_short_range');
  await page.waitForFunction(() => document.querySelector('[data-testid=model-saving]')?.dataset.saved !== undefined, null, { timeout: 120_000 });
  await idle(page);
  await page.click('#tab-plan');
  await page.waitForFunction(() => window.__memplan.view.lastMode === 'rectangles' && window.__memplan.view.settled);
  const offered = await page.$$eval('#color-select option', (options) => options.map((o) => o.value));
  assert(offered.includes('category'), `category is not offered: ${offered}`);
  assert(await page.inputValue('#color-select') === 'category', 'an imported model does not open coloured by category');
  const legend = await page.$$eval('#legend .category', (items) => items.map((i) => i.dataset.category));
  assert(legend.join() === 'input,output,temporary', `legend: ${legend}`);
  // The graph input: its label on the plan, hovered.
  const spot = await page.evaluate(() => {
    const { view, state } = window.__memplan;
    const { inst } = state();
    const l = view.lastLabels.find((x) => inst.categoryNames[inst.categories[x.index] - 1] === 'input');
    return l && { x: (l.x + 4) / devicePixelRatio, y: l.y / devicePixelRatio, text: l.text };
  });
  assert(spot, 'no label of a graph input on the plan');
  const planBox = await page.locator(T('plan-canvas')).boundingBox();
  await page.mouse.move(planBox.x + spot.x, planBox.y + spot.y);
  await page.waitForSelector('.tooltip:not([hidden])', { timeout: 3000 });
  const tip = await page.textContent('.tooltip');
  assert(/category\s*input/.test(tip), `the tooltip over '${spot.text}' does not say input: ${tip}`);
  await shoot(page, 'category-face-detection');
  // A pasted CSV without categories: the mode goes away and colouring falls back to size.
  await paste(page, smallText);
  const after = await page.$$eval('#color-select option', (options) => options.map((o) => o.value));
  assert(!after.includes('category') && await page.inputValue('#color-select') === 'size', `after a plain CSV: ${after}`);
});

await test('auto with 2 threads vs 1 (figure only)', async (page) => {
  const file = 'idealloc/somas_tensors/resnet50.csv';
  const times = {};
  for (const threads of [1, 2]) {
    await open(page, `?ex=idealloc/resnet50&threads=${threads}`);
    assert(Number(await page.getAttribute(T('threads'), 'data-threads')) === threads, `pool has not ${threads} threads`);
    await page.selectOption('#effort-select', 'high');
    const samples = [];
    let makespan;
    for (let k = 0; k < 5; k++) {
      makespan = await run(page, 'auto', { seed: '0' });
      samples.push(Number(await page.getAttribute(T('elapsed'), 'data-value')));
    }
    times[threads] = { ms: samples.sort((a, b) => a - b)[2], makespan };
  }
  assert(times[1].makespan === times[2].makespan, 'auto plans differently with 1 and 2 threads');
  figures.push(`auto (effort high) on ${file}: 1 thread ${times[1].ms.toFixed(0)} ms, 2 threads ${times[2].ms.toFixed(0)} ms, ratio ${(times[1].ms / times[2].ms).toFixed(2)}x`);
});

// The page served WITHOUT the isolation headers (as an embed in someone's docs would be).
const server = await startStaticServer(join(root, 'dist'));
await test('embed mode works without isolation on the single-threaded build', async (page) => {
  await open(page, '?embed&ex=handmade/small&solver=slff&run=1', server.url);
  assert(!(await page.evaluate(() => crossOriginIsolated)), 'unexpectedly isolated');
  await page.waitForFunction(() => document.querySelector('[data-testid=makespan]').dataset.value, null, { timeout: 30_000 });
  const badge = page.locator(T('threads'));
  assert((await badge.getAttribute('data-build')) === 'single', 'not the single-threaded build');
  assert((await badge.getAttribute('data-threads')) === '1', 'more than one thread');
  assert(await page.evaluate(() => document.body.classList.contains('embed')), 'no embed layout');
  assert(!(await page.isVisible('#input-panel')), 'embed shows the input panel');
  const makespan = await page.getAttribute(T('makespan'), 'data-value');
  const native = cliSolve(small, 'slff', '0');
  assert(makespan === cliMakespan(native), `embed makespan ${makespan}`);
  // The embed says why the run stopped, as the CLI does.
  assert(await page.isVisible(T('verdict')), 'the embed shows no verdict');
  const shown = await verdict(page);
  assert(shown.stopped === native.stopped && shown.text.endsWith(native.verdict), `embed verdict ${JSON.stringify(shown)}, CLI ${native.stopped}`);
  await shoot(page, 'embed');
  // Cancel in the single-threaded build ends the busy worker and starts a new one with the same
  // instance; the page answers meanwhile and solves again after.
  await open(page, '?embed&gen=150000:3&solver=auto&effort=high', server.url);
  await page.click(T('run-button'));
  await page.waitForTimeout(1000);
  assert((await page.getAttribute(T('status'), 'data-state')) === 'busy', `not solving: ${await status(page)}`);
  await page.click(T('cancel-button'));
  const t0 = Date.now();
  await page.evaluate(() => 1 + 1);
  assert(Date.now() - t0 < 1000, 'page did not answer during the cancel');
  await idle(page);
  assert(/cancel/i.test(await status(page)), `status after cancel: ${await status(page)}`);
  assert((await verdict(page)).stopped === 'cancelled', 'the embed does not say the run was cancelled');
  assert(!(await page.getAttribute(T('makespan'), 'data-value')), 'a plan is shown after a cancel that kept none');
  await page.selectOption(T('solver-select'), 'slff');
  await page.click(T('run-button'));
  await idle(page, 60_000);
  assert(await page.getAttribute(T('makespan'), 'data-value'), 'no result after a cancel in the single-threaded build');
});
await test('embed for docs: an instance by url, a forced theme, autoplay of the placement, open in the playground', async (page) => {
  await page.setViewportSize({ width: 640, height: 360 });
  await open(page, '?embed&url=examples/handmade/small.csv&solver=slff&run=1&theme=dark&autoplay', server.url);
  await page.waitForFunction(() => document.querySelector('[data-testid=makespan]').dataset.value, null, { timeout: 30_000 });
  const makespan = await page.getAttribute(T('makespan'), 'data-value');
  assert(makespan === cliMakespan(cliSolve(small, 'slff', '0')), `embed by url: makespan ${makespan}`);
  const theme = await page.evaluate(() => ({ set: document.documentElement.dataset.theme, bg: getComputedStyle(document.body).backgroundColor }));
  assert(theme.set === 'dark' && theme.bg === 'rgb(15, 18, 24)', `theme=dark not applied: ${JSON.stringify(theme)}`);
  // The placement replays once solved (14 steps at 100 a second: over before a slow test could
  // watch the label move, so the replay's own count says it started), and ends on the whole plan.
  await page.waitForFunction(() => window.__memplan.replay.plays === 1, null, { timeout: 10_000 });
  await page.waitForFunction(() => /^(\d+) \/ \1$/.test(document.querySelector('#replay-label').textContent), null, { timeout: 10_000 });
  const link = await page.getAttribute('.embed-strip a', 'href');
  const query = new URLSearchParams(link.split('?')[1]);
  assert(query.get('url') === 'examples/handmade/small.csv' && !query.has('embed'), `open in the playground: ${link}`);
  assert(await page.evaluate(() => document.documentElement.scrollWidth <= 640), 'the embed scrolls sideways at 640 px');
  await page.screenshot({ path: join(screenshots, 'embed-640x360-dark.png') });
  // theme=light wins over a dark system.
  await page.emulateMedia({ colorScheme: 'dark' });
  await open(page, '?embed&ex=handmade/small&theme=light', server.url);
  assert((await page.evaluate(() => document.documentElement.dataset.theme)) === 'light', 'theme=light did not win over the system');
});
await server.close();

// The docs element (<memplan-plan>, dist-embed/ from `npm run build:embed`) on a sample docs page
// (public/docs-sample.html), served WITHOUT isolation: dist/ at /, with the playground the
// elements link to, and dist-embed/ at /embed/, as a documentation site would host them.
const docs = await startStaticServer(join(root, 'dist'), { mounts: { '/embed/': join(root, 'dist-embed') } });
/** The sample page's elements: how each is given and what the CLI runs for it. */
const samplePlans = [
  { id: 'by-src', file: small, solver: 'slff' },
  { id: 'inline', text: readFileSync(join(examplesDir, 'minimalloc/examples/input.12.csv'), 'utf8'), solver: 'auto', capacity: '12' },
  { id: 'dark', file: small, solver: 'auto' },
];
async function openDocs(page) {
  await page.goto(`${docs.url}/docs-sample.html`);
  await page.waitForFunction(() => customElements.get('memplan-plan') !== undefined, null, { timeout: 30_000 });
  await page.waitForFunction(() => [...document.querySelectorAll('memplan-plan')].every((e) => e.dataset.state === 'done' || e.dataset.state === 'error'), null, { timeout: 60_000 });
}
/** The CLI's run for a sample element (an inline instance through a temporary file). */
function cliFor(plan) {
  const extra = plan.capacity ? ['--capacity', plan.capacity] : [];
  if (plan.file) return cliSolve(plan.file, plan.solver, '0', undefined, undefined, extra);
  const file = join(tmpdir(), `memplan-e2e-docs-${process.pid}-${plan.id}.csv`);
  writeFileSync(file, plan.text);
  try {
    return cliSolve(file, plan.solver, '0', undefined, undefined, extra);
  } finally {
    rmSync(file, { force: true });
  }
}
await test('docs element: each plan on a non-isolated docs page is the CLI\'s, with its figures, verdict and tooltips', async (page) => {
  await openDocs(page);
  assert(!(await page.evaluate(() => crossOriginIsolated)), 'the docs page is cross-origin isolated');
  // Solving ran in a worker (the page's main thread only draws).
  assert(page.workers().some((w) => /\/embed\//.test(w.url())), `no worker from /embed/: ${page.workers().map((w) => w.url())}`);
  for (const plan of samplePlans) {
    const el = `#${plan.id}`;
    assert((await page.getAttribute(el, 'data-state')) === 'done', `${plan.id}: ${await page.textContent(`${el} [data-testid=error]`)}`);
    const native = cliFor(plan);
    const value = (testid) => page.getAttribute(`${el} [data-testid=${testid}]`, 'data-value');
    assert((await value('makespan')) === cliMakespan(native), `${plan.id}: makespan ${await value('makespan')}, CLI ${native.makespan}`);
    assert((await value('max-load')) === String(native.max_load), `${plan.id}: L ${await value('max-load')}, CLI ${native.max_load}`);
    assert((await value('fragmentation')) === String(native.fragmentation), `${plan.id}: fragmentation ${await value('fragmentation')}, CLI ${native.fragmentation}`);
    assert((await value('stopped')) === native.stopped, `${plan.id}: stopped ${await value('stopped')}, CLI ${native.stopped}`);
    const shown = await page.$eval(`${el} [data-testid=verdict]`, (v) => ({ stopped: v.dataset.stopped, text: v.textContent, visible: v.offsetHeight > 0 }));
    assert(shown.visible && shown.stopped === native.stopped && shown.text.endsWith(native.verdict), `${plan.id}: verdict ${JSON.stringify(shown)}, CLI ${native.verdict}`);
    const labels = await page.$$eval(`${el} [data-testid=figures] dt`, (all) => all.map((dt) => dt.textContent));
    assert(['makespan', 'L', 'fragmentation', 'stopped'].every((l) => labels.includes(l)), `${plan.id}: figures ${labels}`);
    // Hovering buffer 0's middle shows its tooltip, with its id and the offset the plan gave it.
    await page.locator(el).scrollIntoViewIfNeeded();
    const point = await page.$eval(el, (e) => {
      const { inst, result } = e.plan;
      const at = e.planView.fromData((inst.startsF[0] + inst.endsF[0]) / 2, result.offsetsF[0] + inst.sizesF[0] / 2);
      const box = e.shadowRoot.querySelector('canvas').getBoundingClientRect();
      return { x: box.left + at.x, y: box.top + at.y, id: inst.idText.slice(inst.idOffsets[0], inst.idOffsets[1]), offset: String(result.offsets[0]) };
    });
    await page.mouse.move(point.x, point.y);
    await page.waitForSelector(`${el} .tooltip:not([hidden])`, { timeout: 5000 });
    const tip = await page.textContent(`${el} .tooltip`);
    assert(tip.includes(point.id) && tip.includes(Number(point.offset).toLocaleString('en-US')), `${plan.id}: tooltip ${tip} for ${JSON.stringify(point)}`);
    await page.mouse.move(0, 0);
  }
  // The page's own styles stay out: its canvas border and its --bg do not reach the elements; the
  // dark one is dark.
  const looks = await page.evaluate(() => Object.fromEntries([...document.querySelectorAll('memplan-plan')].map((e) => [e.id, {
    border: getComputedStyle(e.shadowRoot.querySelector('canvas')).borderTopWidth,
    bg: getComputedStyle(e.shadowRoot.querySelector('.card')).backgroundColor,
  }])));
  for (const [id, look] of Object.entries(looks)) assert(look.border === '0px' && look.bg !== 'rgb(255, 228, 230)', `${id}: the page's styles leaked in: ${JSON.stringify(look)}`);
  assert(looks.dark.bg === 'rgb(15, 18, 24)' && looks['by-src'].bg === 'rgb(246, 247, 249)', `themes: ${JSON.stringify(looks)}`);
  assert(!(await page.isVisible('#unbuilt')), 'the sample page says the element is not built');
  await page.screenshot({ path: join(screenshots, 'docs-sample.png'), fullPage: true });
  // Without a theme an element follows the reader's system; theme="light" stays light.
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.evaluate(() => document.getElementById('inline').setAttribute('theme', 'light'));
  await page.waitForTimeout(100);
  const schemes = await page.evaluate(() => ['by-src', 'inline'].map((id) => getComputedStyle(document.getElementById(id).shadowRoot.querySelector('.card')).backgroundColor));
  assert(schemes[0] === 'rgb(15, 18, 24)' && schemes[1] === 'rgb(246, 247, 249)', `a dark system: ${schemes}`);
});
await test('docs element: a 20,000-buffer instance solves in the worker, as the CLI plans it', async (page) => {
  await openDocs(page);
  const file = join(tmpdir(), `memplan-e2e-docs-${process.pid}-large.csv`);
  execFileSync(cli, ['generate', '--buffers', '20000', '--seed', '4', '--out', file]);
  const text = readFileSync(file, 'utf8');
  const since = await now(page);
  const began = Date.now();
  await page.evaluate((csv) => {
    const large = document.createElement('memplan-plan');
    large.id = 'large';
    large.setAttribute('solver', 'first-fit-start');
    large.textContent = csv;
    document.body.append(large);
  }, text);
  await page.waitForFunction(() => document.getElementById('large').dataset.state === 'done', null, { timeout: 120_000 });
  const wall = Date.now() - began;
  const makespan = await page.getAttribute('#large [data-testid=makespan]', 'data-value');
  const cliAnswer = cliMakespan(cliSolve(file, 'first-fit-start', '0'));
  rmSync(file, { force: true });
  assert(makespan === cliAnswer, `20,000 buffers: makespan ${makespan}`);
  // Too large to travel in a link: the element offers none rather than a broken one.
  assert(!(await page.isVisible('#large [data-testid=playground-link]')), 'a playground link for an instance too large for one');
  figures.push(`docs element, 20,000 buffers (first-fit-start), inline: ${wall} ms from insertion to the plan, longest main-thread task ${(await maxLongTask(page, since)).toFixed(0)} ms (loaded machine)`);
});
await test('docs element: the playground link opens the same instance; a bad instance errors inside its element only', async (page) => {
  await openDocs(page);
  // The link of the element given by src: the playground's share form, the same address and solver.
  const [playground] = await Promise.all([page.context().waitForEvent('page'), page.click('#by-src [data-testid=playground-link]')]);
  try {
    await playground.waitForFunction(() => window.__memplan !== undefined, null, { timeout: 30_000 });
    await playground.waitForFunction(() => document.querySelector('[data-testid=makespan]')?.dataset.value, null, { timeout: 30_000 });
    const query = new URL(playground.url()).searchParams;
    assert(query.get('url') === `${docs.url}/examples/handmade/small.csv` && query.get('solver') === 'slff', `link ${playground.url()}`);
    const opened = await playground.evaluate(() => ({ n: window.__memplan.state().inst.n, makespan: document.querySelector('[data-testid=makespan]').dataset.value }));
    const mine = await page.getAttribute('#by-src [data-testid=makespan]', 'data-value');
    assert(opened.n === 14 && opened.makespan === mine, `the playground opened ${JSON.stringify(opened)}, the element shows ${mine}`);
    // The inline element's link carries the instance itself (compressed) and its capacity.
    const inline = await page.getAttribute('#inline [data-testid=playground-link]', 'href');
    await playground.goto(inline);
    await playground.waitForFunction(() => window.__memplan !== undefined, null, { timeout: 30_000 });
    await playground.waitForFunction(() => document.querySelector('[data-testid=makespan]')?.dataset.value, null, { timeout: 30_000 });
    const text = await playground.inputValue('[data-testid=instance-input]');
    const expected = samplePlans[1].text.trim();
    assert(text.trim() === expected, `the inline link opened ${JSON.stringify(text)}`);
    assert((await playground.inputValue('[data-testid=capacity-input]')) === '12', 'the inline link lost its capacity');
    const inlineMakespan = await page.getAttribute('#inline [data-testid=makespan]', 'data-value');
    assert((await playground.getAttribute('[data-testid=makespan]', 'data-value')) === inlineMakespan, 'the playground planned the inline instance differently');
  } finally {
    await playground.close();
  }
  // Two bad elements (an instance that cannot be read, an address that is not there) show their
  // errors inside themselves; the others keep their plans, and the shared worker solves on.
  const before = await page.$$eval('memplan-plan', (all) => all.map((e) => e.summary?.makespan));
  await page.evaluate(() => {
    const bad = document.createElement('memplan-plan');
    bad.id = 'bad';
    bad.textContent = 'id,lower,upper,size\na,0,4,8\nb,5,2,4\n';
    const missing = document.createElement('memplan-plan');
    missing.id = 'missing';
    missing.setAttribute('src', 'examples/no-such-instance.csv');
    document.body.append(bad, missing);
  });
  await page.waitForFunction(() => ['bad', 'missing'].every((id) => document.getElementById(id).dataset.state === 'error'), null, { timeout: 30_000 });
  const bad = await page.textContent('#bad [data-testid=error]');
  assert(/line 3/.test(bad) && (await page.isVisible('#bad [data-testid=error]')), `the bad instance's error: ${bad}`);
  assert(!(await page.isVisible('#bad canvas')), 'the bad element draws a plan');
  const missing = await page.textContent('#missing [data-testid=error]');
  assert(/no-such-instance\.csv: 404/.test(missing), `the missing address's error: ${missing}`);
  const after = await page.$$eval('memplan-plan', (all) => all.slice(0, 3).map((e) => e.summary?.makespan));
  assert(JSON.stringify(after) === JSON.stringify(before.slice(0, 3)), `the other elements changed: ${JSON.stringify(before)} -> ${JSON.stringify(after)}`);
  for (const plan of samplePlans) assert(!(await page.isVisible(`#${plan.id} [data-testid=error]`)), `${plan.id} shows an error`);
  // After the errors, a changed attribute solves again with the same worker.
  await page.evaluate(() => document.getElementById('by-src').setAttribute('solver', 'auto'));
  await page.waitForFunction(() => document.getElementById('by-src').summary?.solver === 'auto', null, { timeout: 30_000 });
  const auto = await page.getAttribute('#by-src [data-testid=makespan]', 'data-value');
  assert(auto === cliMakespan(cliSolve(small, 'auto', '0')), `by-src with auto: ${auto}`);
  await page.screenshot({ path: join(screenshots, 'docs-sample-errors.png'), fullPage: true });
});
await docs.close();

await close();
if (figures.length) {
  console.log('\nmeasured:');
  for (const f of figures) console.log(`  ${f}`);
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
