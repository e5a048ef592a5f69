// Compare's diff: two of the compared plans of one instance side by side on the same axes, with
// the buffers that moved from the first to the second highlighted, the peak change and the bytes
// saved. The core computes the diff (the CLI's `memplan diff`), so the page and the CLI agree.
import type { PlanDiff } from './generated/core';
import type { InstanceData, SolveResult } from './protocol';
import { bytes, esc, grouped, percent } from './format';
import { DiffView } from './view/diff';
import type { ColorBy } from './view/colors';
import { $ } from './dom';

/** One compared run with a drawable plan. */
export interface PlanRun {
  solver: string;
  result: SolveResult;
}

export class PlanDiffPanel {
  private section = $<HTMLElement>('compare-diff');
  private first = $<HTMLSelectElement>('diff-a');
  private second = $<HTMLSelectElement>('diff-b');
  private moved = $<HTMLInputElement>('diff-moved');
  private summary = $<HTMLParagraphElement>('diff-summary');
  private view = new DiffView($('diff-grid'));
  private inst: InstanceData | null = null;
  private runs: PlanRun[] = [];
  /** Drops a diff that arrives after the choice (or the runs) changed. */
  private serial = 0;

  constructor(private diffPlans: (a: BigUint64Array, b: BigUint64Array) => Promise<PlanDiff>) {
    this.first.addEventListener('change', () => void this.show());
    this.second.addEventListener('change', () => void this.show());
    this.moved.addEventListener('change', () => this.view.highlightMoved(this.moved.checked));
  }

  /** The runs to choose from, best plan first. By default the diff goes from the worst plan to the
   * best: what the best solver changed, and what it saved. */
  setRuns(inst: InstanceData | null, runs: PlanRun[]) {
    this.inst = inst;
    this.runs = runs;
    this.section.hidden = runs.length < 2;
    const options = runs.map((run, k) => `<option value="${k}">${esc(run.solver)} (${bytes(run.result.summary.makespan!)})</option>`).join('');
    this.first.innerHTML = options;
    this.second.innerHTML = options;
    if (runs.length < 2) {
      this.serial++;
      this.view.clear();
      this.summary.textContent = '';
      return;
    }
    this.first.value = String(runs.length - 1);
    this.second.value = '0';
    void this.show();
  }

  private async show() {
    const serial = ++this.serial;
    const inst = this.inst;
    const a = this.runs[Number(this.first.value)], b = this.runs[Number(this.second.value)];
    if (!inst || !a || !b) return;
    const diff = await this.diffPlans(a.result.offsets, b.result.offsets);
    if (serial !== this.serial) return;
    const moved = Uint32Array.from(diff.moved_buffers.map((m) => m.index));
    this.view.show(inst, { title: `${a.solver}: ${bytes(diff.peak_a)}`, result: a.result }, { title: `${b.solver}: ${bytes(diff.peak_b)}`, result: b.result }, moved);
    this.view.highlightMoved(this.moved.checked);
    const saved = BigInt(diff.saved_bytes);
    const change = saved > 0n
      ? `saves <b>${grouped(saved)} bytes</b> (${percent(diff.saved_pct)})`
      : saved < 0n ? `needs <b>${grouped(-saved)} bytes more</b>` : 'the same peak';
    this.summary.innerHTML = `${esc(a.solver)} → ${esc(b.solver)}: peak ${grouped(diff.peak_a)} → ${grouped(diff.peak_b)}, ${change}; ${grouped(diff.moved)} of ${grouped(diff.buffers)} buffers moved`;
    this.summary.dataset.saved = String(diff.saved_bytes);
    this.summary.dataset.moved = String(diff.moved);
  }

  /** Colours both plans as the page's other views. */
  setColorBy(mode: ColorBy) {
    this.view.setColorBy(mode);
  }

  draw() {
    this.view.draw();
  }
}
