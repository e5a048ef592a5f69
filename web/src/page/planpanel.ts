// The plan tab's plan: the view, its viewport fitted to the instance and plan (the address axis
// reaches L, the capacity and the makespan), the replay, and the selection's conflicts.
import type { Engine } from '../engine';
import type { Controls } from '../controls';
import { axisTop } from '../axis';
import { drawable } from '../verdict';
import { grouped } from '../format';
import { PlanView } from '../view/planview';
import { Viewport } from '../view/viewport';
import { Replay } from '../view/replay';
import { SearchBox } from '../view/searchbox';
import { showFigures } from './results';
import type { Shown } from './state';
import { $ } from '../dom';

export class PlanPanel {
  readonly viewport = new Viewport();
  readonly view = new PlanView($('plan-host'), this.viewport, { testid: 'plan-canvas', minimap: true, peak: true });
  readonly replay = new Replay(this.view);
  readonly search = new SearchBox($('plan-search'), $('plan-search-count'), this.view);

  /** The plan host's height (CSS pixels), kept by a ResizeObserver: fitting the addresses when a
   * plan arrives then reads no layout (a read forced one in the task that shows the plan). */
  private hostHeight = $('plan-host').clientHeight;

  constructor(private shown: Shown, private controls: Controls, engine: Engine) {
    new ResizeObserver((entries) => {
      for (const entry of entries) this.hostHeight = entry.contentRect.height;
    }).observe($('plan-host'));
    this.view.onSelect = async (index) => {
      if (index === null || shown.solving) return this.view.setSelection(null, null);
      this.view.setSelection(index, null);
      this.view.setSelection(index, await engine.conflicts(index));
    };
  }

  /** The capacity to draw: the result's, else the controls', else the instance's own. */
  capacity(): number | null {
    const { result, inst } = this.shown;
    const value = result?.summary.capacity ?? this.controls.capacityBytes ?? inst?.summary.capacity ?? null;
    return value === null ? null : Number(value);
  }

  /** Fits the addresses to L, the capacity and the makespan; `resetX` shows the whole time too. */
  fit(resetX: boolean) {
    const { inst, result } = this.shown;
    if (!inst) return;
    let top = Number(inst.summary.max_load);
    const cap = this.capacity();
    if (cap !== null) top = Math.max(top, cap);
    if (result && drawable(result)) top = Math.max(top, Number(result.summary.makespan));
    // The plot is the plan host less its axis labels (about 30 px).
    const full = { x0: Number(inst.summary.first_start), x1: Number(inst.summary.last_end), y0: 0, y1: axisTop(top, this.hostHeight - 30) };
    const viewport = this.viewport;
    if (resetX) viewport.setFull(full);
    else {
      viewport.setFull(full, false);
      viewport.set({ x0: viewport.x0, x1: viewport.x1, y0: 0, y1: full.y1 });
    }
  }

  /** The result's figures and verdict, and its plan drawn (a result without a plan clears the
   * previous one: the view shows the instance alone). */
  showResult() {
    const { inst, result } = this.shown;
    showFigures(this.shown);
    this.view.setData(inst ? { inst, result: drawable(result) ? result : null, capacity: this.capacity() } : null);
    this.replay.reset();
  }

  /** The empty plot's prompt: an instance loaded, no plan, no run going on and none that ended
   * without one (its verdict says why): how to plan it, with `solver`. */
  showPrompt(solver: string) {
    const { inst, result, solving, noSummary } = this.shown;
    const prompt = $('run-prompt');
    prompt.hidden = !inst || result !== null || solving || noSummary !== null;
    if (inst && !prompt.hidden) $('run-prompt-text').textContent = `Not planned yet: ${grouped(inst.n)} buffer${inst.n === 1 ? '' : 's'} loaded. Plan them with ${solver}:`;
  }

  /** The capacity changed: drawn again, the addresses fitted to it. */
  capacityChanged() {
    const { inst, result } = this.shown;
    if (!inst) return;
    this.view.setData({ inst, result: drawable(result) ? result : null, capacity: this.capacity() });
    this.fit(false);
  }
}
