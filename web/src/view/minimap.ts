// The overview strip under the plan: the load curve over the instance's whole time span, with the
// plan's current time window as a box (as Perfetto's timeline overview does). Clicking the strip
// centres the window at that time; dragging moves it (grabbed inside the box, it moves with the
// pointer from where it was taken). Zooming stays with the plan: the strip only pans. The buffers
// marked on the plan (a search's) show as ticks along its top edge, also where the plan draws no
// rectangles (the overview of a large plan) or outside the window.
//
// Cost per frame: one drawImage of the curve, drawn once per instance and size into a canvas of
// its own, and two rectangles; the curve itself is O(profile steps + width) when it is drawn.
import type { InstanceData } from '../protocol';
import { columnLoads } from './plotpixels';
import type { Range, Viewport } from './viewport';
import type { Theme } from './theme';

/** Which of `width` columns over `full`'s times hold a marked buffer's lifetime (1) or not (0). */
export function markedColumns(starts: Float64Array, ends: Float64Array, marked: Uint32Array, width: number, full: Range): Uint8Array {
  const out = new Uint8Array(width);
  const sx = width / (full.x1 - full.x0);
  for (const i of marked) {
    const a = Math.max(0, Math.floor((starts[i] - full.x0) * sx));
    const b = Math.min(width, Math.max(a + 1, Math.ceil((ends[i] - full.x0) * sx)));
    out.fill(1, a, b);
  }
  return out;
}

/** The strip's height, CSS pixels. */
export const MINIMAP_HEIGHT = 30;

/** The time at `x` pixels into a strip `width` pixels wide spanning `full`'s times. */
export function timeAtStrip(x: number, width: number, full: Range): number {
  return full.x0 + (x / Math.max(1, width)) * (full.x1 - full.x0);
}

/** The strip's x (pixels) of a time: the inverse of `timeAtStrip`. */
export function stripX(time: number, width: number, full: Range): number {
  return ((time - full.x0) / (full.x1 - full.x0)) * width;
}

/** The window's new start when it is moved to start at `x0` (same width): kept inside the full
 * span when it fits there, centred on it when wider. */
export function clampedStart(x0: number, windowWidth: number, full: Range): number {
  const span = full.x1 - full.x0;
  if (windowWidth >= span) return full.x0 - (windowWidth - span) / 2;
  return Math.min(Math.max(x0, full.x0), full.x1 - windowWidth);
}

export class Minimap {
  readonly canvas: HTMLCanvasElement;
  /** The curve as drawn, for the instance, size and colours it was drawn for. */
  private curve: { inst: InstanceData; w: number; h: number; colour: string; image: HTMLCanvasElement } | null = null;
  private inst: InstanceData | null = null;
  /** The buffers marked on the plan, and their columns for the width they were computed for. */
  private marked: Uint32Array | null = null;
  private markedAt: { width: number; columns: Uint8Array } | null = null;
  /** Where the strip's time axis starts and ends, CSS pixels from the canvas's left edge. */
  private left = 0;
  private right = 0;

  constructor(parent: HTMLElement, private viewport: Viewport, testid?: string) {
    this.canvas = document.createElement('canvas');
    this.canvas.className = 'minimap';
    this.canvas.setAttribute('aria-label', 'overview of the whole time span: click or drag to move the plan\'s window');
    this.canvas.title = 'the load over the whole time span; the box is the plan\'s window: click or drag to move it';
    if (testid) this.canvas.dataset.testid = `${testid}-minimap`;
    this.canvas.style.height = `${MINIMAP_HEIGHT}px`;
    parent.append(this.canvas);
    this.attach();
  }

  /** The buffers marked on the plan (null: none), ticked along the strip's top edge. */
  setMarks(marked: Uint32Array | null) {
    this.marked = marked && marked.length ? marked : null;
    this.markedAt = null;
  }

  /** A point's time on the strip (CSS pixels from the canvas's left edge). */
  private timeAt(cssX: number): number {
    return timeAtStrip(cssX - this.left, this.right - this.left, this.viewport.fullRange);
  }

