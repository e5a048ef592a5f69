// Compares the single-threaded wasm build (in Node's V8, the engine Chromium uses) with the native
// CLI on one thread (--threads 1) on the same instances and solvers: the median of each side's own
// `elapsed_ms` over repeated runs, and their ratio.
// Usage: node scripts/bench-wasm.mjs [repeats] [solvers] FILES...   (after scripts/build-wasm.sh and
// cargo build --release). MEMPLAN_CAPACITY=1048576 solves at that capacity (both sides);
// MEMPLAN_CLI names another native binary (the test suite's smoke run uses the debug one).
// MEMPLAN_WASM_VS=DIR compares the wasm package against another wasm package (an older build's
// web/src/pkg-st, copied aside) in the same Node process instead of against native: on a loaded
// machine a more reliable measure of a change than the wasm/native ratio, timed by CPU time
// (`process.cpuUsage`) on both sides.
//
// The two sides take turns, one native run then one wasm run, repeat after repeat: this machine's
// speed drifts over seconds (a shared, 2-core VM), and running all native repeats before all wasm
// ones put each side in a different phase of the drift (the same instance measured 0.87 s and
// 1.31 s natively a minute apart). Beside the ratio of the two medians, the median of the
// repeats' own ratios (each wasm run over the run just before it): the drift moves both runs of a
// pair alike, so it cancels in their ratio. One untimed wasm run comes first: V8 compiles wasm lazily
// (baseline first, optimised once hot), a cost the native binary paid at build time.
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { basename } from 'node:path';

const [repeatsArg = '50', solversArg = 'slff,xla,tvm,zant-best', ...files] = process.argv.slice(2);
const repeats = Number(repeatsArg);
const solvers = solversArg.split(',');
const root = new URL('..', import.meta.url).pathname;
const pkgDir = process.env.MEMPLAN_WASM_PKG ?? `${root}web/src/pkg-st`;
const pkg = await import(`${pkgDir}/index.js`);
await pkg.default({ module_or_path: readFileSync(`${pkgDir}/index_bg.wasm`) });

const vsDir = process.env.MEMPLAN_WASM_VS;
let vsPkg = null;
if (vsDir) {
  vsPkg = await import(`${vsDir}/index.js`);
  await vsPkg.default({ module_or_path: readFileSync(`${vsDir}/index_bg.wasm`) });
}

const capacity = process.env.MEMPLAN_CAPACITY;
const cli = process.env.MEMPLAN_CLI ?? `${root}target/release/memplan`;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** One native solve; the CLI prints one JSON line (and exits 1 when no plan fits the capacity). */
function runNative(file, solver) {
  const args = ['solve', file, '--solver', solver, '--seed', '0', '--threads', '1',
    ...(capacity ? ['--capacity', capacity] : [])];
  let out;
  try {
    out = execFileSync(cli, args, { stdio: ['ignore', 'pipe', 'ignore'] });
  } catch (error) {
    out = error.stdout; // over capacity: the JSON line is still printed
  }
  const result = JSON.parse(out.toString());
  return { ms: result.elapsed_ms, makespan: String(result.makespan) };
}

function runWasm(instance, solver, module = pkg) {
  const before = process.cpuUsage();
  const job = module.Job.start(instance, { solver, seed: '0', ...(capacity ? { capacity } : {}) });
  // The single-threaded build solves inside `start`, so the first poll is done.
  const status = job.poll();
  const used = process.cpuUsage(before);
  job.free();
  if (status.state !== 'done') throw new Error(`wasm job for ${solver} is still ${status.state}`);
  const cpuMs = (used.user + used.system) / 1000;
  return { ms: status.summary.elapsed_ms, cpuMs, makespan: String(status.summary.makespan) };
}

const other = vsPkg ? 'other wasm' : 'native';
const unit = vsPkg ? 'CPU ms' : 'ms';
console.log(`| instance | solver | wasm ${unit} | ${other} ${unit} | wasm / ${other} | median pair ratio | same makespan |`);
console.log('|---|---|---:|---:|---:|---:|---|');
for (const file of files) {
  const text = readFileSync(file, 'utf8');
  const instance = new pkg.Instance(text, '', 'half-open');
  const vsInstance = vsPkg ? new vsPkg.Instance(text, '', 'half-open') : null;
  for (const solver of solvers) {
    let { makespan } = runWasm(instance, solver); // warm-up, untimed
    if (vsInstance) runWasm(vsInstance, solver, vsPkg);
    let same = true;
    const wasmTimes = [];
    const nativeTimes = [];
    for (let i = 0; i < repeats; i++) {
      const native = vsInstance ? runWasm(vsInstance, solver, vsPkg) : runNative(file, solver);
      const wasm = runWasm(instance, solver);
      // Against another wasm build both sides are timed by this process's CPU time, which the
      // machine's load inflates less than wall time; the native CLI's own CPU time would count
      // its reading and writing too, so against it each side's own `elapsed_ms` is compared.
      nativeTimes.push(vsInstance ? native.cpuMs : native.ms);
      wasmTimes.push(vsInstance ? wasm.cpuMs : wasm.ms);
      same &&= native.makespan === makespan && wasm.makespan === makespan;
    }
    const [wasmMs, nativeMs] = [median(wasmTimes), median(nativeTimes)];
    const pairRatio = median(wasmTimes.map((ms, i) => ms / nativeTimes[i]));
    console.log(`| ${basename(file)} | ${solver} | ${wasmMs.toFixed(3)} | ${nativeMs.toFixed(3)} | ${(wasmMs / nativeMs).toFixed(2)} | ${pairRatio.toFixed(2)} | ${same ? 'yes' : 'NO'} |`);
  }
  instance.free();
  vsInstance?.free();
}
