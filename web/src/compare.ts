// Compare mode: several solvers on the current instance, their plans side by side, best first (by
// makespan), and a sortable results table with the best marked and, for each run, why it stopped
// (the core's verdict). Each panel's address axis reaches its own peak, so that every packing is
// readable; "shared axis" puts them all on one viewport (same axes, zoom and pan together), where
// the heights compare at a glance.
import { EngineError } from './engine';
import type { PlanDiff, SolverInfo } from './generated/core';
import type { InstanceData, SolveResult } from './protocol';
import { axisTop } from './axis';
import { PlanDiffPanel } from './comparediff';
import { bytes, duration, esc, grouped, percent } from './format';
import { drawable, toneRank, verdictBadge, verdictText } from './verdict';
import { PlanView } from './view/planview';
import { Viewport } from './view/viewport';
import type { ColorBy } from './view/colors';
import { $ } from './dom';

interface Row {
  solver: string;
  result: SolveResult | null;
  error: string | null;
  /** The running solve's progress line. */
  progress: string | null;
}

/** What the page does for compare mode. */
export interface CompareHost {
  /** Solves the current instance with one solver, showing its progress line. */
  runOne(solver: string, show: (line: string) => void): Promise<SolveResult>;
  /** Loads a pending edit and waits for every load asked for: the instance to run, or null. */
  prepare(): Promise<InstanceData | null>;
  /** The capacity the controls give, in bytes (null: none). */
  capacity(): number | null;
  /** A compare starts or ends; `label` (when given) is the status to show. */
  busyChanged(busy: boolean, label: string | null, kind: 'ok' | 'error'): void;
  /** The core's comparison of two plans of the instance (peaks, moved buffers). */
  diffPlans(a: BigUint64Array, b: BigUint64Array): Promise<PlanDiff>;
}

type Key = 'solver' | 'makespan' | 'frag' | 'fragPct' | 'time' | 'stopped' | 'valid';

export class ComparePanel {
  private checks = $<HTMLDivElement>('compare-solvers');
  private table = $<HTMLTableElement>('compare-table');
  private grid = $<HTMLDivElement>('compare-grid');
  readonly runButton = $<HTMLButtonElement>('compare-run');
  private rows: Row[] = [];
  private views: PlanView[] = [];
  readonly viewport = new Viewport();
  private sortKey: Key = 'makespan';
  private ascending = true;
  private inst: InstanceData | null = null;
  private sharedAxis = $<HTMLInputElement>('compare-shared');
  private colorBy: ColorBy = 'size';
  private diff: PlanDiffPanel;
  running = false;

  constructor(private host: CompareHost) {
    this.diff = new PlanDiffPanel((a, b) => host.diffPlans(a, b));
    this.runButton.addEventListener('click', () => void this.run());
    $('compare-all').addEventListener('click', () => this.setChecked(null));
    $('compare-none').addEventListener('click', () => this.setChecked([]));
    this.sharedAxis.addEventListener('change', () => this.renderGrid());
    this.table.querySelectorAll<HTMLTableCellElement>('th[data-key]').forEach((th) =>
      th.addEventListener('click', () => {
        const key = th.dataset.key as Key;
        this.ascending = this.sortKey === key ? !this.ascending : true;
        this.sortKey = key;
        this.renderTable();
      }),
    );
  }

  setSolvers(solvers: SolverInfo[], checked: string[]) {
    this.checks.innerHTML = '';
    for (const s of solvers) {
      const label = document.createElement('label');
      label.title = s.description;
      label.innerHTML = `<input type="checkbox" value="${esc(s.name)}" ${checked.includes(s.name) ? 'checked' : ''}/>${esc(s.name)}`;
      this.checks.append(label);
    }
  }

  setChecked(names: string[] | null) {
    this.checks.querySelectorAll<HTMLInputElement>('input').forEach((c) => (c.checked = names === null || names.includes(c.value)));
  }

  get checked(): string[] {
    return Array.from(this.checks.querySelectorAll<HTMLInputElement>('input:checked')).map((c) => c.value);
  }

  setInstance(inst: InstanceData | null) {
    this.inst = inst;
    this.rows = [];
    this.renderTable();
    this.renderGrid();
    this.diff.setRuns(inst, []);
  }

  setColorBy(mode: ColorBy) {
    this.colorBy = mode;
    for (const v of this.views) v.setColorBy(mode);
    this.diff.setColorBy(mode);
  }

