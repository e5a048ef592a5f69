// Compare mode: several solvers on the current instance, their plans side by side on one shared
// viewport (same axes, zoom and pan together), and a sortable results table with the best marked.
import type { InstanceData, SolveResult, SolverInfo } from './protocol';
import { bytes, duration, esc, grouped, percent } from './format';
import { PlanView } from './view/planview';
import { Viewport } from './view/viewport';
import type { ColorBy } from './view/colors';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

interface Row {
  solver: string;
  result: SolveResult | null;
  error: string | null;
}

type Key = 'solver' | 'makespan' | 'frag' | 'fragPct' | 'time' | 'optimal' | 'valid';

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
  private colorBy: ColorBy = 'size';
  running = false;

  constructor(
    private runOne: (solver: string) => Promise<SolveResult>,
    private capacity: () => number | null,
    private onBusy: (busy: boolean, label: string) => void,
  ) {
    this.runButton.addEventListener('click', () => void this.run());
    $('compare-all').addEventListener('click', () => this.setChecked(null));
    $('compare-none').addEventListener('click', () => this.setChecked([]));
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
    this.runButton.disabled = !inst;
  }

  setColorBy(mode: ColorBy) {
    this.colorBy = mode;
    for (const v of this.views) v.setColorBy(mode);
  }

  /** Runs every checked solver in turn; a cancel stops the rest. */
  async run() {
    if (!this.inst || this.running) return;
    const solvers = this.checked;
    this.rows = solvers.map((solver) => ({ solver, result: null, error: null }));
    this.renderTable();
    this.renderGrid();
    this.running = true;
    try {
      for (let k = 0; k < this.rows.length; k++) {
        const row = this.rows[k];
        this.onBusy(true, `comparing: ${row.solver} (${k + 1} of ${this.rows.length})`);
        try {
          row.result = await this.runOne(row.solver);
        } catch (error) {
          row.error = error instanceof Error ? error.message : String(error);
          if ((error as { kind?: string }).kind === 'cancelled') {
            this.rows.slice(k + 1).forEach((r) => (r.error = 'not run (cancelled)'));
            break;
          }
        }
        this.renderTable();
        this.renderGrid();
      }
    } finally {
      this.running = false;
      this.onBusy(false, `compared ${this.rows.filter((r) => r.result).length} solvers`);
    }
  }

  private value(row: Row, key: Key): number | string | bigint {
    const d = row.result?.described;
    if (key === 'solver') return row.solver;
    if (!d) return key === 'optimal' || key === 'valid' ? '' : Infinity;
    switch (key) {
      case 'makespan':
        return d.valid ? BigInt(d.makespan) : Infinity;
      case 'frag':
        return d.valid ? BigInt(d.fragmentation) : Infinity;
      case 'fragPct':
        return d.valid ? d.fragmentation_pct : Infinity;
      case 'time':
        return d.elapsed_ms;
      case 'optimal':
        return d.optimal ? 0 : 1;
      case 'valid':
        return d.valid ? 0 : 1;
    }
  }

  /** The valid plan with the lowest makespan (ties: the faster). */
  private best(): Row | null {
    let best: Row | null = null;
    for (const row of this.rows) {
      const d = row.result?.described;
      if (!d || !d.valid) continue;
      const b = best?.result?.described;
      if (!b || BigInt(d.makespan) < BigInt(b.makespan) || (d.makespan === b.makespan && d.elapsed_ms < b.elapsed_ms)) best = row;
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
    body.innerHTML = sorted
      .map((row) => {
        const d = row.result?.described;
        const cls = row === best ? ' class="best"' : '';
        if (!d) {
          const note = row.error ?? 'waiting…';
          return `<tr data-solver="${esc(row.solver)}"${cls}><td>${esc(row.solver)}</td><td colspan="6" class="${row.error ? 'bad' : ''}">${esc(note)}</td></tr>`;
        }
        const name = d.solver === row.solver ? row.solver : `${row.solver} (${d.solver})`;
        const winner = typeof d.winner === 'string' ? ` → ${d.winner}` : '';
        return `<tr data-solver="${esc(row.solver)}"${cls}>
          <td>${esc(name + winner)}</td>
          <td class="num" data-value="${d.makespan}">${d.valid ? `${grouped(d.makespan)} <small>(${bytes(d.makespan)})</small>` : '—'}</td>
          <td class="num">${d.valid ? grouped(d.fragmentation) : '—'}</td>
          <td class="num">${d.valid ? percent(d.fragmentation_pct) : '—'}</td>
          <td class="num">${duration(d.elapsed_ms)}</td>
          <td>${d.optimal ? 'yes' : ''}</td>
          <td class="${d.valid ? '' : 'bad'}">${d.valid ? (d.feasible ? 'yes' : 'yes, over capacity') : `INVALID: ${esc(d.violations[0] ?? '')}`}</td>
        </tr>`;
      })
      .join('');
  }

  private renderGrid() {
    for (const v of this.views) v.dispose();
    this.grid.innerHTML = '';
    this.views = [];
    const inst = this.inst;
    if (!inst) return;
    const capacity = this.capacity();
    let top = Number(inst.summary.max_load);
    if (capacity !== null) top = Math.max(top, capacity);
    for (const row of this.rows) if (row.result?.described.valid) top = Math.max(top, Number(row.result.described.makespan));
    const full = { x0: Number(inst.summary.first_start), x1: Number(inst.summary.last_end), y0: 0, y1: top * 1.04 || 1 };
    const same = JSON.stringify(full) === JSON.stringify(this.viewport.fullRange);
    this.viewport.setFull(full, !same);
    for (const row of this.rows) {
      if (!row.result) continue;
      const d = row.result.described;
      const title = d.valid ? `${row.solver} · ${bytes(d.makespan)} · +${percent(d.fragmentation_pct)}` : `${row.solver} · INVALID PLAN (not drawn)`;
      const view = new PlanView(this.grid, this.viewport, { title });
      view.setColorBy(this.colorBy);
      view.setData({ inst, result: row.result, capacity });
      view.onSelect = () => {};
      this.views.push(view);
    }
  }
}
