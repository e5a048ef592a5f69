// Does the page's threaded wasm gain from a second thread as the native CLI does? Drives the real
// page in headless Chromium (playwright-core and Debian's Chromium, as tests/e2e.mjs), served
// cross-origin isolated so that the threaded build runs, through the page's own controls: the
// threads select (which restarts the solver worker with a pool of that many threads), the solver,
// capacity, time limit and effort, and the Run button. It reads what the page keeps of the run
// (the summary's `nodes_explored` and elapsed time, the makespan).
//
// Two measurements, each on 1 thread then on 2:
//   - MiniMalloc's exact search on D at its best known capacity (1,017,856 bytes = 994 units of
//     1 KiB; 30 s limit): nodes explored a millisecond, and the ratio 2 threads / 1 thread (native
//     on this machine: 727 and 1,369 nodes/ms, 1.88x, when idle);
//   - auto at high effort with a 20 s limit and no capacity on D: the makespan each reaches.
//
// Each page run follows the native CLI's same run on as many threads
// (target/release/memplan, or MEMPLAN_CLI; NATIVE=0 leaves it out), so that both ratios are
// measured under the same load.
//
// A benchmark, not a test: it asserts nothing. The machine's load (printed) moves the figures:
// two threads gain only when a second core is free.
//
// Usage: npm run build && node scripts/bench-page-threads.mjs [URL]   (default: serves dist/
// itself, isolated). ROUNDS repeats the exact-search pair (interleaved 1, 2, 1, 2...; default 2);
// SKIP_AUTO=1 leaves out the auto runs.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { servedPage } from '../tests/static-server.mjs';
import { launchProfile, pageIdle } from '../tests/chromium.mjs';

const root = new URL('..', import.meta.url).pathname;
const rounds = Number(process.env.ROUNDS ?? 2);
const example = 'minimalloc/challenging/D';
const capacity = '1017856';
const cli = process.env.MEMPLAN_CLI ?? join(root, 'target/release/memplan');
const native = process.env.NATIVE !== '0' && existsSync(cli);
const { base, server } = await servedPage(root, process.argv[2]);

const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const { context, close } = await launchProfile({ viewport: { width: 1280, height: 800 }, prefix: 'chromium-bench-' });
const page = await context.newPage();
page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
// Polled every 100 ms, not every animation frame: frames painted for the poll would take a core
// from the solver threads.
const idle = (timeout = 300_000) => pageIdle(page, { timeout, polling: 100 });

/** Restarts the page's worker with `n` threads (the threads select) and waits for its pool. */
async function useThreads(n) {
  const current = await page.getAttribute('[data-testid=threads]', 'data-threads');
  if (current !== String(n)) {
    await page.selectOption('#threads-select', String(n));
    await page.waitForFunction((want) => document.querySelector('[data-testid=threads]')?.dataset.threads === want, String(n), { timeout: 60_000, polling: 100 });
  }
  await idle();
}

/** One run with the page's controls; returns what the page keeps of it. */
async function run({ solver, capacity: cap, timeLimit, effort }) {
  await page.selectOption('[data-testid=solver-select]', solver);
  await page.fill('[data-testid=capacity-input]', cap);
  await page.fill('#time-limit', String(timeLimit));
  if (effort) await page.selectOption('#effort-select', effort);
  // The capacity is checked by the worker as it is typed; the Run button waits for nothing else.
  await page.waitForTimeout(300);
  const loadBefore = load();
  await page.click('[data-testid=run-button]');
  await page.waitForFunction(() => window.__memplan.state().solving, null, { timeout: 30_000, polling: 50 }).catch(() => {});
  await idle((timeLimit + 60) * 1000);
  const got = await page.evaluate(() => {
    const r = window.__memplan.state().result;
    if (!r) return null;
    return { stats: r.summary.stats, elapsedMs: r.summary.elapsed_ms, wallMs: r.wallMs, makespan: Number(r.summary.makespan), solver: r.summary.solver };
  });
  if (!got) throw new Error(`no result for ${solver}`);
  return { ...got, load: loadBefore };
}

await page.goto(`${base}/`);
await page.waitForFunction(() => window.__memplan !== undefined, null, { timeout: 60_000 });
await idle();
const build = await page.getAttribute('[data-testid=threads]', 'data-build');
console.log(`page ${base}, ${build} build, Chromium ${context.browser()?.version() ?? ''}; load ${load()}`);
if (build !== 'threads') console.log('  (not the threaded build: the page is not cross-origin isolated, 2 threads cannot run)');
await page.selectOption('[data-testid=example-select]', example);
await idle();

/** The native CLI's same run on `n` threads (`args` after the file). */
function runNative(n, args = ['--solver', 'minimalloc', '--capacity', capacity, '--time-limit', '30']) {
  const file = join(root, `public/examples/${example}.1048576.csv`);
  const out = execFileSync(cli, ['solve', file, ...args, '--threads', String(n)], { stdio: ['ignore', 'pipe', 'ignore'] });
  const r = JSON.parse(out.toString());
  return { stats: r.stats, elapsedMs: r.elapsed_ms, makespan: Number(r.makespan) };
}

const rate = (r) => Number(r.stats.nodes_explored) / r.elapsedMs;
const line = (n, r) => `${n} thread${n === 1 ? ' ' : 's'}: ${Number(r.stats.nodes_explored).toLocaleString('en')} nodes in ${(r.elapsedMs / 1000).toFixed(2)} s = ${rate(r).toFixed(0)} nodes/ms (makespan ${r.makespan})`;
console.log(`\nminimalloc on D at capacity ${capacity}, 30 s limit (nodes_explored / the run's elapsed time)`);
const rates = { page: { 1: [], 2: [] }, native: { 1: [], 2: [] } };
for (let k = 0; k < rounds; k++) {
  for (const n of [1, 2]) {
    await useThreads(n);
    if (native) {
      const r = runNative(n);
      rates.native[n].push(rate(r));
      console.log(`  native ${line(n, r)}; load ${load()}`);
    }
    const r = await run({ solver: 'minimalloc', capacity, timeLimit: 30 });
    rates.page[n].push(rate(r));
    console.log(`  page   ${line(n, r)}; worker wall ${(r.wallMs / 1000).toFixed(2)} s; load ${r.load}`);
  }
}
const best = (xs) => Math.max(...xs);
for (const side of native ? ['native', 'page'] : ['page']) {
  const [one, two] = [best(rates[side][1]), best(rates[side][2])];
  console.log(`  ${side}, best of ${rounds}: 1 thread ${one.toFixed(0)} nodes/ms, 2 threads ${two.toFixed(0)} nodes/ms: ${(two / one).toFixed(2)}x`);
}

if (!process.env.SKIP_AUTO) {
  console.log('\nauto --effort high, 20 s limit, no capacity, on D (makespan)');
  const units = (r) => `makespan ${r.makespan.toLocaleString('en')} (${r.makespan / 1024} units of 1 KiB) in ${(r.elapsedMs / 1000).toFixed(2)} s`;
  for (const n of [1, 2]) {
    await useThreads(n);
    if (native) {
      const r = runNative(n, ['--solver', 'auto', '--effort', 'high', '--time-limit', '20']);
      console.log(`  native ${n} thread${n === 1 ? ' ' : 's'}: ${units(r)} (load ${load()})`);
    }
    const r = await run({ solver: 'auto', capacity: '', timeLimit: 20, effort: 'high' });
    console.log(`  page   ${n} thread${n === 1 ? ' ' : 's'}: ${units(r)} (load ${r.load})`);
  }
}

await close();
await server?.close();