  /** Runs every checked solver in turn on what the editor holds; a cancel stops the rest. */
  async run() {
    if (this.running) return;
    this.running = true;
    let label: string | null = null;
    let kind: 'ok' | 'error' = 'ok';
    try {
      this.host.busyChanged(true, 'loading the input…', 'ok');
      const inst = await this.host.prepare();
      if (!inst || inst !== this.inst) return; // not loaded: the load says why
      const rows: Row[] = this.checked.map((solver) => ({ solver, result: null, error: null, progress: null }));
      this.rows = rows;
      this.renderTable();
      this.renderGrid();
      let cancelled = false;
      for (let k = 0; k < rows.length && !cancelled; k++) {
        const row = rows[k];
        this.host.busyChanged(true, `comparing: ${row.solver} (${k + 1} of ${rows.length})`, 'ok');
        try {
          row.result = await this.host.runOne(row.solver, (line) => {
            row.progress = line;
            this.renderTable();
          });
          cancelled = row.result.summary.stopped === 'cancelled';
        } catch (error) {
          row.error = error instanceof Error ? error.message : String(error);
          // The single-threaded build's cancel ends the worker: no summary comes back.
          cancelled = error instanceof EngineError && error.kind === 'ended';
        }
        if (this.inst !== inst) return; // a new input replaced this one (and reset the table)
        if (cancelled) rows.slice(k + 1).forEach((r) => (r.error = 'not run (cancelled)'));
        this.renderTable();
        this.renderGrid();
      }
      this.diff.setRuns(inst, this.panelOrder().filter((row) => drawable(row.result)).map((row) => ({ solver: row.solver, result: row.result! })));
      const done = rows.filter((r) => r.result).length;
      label = `compared ${done} solver${done === 1 ? '' : 's'}${cancelled ? ' (cancelled)' : ''}`;
      if (rows.some((r) => r.result && !r.result.summary.valid)) {
        label += ': a plan is INVALID';
        kind = 'error';
      }
    } finally {
      this.running = false;
      this.host.busyChanged(false, label, kind);
    }
  }

  private value(row: Row, key: Key): number | string | bigint {
    const s = row.result?.summary;
    if (key === 'solver') return row.solver;
    if (!s) return Infinity;
    const plan = drawable(row.result);
    switch (key) {
      case 'makespan':
        return plan ? BigInt(s.makespan!) : Infinity;
      case 'frag':
        return plan && s.fragmentation !== null ? BigInt(s.fragmentation) : Infinity;
      case 'fragPct':
        return plan ? s.fragmentation_pct ?? Infinity : Infinity;
      case 'time':
        return s.elapsed_ms;
      case 'stopped':
        return toneRank(s.stopped);
      case 'valid':
        return s.valid ? 0 : 1;
    }
  }

  /** The valid plan with the lowest makespan (ties: the faster). */
  private best(): Row | null {
    let best: Row | null = null;
    for (const row of this.rows) {
      if (!row.result || !drawable(row.result)) continue;
      const s = row.result.summary;
      const b = best?.result?.summary;
      const makespan = BigInt(s.makespan!);
      if (!b || makespan < BigInt(b.makespan!) || (makespan === BigInt(b.makespan!) && s.elapsed_ms < b.elapsed_ms)) best = row;
    }
    return best;
  }

