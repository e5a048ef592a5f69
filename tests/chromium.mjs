// Debian's Chromium for the browser tests, the page benchmark and the screenshot script: where it
// is ($CHROMIUM, else the first on PATH) and the flags that keep a headless run quiet and
// reproducible (no sandbox in a container, no GPU, no background traffic).
import { chromium } from 'playwright-core';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function chromiumPath() {
  if (process.env.CHROMIUM) return process.env.CHROMIUM;
  try {
    return execFileSync('sh', ['-c', 'command -v chromium || command -v chromium-browser'], { encoding: 'utf8' }).trim();
  } catch {
    return '/usr/bin/chromium';
  }
}

export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/**
 * A headless Chromium with a throw-away profile (persistent, so that the page's origin-private
 * files and isolation work as in a browser) that records the main thread's long tasks in
 * `window.__longtasks` for the responsiveness figures. `close()` ends it and removes the profile.
 */
export async function launchProfile({ viewport, prefix = 'chromium-profile-' }) {
  const profile = mkdtempSync(join(tmpdir(), prefix));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath(),
    headless: true,
    viewport,
    args: CHROMIUM_ARGS,
  });
  await context.addInitScript(() => {
    window.__longtasks = [];
    try {
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) window.__longtasks.push({ start: e.startTime, duration: e.duration });
      }).observe({ type: 'longtask', buffered: true });
    } catch { /* no longtask support */ }
  });
  const close = async () => {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  };
  return { context, close };
}

/**
 * Waits until the page's status says it is not busy (a run ended, an import settled). `polling`
 * in ms (Playwright's default polls every animation frame, which makes a solving page render a
 * frame each vsync: benchmarks poll on a timer instead).
 */
export function pageIdle(page, { timeout = 60_000, polling } = {}) {
  return page.waitForFunction(() => {
    const s = document.querySelector('[data-testid=status]');
    return s && s.dataset.state && s.dataset.state !== 'busy';
  }, null, polling === undefined ? { timeout } : { timeout, polling });
}
