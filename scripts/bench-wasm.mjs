// Compares the single-threaded wasm build (in Node's V8, the engine Chromium uses) with the native
// CLI on one thread (--threads 1) on the same instances and solvers: median time over repeated runs
// (after one untimed warm-up run in wasm), and the ratio.
// Usage: node scripts/bench-wasm.mjs [repeats] [solvers] FILES...   (after scripts/build-wasm.sh and
// cargo build --release). MEMPLAN_CAPACITY=1048576 solves at that capacity (both sides).
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

const capacity = process.env.MEMPLAN_CAPACITY;
const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log('| instance | solver | wasm ms | native ms | wasm / native | same makespan |');
console.log('|---|---|---:|---:|---:|---|');
for (const file of files) {
  const instance = new pkg.Instance(readFileSync(file, 'utf8'), '', 'half-open');
  const native = execFileSync(`${root}target/release/memplan`,
    ['bench', file, '--solvers', solvers.join(','), '--repeat', String(repeats), '--csv', '--threads', '1',
      ...(capacity ? ['--capacity', capacity] : [])]).toString();
  const nativeRows = native.trim().split('\n').slice(1).map((line) => line.split(','));
  for (const solver of solvers) {
    const times = [];
    let makespan;
    // One untimed run first: V8 compiles wasm lazily (baseline first, optimised once hot), a cost
    // the native binary paid at build time; without it the first repeats measure the compiler.
    for (let i = -1; i < repeats; i++) {
      const job = pkg.Job.start(instance, { solver, seed: '0', ...(capacity ? { capacity } : {}) });
      const state = job.poll();
      if (i >= 0) times.push(state.result.elapsed_ms);
      makespan = state.result.makespan;
      job.free();
    }
    const row = nativeRows.find((r) => r[3].split(' ')[0] === solver);
    const nativeMs = Number(row[6]);
    const wasmMs = median(times);
    console.log(`| ${basename(file)} | ${solver} | ${wasmMs.toFixed(3)} | ${nativeMs.toFixed(3)} | ${(wasmMs / nativeMs).toFixed(2)} | ${row[4] === makespan ? 'yes' : 'NO'} |`);
  }
  instance.free();
}
