// The visible window of a plan: a time range (x) and an address range (y), in data units. Views
// that show plans side by side share one Viewport, so their axes stay the same.

export interface Range {
  x0: number;
  x1: number;
  y0: number;
  y1: number;
}

export class Viewport implements Range {
  x0 = 0;
  x1 = 1;
  y0 = 0;
  y1 = 1;
  private full: Range = { x0: 0, x1: 1, y0: 0, y1: 1 };
  private listeners = new Set<() => void>();
  private scheduled = false;

  /** The extent that `reset` returns to; resets the view when `reset` is true. */
  setFull(full: Range, reset = true) {
    this.full = { ...full };
    if (reset) this.reset();
  }

  get fullRange(): Range {
    return { ...this.full };
  }

  reset() {
    this.set(this.full);
  }

  set(range: Range) {
    const minX = Math.max((this.full.x1 - this.full.x0) * 1e-9, 1e-9);
    const minY = Math.max((this.full.y1 - this.full.y0) * 1e-12, 1e-9);
    this.x0 = range.x0;
    this.x1 = Math.max(range.x1, range.x0 + minX);
    this.y0 = range.y0;
    this.y1 = Math.max(range.y1, range.y0 + minY);
    this.changed();
  }

  /** Zooms by `factor` (< 1 zooms in) around the data point (x, y), on the chosen axes. */
  zoom(factor: number, x: number, y: number, axes: { x: boolean; y: boolean }) {
    const r: Range = { x0: this.x0, x1: this.x1, y0: this.y0, y1: this.y1 };
    if (axes.x) {
      r.x0 = x - (x - this.x0) * factor;
      r.x1 = x + (this.x1 - x) * factor;
    }
    if (axes.y) {
      r.y0 = y - (y - this.y0) * factor;
      r.y1 = y + (this.y1 - y) * factor;
    }
    this.set(r);
  }

  /** Shows `box` (e.g. a selected buffer, or the buffers a search found) with a `margin` around it
   * (a fraction of its width and height each side), zoomed on both axes; a box narrower than the
   * full range's thousandth is widened to that, so that a one-step buffer is not a wall; the
   * margin stays inside the full range. */
  show(box: Range, margin = 0.15) {
    this.set(framedBox(box, this.full, margin));
  }

  /** Moves the window by (dx, dy) data units. */
  pan(dx: number, dy: number) {
    this.set({ x0: this.x0 + dx, x1: this.x1 + dx, y0: this.y0 + dy, y1: this.y1 + dy });
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Listeners run once per animation frame however many changes came in it. */
  private changed() {
    if (this.scheduled) return;
    this.scheduled = true;
    requestAnimationFrame(() => {
      this.scheduled = false;
      for (const listener of this.listeners) listener();
    });
  }
}

/** The window `Viewport.show` sets for `box` inside `full` (pure, for the tests). */
export function framedBox(box: Range, full: Range, margin: number): Range {
  const minW = (full.x1 - full.x0) / 1000, minH = (full.y1 - full.y0) / 1000;
  const cx = (box.x0 + box.x1) / 2, cy = (box.y0 + box.y1) / 2;
  const w = Math.max(box.x1 - box.x0, minW) * (1 + 2 * margin), h = Math.max(box.y1 - box.y0, minH) * (1 + 2 * margin);
  // The margin never takes the window past the full range's edges (a box near an edge keeps its
  // side of the margin inside).
  const x0 = Math.max(full.x0, cx - w / 2), x1 = Math.min(full.x1, cx + w / 2);
  const y0 = Math.max(full.y0, cy - h / 2), y1 = Math.min(full.y1, cy + h / 2);
  return { x0: Math.min(x0, box.x0), x1: Math.max(x1, box.x1), y0: Math.min(y0, box.y0), y1: Math.max(y1, box.y1) };
}
