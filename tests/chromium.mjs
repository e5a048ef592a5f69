// Debian's Chromium for the browser tests, the page benchmark and the screenshot script: where it
// is ($CHROMIUM, else the first on PATH) and the flags that keep a headless run quiet and
// reproducible (no sandbox in a container, no GPU, no background traffic).
import { execFileSync } from 'node:child_process';

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