  private renderTable() {
    const key = this.sortKey, dir = this.ascending ? 1 : -1;
    const sorted = [...this.rows].sort((a, b) => {
      const x = this.value(a, key), y = this.value(b, key);
      if (x === y) return 0;
      if (typeof x === 'bigint' && typeof y === 'bigint') return (x < y ? -1 : 1) * dir;
      if (x === Infinity) return 1;
      if (y === Infinity) return -1;
      return (x < y ? -1 : 1) * dir;
    });
    const best = this.best();
    this.table.querySelectorAll('th').forEach((th) => {
      th.classList.toggle('sorted', th.dataset.key === key);
      th.classList.toggle('asc', th.dataset.key === key && this.ascending);
    });
    const body = this.table.tBodies[0];
    // Each cell's value sits in a span labelled by its column (data-label), so that a narrow pane
    // shows a run as a card of labelled figures (style.css) and a wide one as a table row.
    const cell = (label: string, html: string, attrs = '') => `<td data-label="${label}"${attrs}><span class="cell">${html}</span></td>`;
    body.innerHTML = sorted
      .map((row) => {
        const s = row.result?.summary;
        const cls = row === best ? ' class="best"' : '';
        if (!s) {
          const note = row.error ?? (row.progress ? `● ${row.progress}` : 'waiting…');
          return `<tr data-solver="${esc(row.solver)}"${cls}>${cell('solver', esc(row.solver))}${cell('status', esc(note), ` colspan="6" class="${row.error ? 'bad' : 'running'}"`)}</tr>`;
        }
        const name = s.solver === row.solver ? row.solver : `${row.solver} (${s.solver})`;
        const winner = s.winner !== null ? ` → ${s.winner}` : '';
        const plan = drawable(row.result);
        const makespan = s.makespan === null ? '<span class="bad">no plan</span>' : plan ? `${grouped(s.makespan)} <small>(${bytes(s.makespan)})</small>` : '—';
        const valid = s.makespan === null ? '—' : s.valid ? (s.feasible ? 'yes' : 'yes, over capacity') : `INVALID: ${esc(s.violations[0] ?? '')}`;
        return `<tr data-solver="${esc(row.solver)}" data-stopped="${s.stopped}"${cls}>
          ${cell('solver', esc(name + winner))}
          ${cell('makespan', makespan, ` class="num" data-value="${s.makespan ?? ''}"`)}
          ${cell('why it stopped', verdictBadge(s), ' class="why"')}
          ${cell('fragmentation', plan && s.fragmentation !== null ? grouped(s.fragmentation) : '—', ' class="num"')}
          ${cell('frag %', plan && s.fragmentation_pct !== null ? percent(s.fragmentation_pct) : '—', ' class="num"')}
          ${cell('time', duration(s.elapsed_ms), ' class="num"')}
          ${cell('valid', valid, ` class="valid${s.valid ? '' : ' bad'}"`)}
        </tr>`;
      })
      .join('');
  }

  /** The rows with a result in the order their panels show: valid plans by makespan (the best
   * first; ties: the faster), then the runs without a drawable plan, in run order. */
  private panelOrder(): Row[] {
    const makespan = (row: Row) => (drawable(row.result) ? BigInt(row.result!.summary.makespan!) : null);
    return this.rows
      .filter((row) => row.result)
      .map((row, k) => ({ row, k, m: makespan(row) }))
      .sort((a, b) => {
        if (a.m === null || b.m === null) return a.m === b.m ? a.k - b.k : a.m === null ? 1 : -1;
        if (a.m !== b.m) return a.m < b.m ? -1 : 1;
        return a.row.result!.summary.elapsed_ms - b.row.result!.summary.elapsed_ms || a.k - b.k;
      })
      .map(({ row }) => row);
  }

  private renderGrid() {
    for (const v of this.views) v.dispose();
    this.grid.innerHTML = '';
    this.views = [];
    const inst = this.inst;
    // Nothing compared yet on this instance: say how, where the plans will be.
    $('compare-prompt').hidden = !inst || this.rows.length > 0;
    if (!inst) return;
    const capacity = this.host.capacity();
    const shared = this.sharedAxis.checked;
    // The address axis reaches the instance's max load, the capacity, and the plan's peak: every
    // plan's on a shared axis, each its own otherwise.
    const extent = (rows: Row[]) => {
      let top = Number(inst.summary.max_load);
      if (capacity !== null) top = Math.max(top, capacity);
      for (const row of rows) if (row.result && drawable(row.result)) top = Math.max(top, Number(row.result.summary.makespan));
      // A panel is 260 px high, its plot about 200.
      return { x0: Number(inst.summary.first_start), x1: Number(inst.summary.last_end), y0: 0, y1: axisTop(top, 200) };
    };
    const full = extent(this.rows);
    const same = JSON.stringify(full) === JSON.stringify(this.viewport.fullRange);
    this.viewport.setFull(full, !same);
    this.grid.dataset.order = this.panelOrder().map((row) => row.solver).join(',');
    for (const row of this.panelOrder()) {
      if (!row.result) continue;
      const s = row.result.summary;
      const plan = drawable(row.result);
      const title = s.makespan === null
        ? `${row.solver} · no plan: ${verdictText(s)}`
        : s.valid ? `${row.solver} · ${bytes(s.makespan)} · +${percent(s.fragmentation_pct ?? 0)}` : `${row.solver} · INVALID PLAN (not drawn)`;
      let viewport = this.viewport;
      if (!shared) {
        viewport = new Viewport();
        viewport.setFull(extent([row]));
      }
      const view = new PlanView(this.grid, viewport, { title });
      view.element.dataset.solver = row.solver;
      view.setColorBy(this.colorBy);
      view.setData({ inst, result: plan ? row.result : null, capacity });
      view.onSelect = () => {};
      this.views.push(view);
    }
  }
}
