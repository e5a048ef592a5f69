// The plan toolbar's view controls: the colour mode (by category only when the instance has
// categories) with its legend, shared by every view that shows a plan of the instance; the level
// of detail; zoom in, out, reset and to the peak.
import { COLOR_MODES, type ColorBy } from '../view/colors';
import { hasCategories } from '../view/categories';
import { legendHtml } from '../view/legend';
import type { Detail, PlanView } from '../view/planview';
import type { Viewport } from '../view/viewport';
import type { InstanceData } from '../protocol';
import { $ } from '../dom';

/** A view that colours its plans as the page's colour select says. */
export interface Colourable {
  setColorBy(mode: ColorBy): void;
}

export class ColourControl {
  private select = $<HTMLSelectElement>('color-select');

  /** `views`: every view that follows the mode (the plan view, compare, the Model tab). */
  constructor(private views: Colourable[], private inst: () => InstanceData | null) {
    this.select.addEventListener('change', () => this.set(this.mode));
  }

  get mode(): ColorBy {
    return this.select.value as ColorBy;
  }

  /** The colour modes this instance supports: by category only when its buffers have categories
   * (an imported model's). A mode that goes away falls back to size. */
  offer() {
    const current = this.mode;
    const offered = COLOR_MODES.filter(([mode]) => mode !== 'category' || hasCategories(this.inst()));
    this.select.innerHTML = offered.map(([v, label]) => `<option value="${v}">${label}</option>`).join('');
    const keep = offered.some(([mode]) => mode === current);
    this.set(keep ? current : 'size');
  }

  set(mode: ColorBy) {
    this.select.value = mode;
    for (const view of this.views) view.setColorBy(mode);
    $('legend').innerHTML = legendHtml(mode, this.inst());
  }
}

/** Detail and zoom buttons of the plan toolbar. */
export function attachViewButtons(view: PlanView, viewport: Viewport) {
  $<HTMLSelectElement>('detail-select').addEventListener('change', (ev) => view.setDetail((ev.target as HTMLSelectElement).value as Detail));
  const centre = () => ({ x: (viewport.x0 + viewport.x1) / 2, y: (viewport.y0 + viewport.y1) / 2 });
  $('zoom-in').addEventListener('click', () => viewport.zoom(0.6, centre().x, centre().y, { x: true, y: false }));
  $('zoom-out').addEventListener('click', () => viewport.zoom(1 / 0.6, centre().x, centre().y, { x: true, y: false }));
  $('zoom-reset').addEventListener('click', () => viewport.reset());
  $('zoom-peak').addEventListener('click', () => view.jumpToPeak());
}
