// The playground's screens as a newcomer meets them, for review: the first screen, a hover list,
// the peak clicked (zoomed there, its alive list pinned), compare with its diff, an imported model
// (coloured by category), an example loaded but not run, at desktop (1280x800), laptop (800x800)
// and phone (390x844) size, and the
// docs embed at 640x360 (light and dark). Needs the built page (npm run build); writes PNGs into
// tests/output/screens/ (ignored by git) and prints their paths.
//   node scripts/screenshots.mjs            (npm run screens)
import { chromium } from 'playwright-core';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startStaticServer } from '../tests/static-server.mjs';
import { CHROMIUM_ARGS, chromiumPath } from '../tests/chromium.mjs';

const root = new URL('..', import.meta.url).pathname;
const out = join(root, 'tests/output/screens');
mkdirSync(out, { recursive: true });
if (!existsSync(join(root, 'dist/index.html'))) {
  console.error('no dist/: run npm run build first');
  process.exit(2);
}
const isolated = await startStaticServer(join(root, 'dist'), { isolated: true });
const plain = await startStaticServer(join(root, 'dist'));
const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
const saved = [];

/** Opens `query` at a size, waits for the first screen (and its run) to finish, then `act`. */
async function shot(name, { width, height, query = '', server = isolated, scheme = 'light', act }) {
  const page = await browser.newPage({ viewport: { width, height }, colorScheme: scheme });
  await page.goto(`${server.url}/${query}`);
  await page.waitForFunction(() => window.__memplan !== undefined, null, { timeout: 60_000 });
  await page.waitForFunction(() => document.querySelector('[data-testid=status]')?.dataset.state !== 'busy', null, { timeout: 120_000 });
  if (act) await act(page);
  await page.waitForTimeout(300);
  const path = join(out, `${name}.png`);
  await page.screenshot({ path });
  saved.push(path);
  await page.close();
}

const hover = async (page) => {
  const box = await page.locator('[data-testid=plan-canvas]').boundingBox();
  await page.mouse.move(box.x + box.width * 0.45, box.y + box.height * 0.5);
};
const compareWithDiff = async (page) => {
  await page.click('#tab-compare');
  await page.click('[data-testid=compare-run]');
  await page.waitForFunction(() => document.querySelector('[data-testid=diff-summary]')?.dataset.moved !== undefined, null, { timeout: 120_000 });
};
/** Clicks the peak's mark on the time axis: the view zooms there and pins the alive list. */
const peak = async (page) => {
  await page.waitForFunction(() => window.__memplan.view.settled, null, { timeout: 60_000 });
  await page.click('[data-testid=plan-canvas-peak]');
  await page.mouse.move(1, 1);
};
const model = async (page) => {
  await page.waitForFunction(() => document.querySelector('[data-testid=model-saving]')?.dataset.saved !== undefined, null, { timeout: 120_000 });
};

for (const [suffix, width, height] of [['1280x800', 1280, 800], ['800x800', 800, 800], ['390x844', 390, 844]]) {
  await shot(`first-screen-${suffix}`, { width, height });
  await shot(`hover-list-${suffix}`, { width, height, act: hover });
  await shot(`peak-pinned-${suffix}`, { width, height, act: peak });
  await shot(`compare-${suffix}`, { width, height, act: compareWithDiff });
  await shot(`compare-diff-${suffix}`, { width, height, act: async (page) => {
    await compareWithDiff(page);
    await page.locator('[data-testid=compare-diff]').scrollIntoViewIfNeeded();
  } });
  await shot(`model-${suffix}`, { width, height, query: '?ex=tflite/face_detection_short_range', act: model });
  await shot(`example-not-run-${suffix}`, { width, height, query: '?ex=minimalloc/challenging/A' });
}
await shot('embed-640x360', { width: 640, height: 360, server: plain, query: '?embed&ex=minimalloc/challenging/C&solver=auto&run=1' });
await shot('embed-640x360-dark', { width: 640, height: 360, server: plain, query: '?embed&ex=handmade/small&solver=auto&run=1&theme=dark' });
await shot('embed-800x450', { width: 800, height: 450, server: plain, query: '?embed&ex=minimalloc/challenging/C&solver=auto&run=1' });

await browser.close();
await isolated.close();
await plain.close();
for (const path of saved) console.log(path);