  private attach() {
    let grab: { offset: number; id: number } | null = null;
    const moveTo = (start: number) => {
      const vp = this.viewport;
      const w = vp.x1 - vp.x0;
      const x0 = clampedStart(start, w, vp.fullRange);
      vp.set({ x0, x1: x0 + w, y0: vp.y0, y1: vp.y1 });
    };
    const local = (ev: PointerEvent) => ev.clientX - this.canvas.getBoundingClientRect().left;
    this.canvas.addEventListener('pointerdown', (ev) => {
      if (ev.button !== 0 || !this.inst) return;
      const vp = this.viewport;
      const t = this.timeAt(local(ev));
      // Inside the box: move it from where it was taken; elsewhere: centre it there first.
      const inside = t >= vp.x0 && t <= vp.x1;
      grab = { offset: inside ? t - vp.x0 : (vp.x1 - vp.x0) / 2, id: ev.pointerId };
      if (!inside) moveTo(t - grab.offset);
      this.canvas.setPointerCapture(ev.pointerId);
      ev.preventDefault();
    });
    this.canvas.addEventListener('pointermove', (ev) => {
      if (grab) moveTo(this.timeAt(local(ev)) - grab.offset);
    });
    const release = () => {
      if (grab && this.canvas.hasPointerCapture(grab.id)) this.canvas.releasePointerCapture(grab.id);
      grab = null;
    };
    this.canvas.addEventListener('pointerup', release);
    this.canvas.addEventListener('pointercancel', release);
  }

  /** Draws the strip for `inst` (empty without one), its time axis from `left` to `right` CSS
   * pixels (the plot's), `cssW` wide in all. */
  draw(inst: InstanceData | null, t: Theme, cssW: number, left: number, right: number, dpr: number) {
    this.inst = inst;
    if (!inst) {
      // Empty, but keeping its place: the plan above does not move when an instance comes.
      this.canvas.getContext('2d')!.clearRect(0, 0, this.canvas.width, this.canvas.height);
      delete this.canvas.dataset.window;
      return;
    }
    this.left = left;
    this.right = right;
    const w = Math.round(cssW * dpr), h = Math.round(MINIMAP_HEIGHT * dpr);
    if (this.canvas.width !== w || this.canvas.height !== h) {
      this.canvas.width = w;
      this.canvas.height = h;
      this.canvas.style.width = `${cssW}px`;
    }
    const ctx = this.canvas.getContext('2d')!;
    const x0 = Math.round(left * dpr), width = Math.max(1, Math.round((right - left) * dpr));
    const top = Math.round(4 * dpr), height = h - top - Math.round(2 * dpr);
    ctx.fillStyle = t.bg;
    ctx.fillRect(0, 0, w, h);
    ctx.fillStyle = t.plotBg;
    ctx.fillRect(x0, top, width, height);
    ctx.drawImage(this.curveImage(inst, width, height, t.load), x0, top);
    // The window: the rest of the span under a veil, the window's edges in the accent colour.
    const full = this.viewport.fullRange, vp = this.viewport;
    const a = Math.max(0, Math.min(width, stripX(vp.x0, width, full)));
    const b = Math.max(0, Math.min(width, stripX(vp.x1, width, full)));
    ctx.fillStyle = t.bg;
    ctx.globalAlpha = 0.6;
    ctx.fillRect(x0, top, a, height);
    ctx.fillRect(x0 + b, top, width - b, height);
    ctx.globalAlpha = 1;
    if (this.marked) {
      if (this.markedAt?.width !== width) this.markedAt = { width, columns: markedColumns(inst.startsF, inst.endsF, this.marked, width, full) };
      const columns = this.markedAt.columns, tick = Math.round(3 * dpr);
      ctx.fillStyle = t.select;
      for (let c = 0; c < width; c++) {
        if (!columns[c]) continue;
        const from = c;
        while (c < width && columns[c]) c++;
        ctx.fillRect(x0 + from, top - tick, c - from, tick); // one rectangle per run of columns
      }
    }
    ctx.strokeStyle = t.accent;
    ctx.lineWidth = Math.max(1, Math.round(1.5 * dpr));
    ctx.strokeRect(x0 + a, top + 0.5, Math.max(2 * dpr, b - a), height - 1);
    this.canvas.dataset.window = `${a / width},${b / width}`;
  }

  /** The load curve over the whole span, `width` × `height` device pixels, drawn once per
   * instance, size and colour. */
  private curveImage(inst: InstanceData, width: number, height: number, colour: string): HTMLCanvasElement {
    const cached = this.curve;
    if (cached && cached.inst === inst && cached.w === width && cached.h === height && cached.colour === colour) return cached.image;
    const image = document.createElement('canvas');
    image.width = width;
    image.height = height;
    const ctx = image.getContext('2d')!;
    const full = this.viewport.fullRange;
    const { high } = columnLoads(inst.profileTimes, inst.profileLoads, full.x0, full.x1, width);
    let peak = 0;
    for (const v of high) if (v > peak) peak = v;
    ctx.fillStyle = colour;
    ctx.globalAlpha = 0.75;
    for (let c = 0; c < width; c++) {
      if (!(high[c] > 0) || peak <= 0) continue;
      const bar = Math.max(1, Math.round((high[c] / peak) * height));
      ctx.fillRect(c, height - bar, 1, bar);
    }
    this.curve = { inst, w: width, h: height, colour, image };
    return image;
  }
}
