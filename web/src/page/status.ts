// The status line: one sentence about what the page is doing or just did, and its state
// (`data-state`: ok, busy or error; the browser tests wait on it).
const status = () => document.getElementById('status')!;

export type StatusKind = 'ok' | 'busy' | 'error';

export function setStatus(text: string, kind: StatusKind = 'ok') {
  const el = status();
  el.textContent = text;
  el.className = `status ${kind === 'ok' ? '' : kind}`;
  el.dataset.state = kind;
}
