// Two plans of one instance side by side on the same axes (one shared viewport: they zoom and pan
// together, and the address axis reaches the higher peak in both), with the buffers that moved
// from the first plan to the second marked on demand.
import type { InstanceData, SolveResult } from '../protocol';
import { PlanView } from './planview';
import { Viewport } from './viewport';
import type { ColorBy } from './colors';
import { axisTop } from '../axis';

export class DiffView {
  readonly viewport = new Viewport();
  private views: PlanView[] = [];
  private colorBy: ColorBy = 'size';

  constructor(private host: HTMLElement) {}

  /** Shows plan `a` (left) and `b` (right) of `inst`; `moved` are the buffers at another offset. */
  show(inst: InstanceData, a: { title: string; result: SolveResult }, b: { title: string; result: SolveResult }, moved: Uint32Array) {
    this.clear();
    const top = Math.max(Number(a.result.summary.makespan ?? 0), Number(b.result.summary.makespan ?? 0), Number(inst.summary.max_load));
    // Room above the higher peak for its label (4 % was a few pixels: the label sat on the edge);
    // the plots are about 250 px high.
    this.viewport.setFull({ x0: Number(inst.summary.first_start), x1: Number(inst.summary.last_end), y0: 0, y1: axisTop(top, 250) });
    for (const [side, plan] of [['a', a], ['b', b]] as const) {
      const view = new PlanView(this.host, this.viewport, { title: plan.title, testid: `diff-canvas-${side}` });
      view.setColorBy(this.colorBy);
      view.setData({ inst, result: plan.result, capacity: null });
      this.views.push(view);
    }
    this.moved = moved;
  }

  private moved: Uint32Array | null = null;

  /** Marks the buffers that moved in both plans (or clears the marks). */
  highlightMoved(on: boolean) {
    for (const view of this.views) view.setMarked(on ? this.moved : null);
  }

  /** Colours both plans as the page's plan view does (the same mode, palette and legend). */
  setColorBy(mode: ColorBy) {
    this.colorBy = mode;
    for (const view of this.views) view.setColorBy(mode);
  }

  clear() {
    for (const view of this.views) view.dispose();
    this.views = [];
    this.moved = null;
    this.host.innerHTML = '';
  }

  draw() {
    for (const view of this.views) view.draw();
  }
}
