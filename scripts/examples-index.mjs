// Fills the memory figures of the example gallery (public/examples/index.json) from the memplan
// CLI, so that the gallery can show what a reader picks an example by: its buffers and its max
// load L (the most bytes alive at once), not its file size.
//
//   node scripts/examples-index.mjs          rewrite `buffers` and `max_load` of every example
//   node scripts/examples-index.mjs --check  exit 1 when a figure differs from the CLI's (a test)
//
// The CLI is $MEMPLAN_CLI, else target/release/memplan, else target/debug/memplan. A buffer list
// is read by `memplan stats`, a model file by `memplan import` (the instance the page imports).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const indexPath = join(root, 'public/examples/index.json');
const cli = process.env.MEMPLAN_CLI ?? [join(root, 'target/release/memplan'), join(root, 'target/debug/memplan')].find((p) => existsSync(p));
if (!cli) {
  console.error('no memplan CLI: set MEMPLAN_CLI or build it (cargo build --release)');
  process.exit(2);
}
const check = process.argv.includes('--check');

/** The CLI's figures for one example: buffers and max load (a decimal string: it may pass 2^53). */
function figures(example) {
  const file = join(root, 'public/examples', example.path);
  const args = example.kind === 'model' ? ['import', file] : ['stats', file, '--semantics', example.semantics];
  const lines = execFileSync(cli, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim().split('\n');
  // Integers past 2^53 would lose digits in JSON.parse: read max_load as written.
  const last = lines[lines.length - 1];
  const maxLoad = /"max_load":(\d+)/.exec(last)?.[1];
  const buffers = JSON.parse(last).buffers;
  if (maxLoad === undefined || typeof buffers !== 'number') throw new Error(`${example.id}: no figures in ${last}`);
  return { buffers, max_load: maxLoad };
}

const index = JSON.parse(readFileSync(indexPath, 'utf8'));
const wrong = [];
for (const example of index.examples) {
  const got = figures(example);
  for (const key of ['buffers', 'max_load']) {
    if (String(example[key]) !== String(got[key])) wrong.push(`${example.id}: ${key} ${example[key]} in index.json, ${got[key]} by the CLI`);
  }
  if (!check) Object.assign(example, got);
}
if (check) {
  if (wrong.length) {
    console.error(`index.json is out of date (node scripts/examples-index.mjs rewrites it):\n${wrong.join('\n')}`);
    process.exit(1);
  }
  console.log(`index.json: the figures of ${index.examples.length} examples match the CLI`);
} else {
  writeFileSync(indexPath, `${JSON.stringify(index, null, 1)}\n`);
  console.log(`index.json: ${index.examples.length} examples, ${wrong.length} figure(s) updated`);
}
