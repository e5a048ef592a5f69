// <memplan-plan>: one memory plan, solved live in the reader's browser, for documentation pages.
// One script tag defines it (dist-embed/memplan-plan.js, built by web/embed/vite.config.ts):
//
//   <script type="module" src="/embed/memplan-plan.js"></script>
//   <memplan-plan src="examples/small.csv" solver="auto" capacity="1MiB" height="260" theme="dark"></memplan-plan>
//
// The instance comes from `src` (a CSV or JSON address) or else from the element's own text. The
// element solves it in the playground's worker (single-threaded wasm: a docs page needs no
// cross-origin isolation, and the page stays responsive while it solves), draws the plan with the
// playground's plan view (hover for a buffer's tooltip), shows the run's figures and why it stopped
// (the core's verdict), and links to the playground with the same instance and settings. Its
// shadow root keeps the host page's styles out. Errors (an instance that cannot be read, an
// address that cannot be fetched) show inside the element only.
import type { Summary } from '../src/generated/core';
import type { InstanceData, SolveResult, Source } from '../src/protocol';
import { EngineError } from '../src/engine';
import { drawable, toneOf, verdictText } from '../src/verdict';
import { bytes, esc, grouped, percent } from '../src/format';
import { axisTop } from '../src/axis';
import { PlanView, type PlanData } from '../src/view/planview';
import { Viewport } from '../src/view/viewport';
import { parseAndSolve } from './engine';
import { dedent, playgroundLink } from './link';
import { shadowCss } from './styles';

/** The plot's height without a `height` attribute, CSS pixels. */
const DEFAULT_HEIGHT = 260;
/** How many of an input's problems the element lists (the playground lists every one). */
const ERRORS_SHOWN = 5;

/** Where the playground is by default: the folder above this script's (a site serving the
 * playground at `/` and dist-embed at `/embed/` has it there). */
const DEFAULT_PLAYGROUND = new URL(/* @vite-ignore */ '../', import.meta.url).href;

export class MemplanPlan extends HTMLElement {
  static observedAttributes = ['src', 'solver', 'capacity', 'seed', 'time-limit', 'height', 'theme', 'playground'];

  private root: ShadowRoot;
  private view: PlanView | null = null;
  private viewport = new Viewport();
  private serial = 0;
  private scheduled = false;
  private shown: { inst: InstanceData; result: SolveResult } | null = null;
  /** What the last run read (the link is made from it again when `playground` changes). */
  private lastSource: Source | null = null;

  constructor() {
    super();
    this.root = this.attachShadow({ mode: 'open' });
    this.root.innerHTML = `<style>${shadowCss()}</style>
      <div class="card" part="card">
        <div class="plot" data-testid="plot"></div>
        <p class="verdict empty" data-testid="verdict"></p>
        <dl class="figures" data-testid="figures"></dl>
        <pre class="error" data-testid="error" hidden></pre>
        <div class="foot"><span class="name" data-testid="name"></span><a data-testid="playground-link" target="_blank" rel="noopener" hidden>Open in the playground ↗</a></div>
      </div>`;
    // A plain wheel scrolls the documentation page; with Ctrl, Alt or Meta it zooms the plan (the
    // plan view zooms on every wheel, as the playground, which does not scroll, wants).
    this.$('plot').addEventListener('wheel', (ev) => {
      if (!(ev.ctrlKey || ev.altKey || ev.metaKey)) ev.stopPropagation();
    }, { capture: true });
  }

  connectedCallback() {
    this.schedule();
  }

  disconnectedCallback() {
    this.serial++; // a run still going is not shown
  }

  attributeChangedCallback(name: string, old: string | null, value: string | null) {
    if (old === value) return;
    if (name === 'theme') this.rebuildView(); // the view reads its colours once
    if (name === 'height') this.sizePlot();
    if (name === 'playground') this.showLink(this.lastSource);
    if (name !== 'theme' && name !== 'height' && name !== 'playground') this.schedule();
  }

  /** The last run: its summary (null before one, or after an error). */
  get summary(): Summary | null {
    return this.shown?.result.summary ?? null;
  }

