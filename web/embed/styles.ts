// The element's shadow stylesheet: the playground's own (web/src/style.css: its palette, the plan
// view, tooltip and verdict styles) with its page-wide theme selectors turned into the host's, and
// a few rules for the card around the plan. Inside a shadow root nothing of the host page's CSS
// applies but what is inherited, and `all: initial` on the host stops that too, so the element
// looks the same on any documentation site; the custom properties below are set on the host, so
// a page's own `--bg` or `--fg` does not reach in either.
import playground from '../src/style.css?inline';

/** The playground's dark palette (the build minifies the quotes away). */
const DARK = /:root\[data-theme="?dark"?\]\s*(\{[^}]*\})/;

/** The playground's CSS for a shadow root: `:root` is the host; dark when `theme="dark"`, or
 * when the system is dark and the host does not say `theme="light"`. */
export function shadowCss(): string {
  return `${hostCss(playground)}\n${CARD}`;
}

/** A page-wide stylesheet's palettes made the host's (exported for the unit tests, which read
 * web/src/style.css themselves: Vitest does not load CSS). */
export function hostCss(css: string): string {
  if (!DARK.test(css)) throw new Error('memplan: the playground stylesheet has no dark palette');
  return css
    .replace(DARK, `:host([theme="dark"]) $1\n@media (prefers-color-scheme: dark) { :host(:not([theme="light"])) $1 }`)
    .replace(/:root\b/g, ':host');
}

const CARD = `
:host { all: initial; display: block; contain: content; font: 13px/1.35 var(--sans); color: var(--fg); }
:host([hidden]) { display: none; }
.card { background: var(--bg); color: var(--fg); border: 1px solid var(--line); border-radius: 6px; padding: 6px 8px; display: flex; flex-direction: column; gap: 4px; }
.plot { position: relative; }
.plot .planview { position: absolute; inset: 0; }
.figures { display: flex; flex-wrap: wrap; gap: 2px 14px; margin: 0; font-size: 12px; }
.figures div { display: flex; gap: 5px; }
.figures dt { color: var(--muted); }
.figures dd { margin: 0; font-family: var(--mono); font-weight: 600; }
.foot { display: flex; gap: 8px; align-items: center; justify-content: space-between; font-size: 11px; color: var(--muted); }
.foot a { color: var(--accent); white-space: nowrap; }
.foot .name { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.state { font-size: 12px; color: var(--muted); padding: 4px 0; }
.error { border: 1px solid var(--error); color: var(--error); border-radius: 4px; padding: 6px 8px; font: 12px/1.4 var(--mono); white-space: pre-wrap; margin: 0; }
`;
