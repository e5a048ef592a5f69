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
