// The page's responsiveness on large plans, measured in headless Chromium (playwright-core and
// Debian's Chromium, as tests/e2e.mjs): the 62k-buffer Y_1 example and a generated 500k-buffer
// trace are loaded and solved, then the plan is panned programmatically every animation frame.
// Prints, per instance: frames drawn per second while panning (the whole plan, and zoomed in),
// the plan view's draw time per frame (mean and worst; the labels' and the overview strip's share),
// the longest main-thread task while solving (Long Tasks API, 50 ms and up) with the longest gap
// between animation frames then, and how long the search box takes.
//
// A benchmark, not a test: it asserts nothing. Headless Chromium paces frames at 60 per second
// at most, so 60 means "never late"; figures vary with the machine's load.
//
// Usage: npm run build && node scripts/bench-page.mjs [URL]   (default: serves dist/ itself,
// cross-origin isolated so that the threaded build runs). PAN_MS sets each pan's duration.
import { servedPage } from '../tests/static-server.mjs';
import { launchProfile, pageIdle } from '../tests/chromium.mjs';

const root = new URL('..', import.meta.url).pathname;
const panMs = Number(process.env.PAN_MS ?? 3000);
const { base, server } = await servedPage(root, process.argv[2]);

const { context, close } = await launchProfile({ viewport: { width: 1280, height: 800 }, prefix: 'chromium-bench-' });
await context.addInitScript(() => {
  // What the long frames ran (Long Animation Frames API): the scripts' entry points and durations,
  // and the frame's rendering, so that a long task can be told apart (a message, a timer, a frame).
  window.__loafs = [];
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        window.__loafs.push({
          start: e.startTime, duration: e.duration, blocking: e.blockingDuration, render: e.renderStart ? e.startTime + e.duration - e.renderStart : 0,
          scripts: e.scripts.map((s) => ({ invoker: s.invoker, fn: s.sourceFunctionName, at: `${(s.sourceURL || '').split('/').pop()}:${s.sourceCharPosition}`, duration: s.duration })),
        });
      }
    }).observe({ type: 'long-animation-frame', buffered: true });
  } catch { /* no LoAF support */ }
  // The longest gap between animation frames since `__gapsFrom` (a frame late by this much).
  window.__gapsFrom = 0;
  window.__longestGap = 0;
  let last = 0;
  const tick = (now) => {
    if (last && now >= window.__gapsFrom) window.__longestGap = Math.max(window.__longestGap, now - last);
    last = now;
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
});

const page = await context.newPage();
page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
// Polled every 50 ms, not every animation frame (Playwright's default): polling by frames makes
// the page render a frame every vsync while it solves, and the benchmark would measure that.
const idle = (timeout = 300_000) => pageIdle(page, { timeout, polling: 50 });
const settled = (mode) => page.waitForFunction((m) => window.__memplan.view.settled && (!m || window.__memplan.view.lastMode === m), mode, { timeout: 120_000, polling: 50 });

/** Solves with `solver` and returns the longest long task and animation-frame gap meanwhile. */
async function solve(solver) {
  const since = await page.evaluate(() => { window.__gapsFrom = performance.now(); window.__longestGap = 0; return performance.now(); });
  await page.selectOption('[data-testid=solver-select]', solver);
  await page.click('[data-testid=run-button]');
  await idle();
  await settled();
  await page.waitForTimeout(300);
  return page.evaluate((t) => ({
    longTask: Math.max(0, ...window.__longtasks.filter((e) => e.start >= t).map((e) => e.duration)),
    tasks: window.__longtasks.filter((e) => e.start >= t).map((e) => Math.round(e.duration)),
    frames: window.__loafs.filter((e) => e.start >= t).sort((a, b) => b.duration - a.duration).slice(0, 4),
    gap: window.__longestGap,
    makespan: document.querySelector('[data-testid=makespan]').dataset.value,
  }), since);
}

/** Pans the plan a little every animation frame for `ms`, back and forth, and counts the frames
 * the plan view drew; `zoom` first narrows the time window around its centre (1: as it is). */