  /** The plan view (tests find a buffer's place with its `fromData`). */
  get planView(): PlanView | null {
    return this.view;
  }

  /** The instance and plan shown, if any. */
  get plan(): { inst: InstanceData; result: SolveResult } | null {
    return this.shown;
  }

  private $(testid: string): HTMLElement {
    return this.root.querySelector(`[data-testid="${testid}"]`)!;
  }

  /** One run for the changes of a task (the parser sets several attributes at once). */
  private schedule() {
    if (this.scheduled || !this.isConnected) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      if (this.isConnected) void this.run();
    });
  }

  private get height(): number {
    const h = Number(this.getAttribute('height'));
    return Number.isFinite(h) && h >= 80 ? h : DEFAULT_HEIGHT;
  }

  private sizePlot() {
    this.$('plot').style.height = `${this.height}px`;
    this.fit();
  }

  private rebuildView() {
    this.view?.dispose();
    this.view = new PlanView(this.$('plot'), this.viewport, { testid: 'plan' });
    this.view.onSelect = (index) => this.view?.setSelection(index, null);
    if (this.shown) this.view.setData(this.planData(this.shown));
  }

  private source(): Source | null {
    const src = this.getAttribute('src');
    if (src) return { kind: 'url', url: new URL(src, document.baseURI).href, name: src };
    // The element's light-DOM text is its input (the shadow root shows something else).
    const text = dedent(this.textContent ?? '');
    return text ? { kind: 'text', text, name: 'inline instance' } : null;
  }

  /** While the run waits for the worker and solves (`data-state` on the host says where it is:
   * solving, done or error). */
  private showSolving(solver: string) {
    this.dataset.state = 'solving';
    const verdict = this.$('verdict');
    verdict.hidden = false;
    verdict.className = 'verdict running';
    verdict.textContent = `solving with ${solver}…`;
  }

  private async run() {
    const serial = ++this.serial;
    if (!this.view) this.rebuildView();
    this.sizePlot();
    const source = this.source();
    this.lastSource = source;
    this.showLink(source);
    if (!source) {
      this.showError('no instance: give the element a src attribute or the instance as its text');
      return;
    }
    const solver = this.getAttribute('solver') || 'auto';
    this.$('name').textContent = source.kind === 'url' ? source.name : 'inline instance';
    this.showSolving(solver);
    const timeLimit = this.getAttribute('time-limit');
    try {
      const run = await parseAndSolve(source, {
        solver,
        capacity: this.getAttribute('capacity') || undefined,
        seed: this.getAttribute('seed') || '0',
        timeLimit: timeLimit ? Number(timeLimit) : undefined,
        params: {},
      });
      if (serial !== this.serial) return;
      this.show(run);
    } catch (error) {
      if (serial !== this.serial) return;
      this.showError(describeError(error));
    }
  }

  /** What the view draws: the plan only when the validator accepted it (`drawable`). */
  private planData(run: { inst: InstanceData; result: SolveResult }): PlanData {
    return { inst: run.inst, result: drawable(run.result) ? run.result : null, capacity: this.capacityOf(run) };
  }

  private capacityOf(run: { inst: InstanceData; result: SolveResult }): number | null {
    const value = run.result.summary.capacity ?? run.inst.summary.capacity ?? null;
    return value === null ? null : Number(value);
  }

  private show(run: { inst: InstanceData; result: SolveResult }) {
    this.shown = run;
    const s = run.result.summary;
    this.$('error').hidden = true;
    this.$('plot').hidden = false;
    this.fit();
    this.view!.setData(this.planData(run));
    const verdict = this.$('verdict');
    verdict.hidden = false;
    verdict.className = `verdict ${toneOf(s.stopped)}`;
    verdict.dataset.stopped = s.stopped;
    verdict.textContent = verdictText(s);
    verdict.title = s.detail ?? '';
    const figure = (testid: string, label: string, value: string, raw: string | number | null) =>
      `<div><dt>${label}</dt><dd data-testid="${testid}" data-value="${raw ?? ''}">${esc(value)}</dd></div>`;
    const plan = drawable(run.result);
    this.$('figures').innerHTML = [
      figure('makespan', 'makespan', plan && s.makespan !== null ? `${bytes(s.makespan)} (${grouped(s.makespan)} B)` : 'no plan', plan ? s.makespan : null),
      figure('max-load', 'L', bytes(s.max_load), s.max_load),
      plan && s.fragmentation !== null
        ? figure('fragmentation', 'fragmentation', `${bytes(s.fragmentation)} (${percent(s.fragmentation_pct ?? 0)})`, s.fragmentation)
        : '',
      figure('stopped', 'stopped', s.stopped, s.stopped),
      figure('solver', 'solver', s.winner && s.winner !== s.solver ? `${s.solver} → ${s.winner}` : s.solver, s.solver),
      figure('buffers', 'buffers', grouped(s.buffers), s.buffers),
    ].join('');
    this.dataset.state = 'done';
    this.dispatchEvent(new CustomEvent('memplan-solved', { detail: s }));
  }

  private showError(message: string) {
    this.shown = null;
    this.view?.setData(null);
    this.$('plot').hidden = true;
    const verdict = this.$('verdict');
    verdict.className = 'verdict empty';
    verdict.hidden = true; // no run to say anything about
    verdict.textContent = '';
    delete verdict.dataset.stopped;
    this.$('figures').innerHTML = '';
    const error = this.$('error');
    error.textContent = message;
    error.hidden = false;
    this.dataset.state = 'error';
    this.dispatchEvent(new CustomEvent('memplan-error', { detail: message }));
  }

  /** The whole plan: its time span, and addresses from 0 to the highest of L, the capacity and
   * the makespan, with room for the top line's label (as the playground fits its view). */
  private fit() {
    const run = this.shown;
    if (!run) return;
    let top = Number(run.inst.summary.max_load);
    const cap = this.capacityOf(run);
    if (cap !== null) top = Math.max(top, cap);
    if (drawable(run.result)) top = Math.max(top, Number(run.result.summary.makespan));
    const s = run.inst.summary;
    this.viewport.setFull({ x0: Number(s.first_start), x1: Number(s.last_end), y0: 0, y1: axisTop(top, this.height - 30) });
  }

  /** The link for `source` (null: none, nothing to open). */
  private showLink(source: Source | null) {
    const link = this.$('playground-link') as HTMLAnchorElement;
    const href = source && (source.kind === 'url' || source.kind === 'text')
      ? playgroundLink({
          base: this.getAttribute('playground') || DEFAULT_PLAYGROUND,
          url: source.kind === 'url' ? source.url : undefined,
          text: source.kind === 'text' ? source.text : undefined,
          solver: this.getAttribute('solver') || 'auto',
          capacity: this.getAttribute('capacity') || undefined,
          seed: this.getAttribute('seed') || undefined,
          timeLimit: this.getAttribute('time-limit') || undefined,
        })
      : null;
    link.hidden = href === null;
    if (href) link.href = href;
  }

}

/** What went wrong, for the element's error box: the core's message and the first problems with
 * their lines, or a fetch's or the worker's failure. */
function describeError(error: unknown): string {
  if (error instanceof EngineError) {
    const located = error.errors.slice(0, ERRORS_SHOWN).map((e) => {
      const at = e.line !== null ? `line ${e.line}${e.column !== null ? `, column ${e.column}` : ''}: ` : '';
      return `  ${at}${e.message}`;
    });
    const more = error.errors.length > ERRORS_SHOWN ? [`  … and ${error.errors.length - ERRORS_SHOWN} more`] : [];
    return [`memplan: ${error.message}`, ...located, ...more].join('\n');
  }
  return `memplan: ${error instanceof Error ? error.message : String(error)}`;
}

if (!customElements.get('memplan-plan')) customElements.define('memplan-plan', MemplanPlan);

declare global {
  interface HTMLElementTagNameMap {
    'memplan-plan': MemplanPlan;
  }
}