async function pan(zoom, ms) {
  return page.evaluate(async ([zoomBy, duration]) => {
    const { view, viewport } = window.__memplan;
    viewport.reset();
    const c = (viewport.x0 + viewport.x1) / 2;
    viewport.zoom(zoomBy, c, 0, { x: true, y: false });
    await new Promise((r) => setTimeout(r, 400)); // let the zoomed window settle (background work)
    const width = viewport.x1 - viewport.x0;
    const drawn0 = view.framesDrawn;
    const draws = [], labelMs = [], stripMs = [];
    const began = performance.now();
    let k = 0;
    await new Promise((done) => {
      const step = (now) => {
        if (now - began >= duration) return done();
        // 60 frames one way, 60 back: the same windows again and again, never a cached one in a row.
        viewport.pan(width * 0.005 * (Math.floor(k / 60) % 2 === 0 ? 1 : -1), 0);
        k++;
        draws.push(view.lastDrawMs);
        labelMs.push(view.lastLabelMs);
        stripMs.push(view.lastMinimapMs);
        requestAnimationFrame(step);
      };
      requestAnimationFrame(step);
    });
    const seconds = (performance.now() - began) / 1000;
    const mean = draws.reduce((a, b) => a + b, 0) / Math.max(1, draws.length);
    return {
      fps: (view.framesDrawn - drawn0) / seconds, meanDraw: mean, worstDraw: Math.max(...draws), mode: view.lastMode,
      labels: view.lastLabels.length, labelMs: labelMs.reduce((a, b) => a + b, 0) / Math.max(1, labelMs.length),
      stripMs: stripMs.reduce((a, b) => a + b, 0) / Math.max(1, stripMs.length),
    };
  }, [zoom, ms]);
}

const fmt = (ms) => `${ms.toFixed(1)} ms`;
const task = (ms) => (ms > 0 ? fmt(ms) : 'none of 50 ms or more');
function report(name, solved, pans) {
  console.log(`\n${name}`);
  console.log(`  solve: longest main-thread task ${task(solved.longTask)}; longest gap between frames ${fmt(solved.gap)} (makespan ${solved.makespan})`);
  console.log(`  solve: long tasks (ms) ${solved.tasks.join(', ') || 'none'}`);
  for (const f of solved.frames) {
    const scripts = f.scripts.map((s) => `${s.invoker}${s.fn ? ` ${s.fn}` : ''} ${s.at} ${fmt(s.duration)}`).join('; ');
    console.log(`  long frame ${fmt(f.duration)} (render ${fmt(f.render)}): ${scripts || 'no script'}`);
  }
  for (const [what, p] of pans) {
    console.log(`  pan ${what}: ${p.fps.toFixed(1)} frames/s, draw ${fmt(p.meanDraw)} mean, ${fmt(p.worstDraw)} worst (${p.mode}; of it labels ${fmt(p.labelMs)}, ${p.labels} in the last frame, overview strip ${fmt(p.stripMs)})`);
  }
}

/** Types `query` in the plan's search box and returns how long the search took and its count. */
async function search(query) {
  return page.evaluate((q) => {
    const { search } = window.__memplan;
    const input = document.querySelector('[data-testid=plan-search]');
    input.value = q;
    const began = performance.now();
    search.search();
    const ms = performance.now() - began;
    const found = search.matches.length;
    input.value = '';
    search.search();
    return { ms, found, query: q };
  }, query);
}
const searched = (s) => `  search '${s.query}': ${fmt(s.ms)} (marking included), ${s.found} found`;

await page.goto(`${base}/`);
await page.waitForFunction(() => window.__memplan !== undefined, null, { timeout: 60_000 });
await idle();
const build = await page.getAttribute('[data-testid=threads]', 'data-build');
const threads = await page.getAttribute('[data-testid=threads]', 'data-threads');
console.log(`page ${base}, ${build} build, ${threads} thread(s), Chromium ${context.browser()?.version() ?? ''}, pans of ${panMs} ms`);

await page.selectOption('[data-testid=example-select]', 'idealloc/iopddl/Y_1');
await idle();
const y1 = await solve('xla');
report('Y_1 (62,185 buffers), solver xla', y1, [
  ['whole plan', await pan(1, panMs)],
  ['zoomed 10x', await pan(0.1, panMs)],
  ['zoomed 200x', await pan(0.005, panMs)],
]);
console.log(searched(await search('123')));

await page.fill('#gen-buffers', '500000');
await page.fill('#gen-seed', '1');
await page.click('#gen-button');
await idle();
const big = await solve('slff');
report('generated trace (500,000 buffers, seed 1), solver slff', big, [
  ['whole plan', await pan(1, panMs)],
  ['zoomed 10x', await pan(0.1, panMs)],
  ['zoomed 200x', await pan(0.005, panMs)],
]);
console.log(searched(await search('123')));
console.log(searched(await search('9')));

await close();
await server?.close();
