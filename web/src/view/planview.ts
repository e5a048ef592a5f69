// The plan view: time on x, address on y, one rectangle per buffer, drawn on a Canvas 2D.
//
// Level of detail: rectangles are rasterised into one ImageData from the typed arrays (a valid
// plan's rectangles never overlap, so the work is O(buffers + pixels)); whatever is smaller than a
// pixel merges into the pixel it falls in, and rectangles a few pixels wide get an outline. When
// more than OVERVIEW_LIMIT buffers are in view (or the user asks for it), the view draws the load
// curve and the plan's top edge per pixel column instead: the gap between them is the
// fragmentation at that time. Never a DOM node per buffer.
import { ticks } from 'd3-array';
import type { InstanceData, SolveResult } from '../protocol';
import { drawable } from '../verdict';
import { bytes, compact, grouped } from '../format';
import { blend, colourJob, darker, pack, type ColorBy, type ColourJob } from './colors';
import { columnLoads, paintGrid, paintLoadCurve, type ColumnLoads, type Plot } from './plotpixels';
import type { Viewport } from './viewport';

export const OVERVIEW_LIMIT = 200_000;

/** A new plan with more buffers than this has its first window prepared in the background. */
const BACKGROUND_LIMIT = 30_000;
/** Buffers per task when a window is prepared in the background (a few ms of work each). */
const BACKGROUND_SLICE = 100_000;

export type Detail = 'auto' | 'rectangles' | 'load';

export interface PlanData {
  inst: InstanceData;
  /** The plan to draw: only one the validator accepted is drawn (see `drawable`). */
  result: SolveResult | null;
  /** The capacity to draw (bytes), if any. */
  capacity: number | null;
}

const MARGIN = { left: 74, right: 12, top: 12, bottom: 26 };

interface Theme {
  bg: string;
  plotBg: string;
  fg: string;
  muted: string;
  grid: string;
  accent: string;
  load: string;
  maxLoad: string;
  makespan: string;
  capacity: string;
  frag: string;
  select: string;
  conflict: string;
  font: string;
}

function theme(element: Element): Theme {
  const s = getComputedStyle(element);
  const v = (name: string) => s.getPropertyValue(name).trim();
  return {
    bg: v('--bg'),
    plotBg: v('--plot-bg'),
    fg: v('--fg'),
    muted: v('--muted'),
    grid: v('--grid'),
    accent: v('--accent'),
    load: v('--load'),
    maxLoad: v('--max-load'),
    makespan: v('--makespan'),
    capacity: v('--capacity'),
    frag: v('--frag'),
    select: v('--select'),
    conflict: v('--conflict'),
    font: `11px ${v('--mono')}`,
  };
}

/** The window and plan a frame shows: what the visible list and the overview's envelope depend on. */
interface WindowKey {
  data: PlanData;
  result: SolveResult;
  x0: number;
  x1: number;
  y0: number;
  y1: number;
  replayCount: number | null;
}

const sameWindow = (a: WindowKey | null, b: WindowKey) =>
  a !== null && a.data === b.data && a.result === b.result && a.x0 === b.x0 && a.x1 === b.x1 &&
  a.y0 === b.y0 && a.y1 === b.y1 && a.replayCount === b.replayCount;

export interface HoverInfo {
  index: number;
  x: number;
  y: number;
}

export class PlanView {
  readonly canvas: HTMLCanvasElement;
  readonly element: HTMLElement;
  private tooltip: HTMLElement;
  private ctx: CanvasRenderingContext2D;
  private data: PlanData | null = null;
  private colorBy: ColorBy = 'size';
  private colors: Uint32Array | null = null;
  /** Each buffer's step in the placement order, computed when first needed (undefined: not yet). */
  private rankOf: Uint32Array | null | undefined = undefined;
  private visible = new Uint32Array(0);
  private visibleCount = 0;
  /** What `visible` was collected for; a frame with the same window and plan reuses it. */
  private visibleKey: WindowKey | null = null;
  /** The overview's top edge per pixel column, for the window it was computed for. */
  private envelope: { key: WindowKey; width: number; top: Float64Array } | null = null;
  /** The window being prepared in the background (visible buffers, envelope, colours), if any. */
  private background: { key: WindowKey; width: number } | null = null;
  /** The load curve per pixel column, for the instance and time window it was computed for: it
   * does not depend on the plan, so the first frame of a new plan (same window) reuses it. */
  private loadColumns: { inst: InstanceData; x0: number; x1: number; columns: ColumnLoads } | null = null;
  /** The last colours computed from an instance alone, kept for the next plan of it. */
  private colorsOf: { inst: InstanceData; mode: ColorBy; colors: Uint32Array } | null = null;
  private image: ImageData | null = null;
  private scheduled = false;
  private hover: HoverInfo | null = null;
  /** Replay: only buffers with rank < this are drawn (null = all). */
  private replayCount: number | null = null;
  private selected: number | null = null;
  private conflicts: Uint32Array | null = null;
  private marked: Uint32Array | null = null;
  detail: Detail = 'auto';
  /** What the last frame drew: 'rectangles', 'load', or 'empty'. */
  lastMode = 'empty';
  lastDrawMs = 0;
  onSelect: ((index: number | null) => void) | null = null;
  onModeChange: ((mode: string, visible: number) => void) | null = null;

  constructor(
    parent: HTMLElement,
    readonly viewport: Viewport,
    options: { testid?: string; title?: string; height?: number } = {},
  ) {
    this.element = document.createElement('div');
    this.element.className = 'planview';
    if (options.height) this.element.style.height = `${options.height}px`;
    if (options.title) {
      const title = document.createElement('div');
      title.className = 'planview-title';
      title.textContent = options.title;
      this.element.append(title);
    }
    this.canvas = document.createElement('canvas');
    this.canvas.tabIndex = 0;
    if (options.testid) this.canvas.dataset.testid = options.testid;
    this.canvas.setAttribute('aria-label', 'memory plan: time on x, address on y');
    this.tooltip = document.createElement('div');
    this.tooltip.className = 'tooltip';
    this.tooltip.hidden = true;
    this.element.append(this.canvas, this.tooltip);
    parent.append(this.element);
    this.ctx = this.canvas.getContext('2d')!;
    this.unsubscribe = viewport.subscribe(() => this.draw());
    this.resize = new ResizeObserver(() => this.draw());
    this.resize.observe(this.element);
    // Light or dark follows the system; colours are read from CSS variables again on a change.
    this.scheme = matchMedia('(prefers-color-scheme: dark)');
    this.onScheme = () => {
      this.cachedTheme = null;
      this.draw();
    };
    this.scheme.addEventListener('change', this.onScheme);
    this.attachInteractions();
  }

  private unsubscribe: () => void;
  private resize: ResizeObserver;
  private scheme: MediaQueryList;
  private onScheme: () => void;

  /** Detaches the view from its viewport and the page. */
  dispose() {
    this.unsubscribe();
    this.resize.disconnect();
    this.scheme.removeEventListener('change', this.onScheme);
    this.element.remove();
  }

  setData(data: PlanData | null) {
    this.data = data;
    this.rankOf = undefined;
    this.selected = null;
    this.conflicts = null;
    this.replayCount = null;
    this.recolour();
  }

  get plan(): PlanData | null {
    return this.data;
  }

  /** Steps of the plan's placement order (0 when the solver reported none): what a replay shows. */
  get placementSteps(): number {
    const data = this.data;
    return data?.result && data.result.order.length === data.inst.n ? data.inst.n : 0;
  }

  /** Each buffer's step in the placement order, or null without one. Computed on first use (a
   * replay, the order colours, a tooltip), not when a plan arrives: at 10^5-10^6 buffers the
   * scattered writes cost milliseconds in the task that receives the plan. */
  private get rank(): Uint32Array | null {
    if (this.rankOf === undefined) {
      this.rankOf = null;
      if (this.placementSteps > 0) {
        const order = this.data!.result!.order;
        const rank = new Uint32Array(order.length);
        for (let step = 0; step < order.length; step++) rank[order[step]] = step;
        this.rankOf = rank;
      }
    }
    return this.rankOf;
  }

  setColorBy(mode: ColorBy) {
    this.colorBy = mode;
    this.recolour();
  }

  setDetail(detail: Detail) {
    this.detail = detail;
    this.draw();
  }

  setReplay(count: number | null) {
    this.replayCount = count;
    this.draw();
  }

  /** Buffers to stand out over a veil (e.g. those another plan placed elsewhere), or null for none;
   * a selection, when there is one, shows instead. */
  setMarked(indices: Uint32Array | null) {
    this.marked = indices;
    this.draw();
  }

  setSelection(index: number | null, conflicts: Uint32Array | null) {
    this.selected = index;
    this.conflicts = conflicts;
    this.draw();
  }

  private recolour() {
    this.colors = null;
    this.background = null; // it may be computing colours of the previous mode or plan
    this.draw();
  }

  /** One packed colour per buffer, computed when first needed (or a slice per task in the
   * background, see `prepareInBackground`): at 10^5-10^6 buffers they take tens of ms. */
  private get bufferColours(): Uint32Array {
    const job = this.colourJob();
    if (job) {
      job.step(Infinity);
      this.keepColours(job.out);
    }
    return this.colors!;
  }

  /** The computation of the current colours, or null when they are known (then `colors` is set). */
  private colourJob(): ColourJob | null {
    if (this.colors) return null;
    const data = this.data!;
    if (this.colorBy !== 'order' && this.colorsOf?.inst === data.inst && this.colorsOf.mode === this.colorBy) {
      // The colours depend on the instance alone (not on the plan) in every mode but placement
      // order: a new plan of the same input keeps them.
      this.colors = this.colorsOf.colors;
      return null;
    }
    return colourJob(this.colorBy, data.inst, this.colorBy === 'order' ? this.rank : null);
  }

  private keepColours(colors: Uint32Array) {
    this.colors = colors;
    this.colorsOf = this.colorBy === 'order' ? null : { inst: this.data!.inst, mode: this.colorBy, colors };
  }

  /** Schedules a frame. */
  draw() {
    if (this.scheduled) return;
    this.scheduled = true;
    requestAnimationFrame(() => {
      this.scheduled = false;
      const began = performance.now();
      this.render();
      this.lastDrawMs = performance.now() - began;
    });
  }

  /** Draws now (for PNG export and tests), the overview's envelope included. */
  renderNow() {
    this.render(false);
  }

  private layout() {
    const dpr = window.devicePixelRatio || 1;
    const cssW = Math.max(120, this.element.clientWidth);
    const cssH = Math.max(80, this.element.clientHeight - (this.element.querySelector('.planview-title')?.clientHeight ?? 0));
    const w = Math.round(cssW * dpr), h = Math.round(cssH * dpr);
    if (this.canvas.width !== w || this.canvas.height !== h) {
      this.canvas.width = w;
      this.canvas.height = h;
      this.canvas.style.width = `${cssW}px`;
      this.canvas.style.height = `${cssH}px`;
    }
    const left = Math.round(MARGIN.left * dpr), top = Math.round(MARGIN.top * dpr);
    const pw = Math.max(1, w - left - Math.round(MARGIN.right * dpr));
    const ph = Math.max(1, h - top - Math.round(MARGIN.bottom * dpr));
    return { dpr, w, h, left, top, pw, ph, cssW, cssH };
  }

  /** `defer`: the first frame of a new plan may leave its large parts to the background. */
  private render(defer = true) {
    const { ctx } = this;
    if (!defer) this.background = null; // this frame computes everything itself
    const L = this.layout();
    const t = theme(this.element);
    const vp = this.viewport;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.fillStyle = t.bg;
    ctx.fillRect(0, 0, L.w, L.h);
    const sx = L.pw / (vp.x1 - vp.x0), sy = L.ph / (vp.y1 - vp.y0);
    const X = (x: number) => L.left + (x - vp.x0) * sx;
    const Y = (y: number) => L.top + L.ph - (y - vp.y0) * sy;
    const data = this.data;
    let mode = 'empty';
    if (data) {
      // Everything inside the plot but the lines, labels and highlights goes into one ImageData:
      // rectangles or envelope, then the grid, then the load curve (see plotpixels.ts for why).
      const image = this.plotImage(L);
      const plot: Plot = { pixels: new Uint32Array(image.data.buffer), W: L.pw, H: L.ph };
      plot.pixels.fill(pack(t.plotBg));
      const result = data.result;
      if (result && drawable(result)) {
        const key: WindowKey = { data, result, x0: vp.x0, x1: vp.x1, y0: vp.y0, y1: vp.y1, replayCount: this.replayCount };
        // The first frame of a new plan with many buffers shows the load curve alone, and the
        // buffers in the window (then their colours, or the overview's envelope) are gathered in
        // the background, a slice per task: in one task, with the code still cold, they blocked
        // the page for more than 100 ms at 500k buffers (and ~60-120 ms at 62k on a loaded
        // machine). Later frames (zoom, pan) are warm and compute at once, so that nothing
        // flickers.
        const firstOfPlan = this.visibleKey?.result !== result;
        const large = defer && firstOfPlan && data.inst.n > BACKGROUND_LIMIT;
        if (!sameWindow(this.visibleKey, key) && !large) {
          this.visibleCount = this.collectVisible(key, 0, data.inst.n, 0);
          this.visibleKey = key;
        }
        if (!sameWindow(this.visibleKey, key)) {
          mode = 'load';
          this.prepareInBackground(key, L.pw);
        } else if (this.isOverview(this.visibleCount)) {
          mode = 'load';
          if (sameWindow(this.envelope?.key ?? null, key) && this.envelope!.width === L.pw) {
            this.paintEnvelope(plot, this.envelope!.top, t);
          } else if (defer && this.envelope?.key.result !== result && this.visibleCount > OVERVIEW_LIMIT) {
            this.prepareInBackground(key, L.pw);
          } else {
            this.envelope = { key, width: L.pw, top: this.computeEnvelope(key, L.pw) };
            this.paintEnvelope(plot, this.envelope.top, t);
          }
        } else {
          mode = 'rectangles';
          this.rasterise(plot, data, result, L, t);
        }
      } else {
        this.background = null;
      }
      this.paintGrid(plot, L, t, X, Y);
      this.paintLoadCurve(plot, data, L, t, mode !== 'rectangles');
      ctx.putImageData(image, L.left, L.top);
      ctx.save();
      ctx.beginPath();
      ctx.rect(L.left, L.top, L.pw, L.ph);
      ctx.clip();
      this.drawLines(data, L, t, Y);
      if (result && drawable(result) && mode === 'rectangles') this.drawHighlights(data, result, t, X, Y, L.dpr);
      ctx.restore();
      this.drawAxes(L, t, X, Y);
    } else {
      this.background = null;
      ctx.fillStyle = t.plotBg;
      ctx.fillRect(L.left, L.top, L.pw, L.ph);
    }
    ctx.strokeStyle = t.grid;
    ctx.lineWidth = 1;
    ctx.strokeRect(L.left + 0.5, L.top + 0.5, L.pw - 1, L.ph - 1);
    if (mode !== this.lastMode) this.onModeChange?.(mode, this.visibleCount);
    this.lastMode = mode;
  }

  /** The overview (load curve and envelope) instead of rectangles, for this many buffers in view. */
  private isOverview(visibleCount: number): boolean {
    return this.detail === 'load' || (this.detail === 'auto' && visibleCount > OVERVIEW_LIMIT);
  }

  /** Appends to `visible` (from position `count`, returned advanced) the buffers among `from` to
   * `to` that are in `key`'s window (and placed so far, during a replay). */
  private collectVisible(key: WindowKey, from: number, to: number, count: number): number {
    const { inst } = key.data;
    if (this.visible.length < inst.n) this.visible = new Uint32Array(inst.n);
    const { x0, x1, y0, y1 } = key;
    const s = inst.startsF, e = inst.endsF, z = inst.sizesF, o = key.result.offsetsF;
    const limit = key.replayCount;
    const rank = limit !== null ? this.rank : null;
    const visible = this.visible;
    for (let i = from; i < to; i++) {
      if (e[i] <= x0 || s[i] >= x1) continue;
      const off = o[i];
      if (off + z[i] <= y0 || off >= y1) continue;
      if (limit !== null && rank && rank[i] >= limit) continue;
      visible[count++] = i;
    }
    return count;
  }

  /** True when no frame or background work is pending: what is on the canvas is complete. */
  get settled(): boolean {
    return !this.scheduled && this.background === null;
  }

  /**
   * Gathers the buffers in `key`'s window, then the envelope over them for the overview (or the
   * buffers' colours), in tasks of BACKGROUND_SLICE buffers each, and draws again when done. A
   * frame for another window or plan replaces the job, and the old one stops at its next slice.
   */
  private prepareInBackground(key: WindowKey, width: number) {
    if (this.background && sameWindow(this.background.key, key) && this.background.width === width) return;
    const job = { key, width };
    this.background = job;
    const n = key.data.inst.n;
    let phase: 'visible' | 'envelope' | 'colours' = sameWindow(this.visibleKey, key) ? 'envelope' : 'visible';
    if (phase === 'visible') this.visibleKey = null; // `visible` is rewritten from here on
    let next = 0, count = 0;
    const top = new Float64Array(width);
    let colouring: ColourJob | null = null;
    const slice = () => {
      if (this.background !== job) return;
      if (phase === 'visible') {
        const end = Math.min(n, next + BACKGROUND_SLICE);
        count = this.collectVisible(key, next, end, count);
        next = end;
        if (next < n) return void setTimeout(slice, 0);
        this.visibleCount = count;
        this.visibleKey = key;
        phase = this.isOverview(count) ? 'envelope' : 'colours';
        next = 0;
        return void setTimeout(slice, 0);
      }
      if (phase === 'envelope') {
        const end = Math.min(this.visibleCount, next + BACKGROUND_SLICE);
        this.accumulateEnvelope(key, top, next, end);
        next = end;
        if (next < this.visibleCount) return void setTimeout(slice, 0);
        this.envelope = { key, width, top };
        // The overview is complete: show it; the colours that zooming in will need follow.
        this.draw();
        phase = 'colours';
        return void setTimeout(slice, 0);
      }
      colouring ??= this.colourJob();
      if (colouring && !colouring.step(BACKGROUND_SLICE)) return void setTimeout(slice, 0);
      if (colouring) this.keepColours(colouring.out);
      this.finishBackground();
    };
    setTimeout(slice, 0);
  }

  private finishBackground() {
    this.background = null;
    this.draw();
  }

  private plotImage(L: { pw: number; ph: number }): ImageData {
    if (!this.image || this.image.width !== L.pw || this.image.height !== L.ph) this.image = new ImageData(L.pw, L.ph);
    return this.image;
  }

  /** Rectangles into one ImageData: sub-pixel ones merge into their pixel, big ones get an edge. */
  private rasterise(plot: Plot, data: PlanData, result: SolveResult, L: ReturnType<PlanView['layout']>, t: Theme) {
    const { pixels } = plot;
    const bg = pack(t.plotBg);
    const { inst } = data;
    const { x0, x1, y0, y1 } = this.viewport;
    const W = L.pw, H = L.ph;
    const sx = W / (x1 - x0), sy = H / (y1 - y0);
    // Fragmentation: the rows between max load L and the makespan, tinted and hatched under the
    // rectangles, so that what stays visible of them is the space the plan wastes at its peak.
    const bandTop = Math.max(0, Math.floor((y1 - Number(result.summary.makespan)) * sy));
    const bandBottom = Math.min(H, Math.floor((y1 - Number(inst.summary.max_load)) * sy));
    if (bandBottom > bandTop) {
      const frag = pack(t.frag), tint = blend(frag, bg, 0.1), hatch = blend(frag, bg, 0.4);
      const period = 9 * Math.max(1, Math.round(L.dpr));
      for (let y = bandTop; y < bandBottom; y++) {
        pixels.fill(tint, y * W, (y + 1) * W);
        for (let x = (period - (y % period)) % period; x < W; x += period) pixels[y * W + x] = hatch;
      }
    }
    const s = inst.startsF, e = inst.endsF, z = inst.sizesF, o = result.offsetsF;
    const colors = this.bufferColours;
    const edge = Math.max(1, Math.round(L.dpr));
    const { pieceStart, pieces } = inst;
    for (let k = 0; k < this.visibleCount; k++) {
      const i = this.visible[k];
      if (pieceStart.length > 0 && pieceStart[i + 1] > pieceStart[i]) {
        // A buffer with gaps: each live piece, a windowed one as high as its window.
        for (let p = pieceStart[i]; p < pieceStart[i + 1]; p++) {
          const q = 4 * p;
          this.paintRect(plot, colors[i], edge, pieces[q], pieces[q + 1], o[i] + pieces[q + 2], o[i] + pieces[q + 3], sx, sy);
        }
        continue;
      }
      this.paintRect(plot, colors[i], edge, s[i], e[i], o[i], o[i] + z[i], sx, sy);
    }
  }

  /** One rectangle, times [from, to) and addresses [low, high), with an outline when it is a few
   * pixels large. */
  private paintRect(plot: Plot, c: number, edge: number, from: number, to: number, low: number, high: number, sx: number, sy: number) {
    const { pixels, W, H } = plot;
    const { x0, y1 } = this.viewport;
    {
      let a = Math.floor((from - x0) * sx), b = Math.floor((to - x0) * sx);
      let top = Math.floor((y1 - high) * sy), bottom = Math.floor((y1 - low) * sy);
      if (b <= a) b = a + 1;
      if (bottom <= top) bottom = top + 1;
      const outline = b - a >= 4 * edge && bottom - top >= 4 * edge;
      const ra = a, rb = b, rt = top, rbot = bottom;
      if (a < 0) a = 0;
      if (b > W) b = W;
      if (top < 0) top = 0;
      if (bottom > H) bottom = H;
      if (a >= b || top >= bottom) return;
      for (let y = top; y < bottom; y++) pixels.fill(c, y * W + a, y * W + b);
      if (outline) {
        const d = darker(c);
        for (let y = top; y < bottom; y++) {
          if (y < rt + edge || y >= rbot - edge) pixels.fill(d, y * W + a, y * W + b);
          else {
            if (ra >= 0) pixels.fill(d, y * W + ra, y * W + Math.min(b, ra + edge));
            if (rb <= W) pixels.fill(d, y * W + Math.max(a, rb - edge), y * W + rb);
          }
        }
      }
    }
  }

  /** The plan's top edge per pixel column over the visible buffers (collected for `key`), for a
   * plot `W` pixels wide. */
  private computeEnvelope(key: WindowKey, W: number): Float64Array {
    const top = new Float64Array(W);
    this.accumulateEnvelope(key, top, 0, this.visibleCount);
    return top;
  }

  /** Raises `top` (one entry per pixel column) to the top of visible buffers `from` to `to`. */
  private accumulateEnvelope(key: WindowKey, top: Float64Array, from: number, to: number) {
    const { inst } = key.data, result = key.result;
    const { x0, x1 } = key;
    const W = top.length;
    const sx = W / (x1 - x0);
    const s = inst.startsF, e = inst.endsF, z = inst.sizesF, o = result.offsetsF;
    for (let k = from; k < to; k++) {
      const i = this.visible[k];
      const a = Math.max(0, Math.floor((s[i] - x0) * sx));
      const b = Math.min(W, Math.max(a + 1, Math.ceil((e[i] - x0) * sx)));
      const up = o[i] + z[i];
      for (let x = a; x < b; x++) if (top[x] < up) top[x] = up;
    }
  }

  /** Overview: the plan's top edge per pixel column, filled (the load curve is drawn over it). */
  private paintEnvelope(plot: Plot, top: Float64Array, t: Theme) {
    const { y0, y1 } = this.viewport;
    const { pixels, W, H } = plot;
    const sy = H / (y1 - y0);
    const fill = pack(t.frag, 255);
    for (let x = 0; x < W; x++) {
      if (top[x] <= y0) continue;
      const from = Math.max(0, Math.floor((y1 - top[x]) * sy));
      for (let y = from; y < H; y++) pixels[y * W + x] = fill;
    }
  }

  /** Grid lines at the axes' ticks, half transparent, over the rectangles or the envelope. */
  private paintGrid(plot: Plot, L: ReturnType<PlanView['layout']>, t: Theme, X: (x: number) => number, Y: (y: number) => number) {
    const vp = this.viewport;
    const columns = ticks(vp.x0, vp.x1, Math.max(2, L.pw / (110 * L.dpr))).map((v) => Math.round(X(v)) - L.left);
    const rows = ticks(vp.y0, vp.y1, Math.max(2, L.ph / (48 * L.dpr))).map((v) => Math.round(Y(v)) - L.top);
    paintGrid(plot, columns, rows, pack(t.grid), 0.5);
  }

  /** The load over time (a step function), its range per pixel column when steps are denser;
   * filled in the overview, an outline over the rectangles. */
  private paintLoadCurve(plot: Plot, data: PlanData, L: ReturnType<PlanView['layout']>, t: Theme, filled: boolean) {
    const vp = this.viewport;
    const cached = this.loadColumns;
    let columns: ColumnLoads;
    if (cached && cached.inst === data.inst && cached.x0 === vp.x0 && cached.x1 === vp.x1 && cached.columns.high.length === plot.W) {
      columns = cached.columns;
    } else {
      columns = columnLoads(data.inst.profileTimes, data.inst.profileLoads, vp.x0, vp.x1, plot.W);
      this.loadColumns = { inst: data.inst, x0: vp.x0, x1: vp.x1, columns };
    }
    paintLoadCurve(plot, columns, vp.y0, vp.y1, pack(t.load), filled, 0.8, Math.max(1, Math.round(1.25 * L.dpr)));
  }

  private hline(y: number, L: ReturnType<PlanView['layout']>, colour: string, label: string, dash: number[]) {
    const { ctx } = this;
    if (y < L.top - 1 || y > L.top + L.ph + 1) return;
    ctx.save();
    ctx.strokeStyle = colour;
    ctx.lineWidth = 1.5 * L.dpr;
    ctx.setLineDash(dash.map((d) => d * L.dpr));
    ctx.beginPath();
    ctx.moveTo(L.left, Math.round(y) + 0.5);
    ctx.lineTo(L.left + L.pw, Math.round(y) + 0.5);
    ctx.stroke();
    ctx.setLineDash([]);
    ctx.font = this.font(L.dpr);
    ctx.textAlign = 'right';
    ctx.textBaseline = 'bottom';
    const width = ctx.measureText(label).width;
    ctx.fillStyle = this.theme().bg;
    ctx.globalAlpha = 0.8;
    ctx.fillRect(L.left + L.pw - width - 8 * L.dpr, y - 13 * L.dpr, width + 6 * L.dpr, 12 * L.dpr);
    ctx.globalAlpha = 1;
    ctx.fillStyle = colour;
    ctx.fillText(label, L.left + L.pw - 5 * L.dpr, y - 2 * L.dpr);
    ctx.restore();
  }

  private drawLines(data: PlanData, L: ReturnType<PlanView['layout']>, t: Theme, Y: (y: number) => number) {
    const maxLoad = data.inst.summary.max_load;
    this.hline(Y(Number(maxLoad)), L, t.maxLoad, `L ${bytes(maxLoad)}`, [6, 4]);
    const r = data.result;
    if (r && drawable(r)) this.hline(Y(Number(r.summary.makespan)), L, t.makespan, `makespan ${bytes(Number(r.summary.makespan))}`, []);
    if (data.capacity !== null) this.hline(Y(data.capacity), L, t.capacity, `capacity ${bytes(data.capacity)}`, [2, 3]);
  }

  private rectOf(i: number, data: PlanData, result: SolveResult, X: (x: number) => number, Y: (y: number) => number) {
    const { inst } = data;
    const x = X(inst.startsF[i]), x2 = X(inst.endsF[i]);
    const y = Y(result.offsetsF[i] + inst.sizesF[i]), y2 = Y(result.offsetsF[i]);
    return { x, y, w: Math.max(1, x2 - x), h: Math.max(1, y2 - y) };
  }

  /** The selected buffer and its conflicts over a veil; the buffer being placed in a replay. */
  private drawHighlights(data: PlanData, result: SolveResult, t: Theme, X: (x: number) => number, Y: (y: number) => number, dpr: number) {
    const { ctx } = this;
    if (this.selected === null && this.marked) {
      ctx.fillStyle = t.plotBg;
      ctx.globalAlpha = 0.72;
      ctx.fillRect(0, 0, this.canvas.width, this.canvas.height);
      ctx.globalAlpha = 1;
      const colors = this.bufferColours;
      ctx.lineWidth = 1.5 * dpr;
      ctx.strokeStyle = t.select;
      for (const j of this.marked) {
        const r = this.rectOf(j, data, result, X, Y);
        ctx.fillStyle = `rgb(${colors[j] & 255},${(colors[j] >>> 8) & 255},${(colors[j] >>> 16) & 255})`;
        ctx.fillRect(r.x, r.y, r.w, r.h);
        ctx.strokeRect(r.x + 0.5, r.y + 0.5, r.w - 1, r.h - 1);
      }
    }
    if (this.selected !== null) {
      ctx.fillStyle = t.plotBg;
      ctx.globalAlpha = 0.72;
      ctx.fillRect(0, 0, this.canvas.width, this.canvas.height);
      ctx.globalAlpha = 1;
      const colors = this.bufferColours;
      const limit = this.conflicts ? Math.min(this.conflicts.length, 50_000) : 0;
      ctx.lineWidth = dpr;
      for (let k = 0; k < limit; k++) {
        const j = this.conflicts![k];
        if (this.replayCount !== null && this.rank && this.rank[j] >= this.replayCount) continue;
        const r = this.rectOf(j, data, result, X, Y);
        ctx.fillStyle = `rgb(${colors[j] & 255},${(colors[j] >>> 8) & 255},${(colors[j] >>> 16) & 255})`;
        ctx.fillRect(r.x, r.y, r.w, r.h);
        ctx.strokeStyle = t.conflict;
        ctx.strokeRect(r.x + 0.5, r.y + 0.5, r.w - 1, r.h - 1);
      }
      const r = this.rectOf(this.selected, data, result, X, Y);
      ctx.fillStyle = t.select;
      ctx.globalAlpha = 0.35;
      ctx.fillRect(r.x, r.y, r.w, r.h);
      ctx.globalAlpha = 1;
      ctx.strokeStyle = t.select;
      ctx.lineWidth = 2.5 * dpr;
      ctx.strokeRect(r.x, r.y, r.w, r.h);
    }
    if (this.replayCount !== null && this.replayCount > 0 && result.order.length) {
      const current = result.order[Math.min(this.replayCount, result.order.length) - 1];
      const r = this.rectOf(current, data, result, X, Y);
      ctx.strokeStyle = t.accent;
      ctx.lineWidth = 2.5 * dpr;
      ctx.strokeRect(r.x - 2 * dpr, r.y - 2 * dpr, r.w + 4 * dpr, r.h + 4 * dpr);
    }
    if (this.hover && this.hover.index !== this.selected) {
      const r = this.rectOf(this.hover.index, data, result, X, Y);
      ctx.strokeStyle = t.fg;
      ctx.lineWidth = 1.5 * dpr;
      ctx.strokeRect(r.x, r.y, r.w, r.h);
    }
  }

  private font(dpr: number) {
    const t = this.theme();
    return t.font.replace(/^(\d+)px/, (_, px) => `${Number(px) * dpr}px`);
  }

  private cachedTheme: Theme | null = null;
  private theme(): Theme {
    return (this.cachedTheme ??= theme(this.element));
  }

  private drawAxes(L: ReturnType<PlanView['layout']>, t: Theme, X: (x: number) => number, Y: (y: number) => number) {
    const { ctx } = this;
    const vp = this.viewport;
    ctx.fillStyle = t.muted;
    ctx.font = this.font(L.dpr);
    ctx.textAlign = 'center';
    ctx.textBaseline = 'top';
    for (const v of ticks(vp.x0, vp.x1, Math.max(2, L.pw / (110 * L.dpr)))) {
      const x = X(v);
      if (x < L.left - 1 || x > L.left + L.pw + 1) continue;
      ctx.fillText(compact(v), x, L.top + L.ph + 5 * L.dpr);
    }
    ctx.textAlign = 'right';
    ctx.textBaseline = 'middle';
    for (const v of ticks(vp.y0, vp.y1, Math.max(2, L.ph / (48 * L.dpr)))) {
      const y = Y(v);
      if (y < L.top - 1 || y > L.top + L.ph + 1) continue;
      ctx.fillText(bytes(v), L.left - 6 * L.dpr, y);
    }
  }

  /** The buffer under a canvas point (CSS pixels), among those drawn. */
  bufferAt(cssX: number, cssY: number): number | null {
    const data = this.data, result = data?.result;
    if (!data || !result || !drawable(result) || this.lastMode !== 'rectangles') return null;
    const { x, y } = this.toData(cssX, cssY);
    const { inst } = data;
    const s = inst.startsF, e = inst.endsF, z = inst.sizesF, o = result.offsetsF;
    // Pixel tolerance so that thin buffers can be picked.
    const L = this.layout();
    const tx = ((this.viewport.x1 - this.viewport.x0) / L.pw) * L.dpr * 1.5;
    const ty = ((this.viewport.y1 - this.viewport.y0) / L.ph) * L.dpr * 1.5;
    const { pieceStart, pieces } = inst;
    let best: number | null = null, bestArea = Infinity;
    for (let k = 0; k < this.visibleCount; k++) {
      const i = this.visible[k];
      if (s[i] - tx <= x && x < e[i] + tx && o[i] - ty <= y && y < o[i] + z[i] + ty) {
        // A buffer with gaps is only where it is drawn: one of its live pieces.
        if (pieceStart.length > 0 && pieceStart[i + 1] > pieceStart[i]) {
          let inPiece = false;
          for (let p = pieceStart[i]; p < pieceStart[i + 1] && !inPiece; p++) {
            const q = 4 * p;
            inPiece = pieces[q] - tx <= x && x < pieces[q + 1] + tx && o[i] + pieces[q + 2] - ty <= y && y < o[i] + pieces[q + 3] + ty;
          }
          if (!inPiece) continue;
        }
        // Exact hits win over near ones; then the smallest.
        const exact = s[i] <= x && x < e[i] && o[i] <= y && y < o[i] + z[i];
        const area = exact ? 0 : (e[i] - s[i]) * z[i];
        if (area < bestArea || (exact && bestArea > 0)) {
          best = i;
          bestArea = area;
          if (exact) break;
        }
      }
    }
    return best;
  }

  /** The canvas point (CSS pixels) of a time and an address: the inverse of `toData`. */
  fromData(time: number, address: number) {
    const L = this.layout();
    const vp = this.viewport;
    return {
      x: (L.left + ((time - vp.x0) / (vp.x1 - vp.x0)) * L.pw) / L.dpr,
      y: (L.top + ((vp.y1 - address) / (vp.y1 - vp.y0)) * L.ph) / L.dpr,
    };
  }

  toData(cssX: number, cssY: number) {
    const L = this.layout();
    const px = cssX * L.dpr - L.left, py = cssY * L.dpr - L.top;
    const vp = this.viewport;
    return {
      x: vp.x0 + (px / L.pw) * (vp.x1 - vp.x0),
      y: vp.y1 - (py / L.ph) * (vp.y1 - vp.y0),
      inside: px >= 0 && py >= 0 && px <= L.pw && py <= L.ph,
    };
  }

  /** Tooltip text for buffer i: exact values from the u64 columns. */
  describe(i: number): string {
    const data = this.data!;
    const { inst } = data;
    const id = inst.idText.slice(inst.idOffsets[i], inst.idOffsets[i + 1]);
    const rows: [string, string][] = [
      ['id', id],
      ['lifetime', `[${grouped(inst.starts[i])}, ${grouped(inst.ends[i])})`],
      ['size', `${grouped(inst.sizes[i])} B (${bytes(inst.sizes[i])})`],
    ];
    if (data.result) {
      rows.push(['offset', grouped(data.result.offsets[i])]);
      rows.push(['end address', grouped(data.result.offsets[i] + inst.sizes[i])]);
    }
    rows.push(['alignment', grouped(inst.alignments[i])]);
    const { pieceStart, pieces } = inst;
    if (pieceStart.length > 0 && pieceStart[i + 1] > pieceStart[i]) {
      const live = [];
      for (let p = pieceStart[i]; p < pieceStart[i + 1]; p++) {
        const q = 4 * p;
        const window = pieces[q + 2] > 0 || pieces[q + 3] < Number(inst.sizes[i]) ? ` bytes ${pieces[q + 2]}–${pieces[q + 3]}` : '';
        live.push(`${pieces[q]}–${pieces[q + 1]}${window}`);
      }
      rows.push(['alive', live.join(', ')]);
    }
    if (this.rank) rows.push(['placement step', `${grouped(this.rank[i] + 1)} of ${grouped(inst.n)}`]);
    if (inst.lines[i]) rows.push(['input line', String(inst.lines[i])]);
    return rows.map(([k, v]) => `<span>${k}</span><b>${v.replace(/</g, '&lt;')}</b>`).join('');
  }

  private showTooltip(index: number | null, cssX: number, cssY: number) {
    if (index === null) {
      this.tooltip.hidden = true;
      return;
    }
    this.tooltip.innerHTML = this.describe(index);
    this.tooltip.hidden = false;
    const box = this.element.getBoundingClientRect();
    const offsetTop = this.canvas.offsetTop;
    const tw = this.tooltip.offsetWidth, th = this.tooltip.offsetHeight;
    let x = cssX + 14, y = cssY + offsetTop + 14;
    if (x + tw > box.width) x = cssX - tw - 10;
    if (y + th > box.height) y = Math.max(0, cssY + offsetTop - th - 10);
    this.tooltip.style.transform = `translate(${x}px, ${y}px)`;
  }

  private attachInteractions() {
    const c = this.canvas;
    let drag: { x: number; y: number; moved: boolean; id: number } | null = null;
    let pendingHover: { x: number; y: number } | null = null;
    const local = (ev: MouseEvent) => {
      const r = c.getBoundingClientRect();
      return { x: ev.clientX - r.left, y: ev.clientY - r.top };
    };
    c.addEventListener(
      'wheel',
      (ev) => {
        ev.preventDefault();
        const p = local(ev);
        const d = this.toData(p.x, p.y);
        const factor = Math.exp(Math.max(-300, Math.min(300, ev.deltaY)) * 0.0018);
        const both = ev.ctrlKey || ev.altKey || ev.metaKey;
        this.viewport.zoom(factor, d.x, d.y, { x: both || !ev.shiftKey, y: both || ev.shiftKey });
      },
      { passive: false },
    );
    c.addEventListener('pointerdown', (ev) => {
      if (ev.button !== 0) return;
      const p = local(ev);
      drag = { ...p, moved: false, id: ev.pointerId };
      c.setPointerCapture(ev.pointerId);
    });
    c.addEventListener('pointermove', (ev) => {
      const p = local(ev);
      if (drag) {
        const dx = p.x - drag.x, dy = p.y - drag.y;
        if (!drag.moved && Math.hypot(dx, dy) < 3) return;
        drag.moved = true;
        const a = this.toData(drag.x, drag.y), b = this.toData(p.x, p.y);
        this.viewport.pan(a.x - b.x, a.y - b.y);
        drag.x = p.x;
        drag.y = p.y;
        this.tooltip.hidden = true;
        return;
      }
      if (pendingHover === null) {
        requestAnimationFrame(() => {
          const q = pendingHover!;
          pendingHover = null;
          const index = this.bufferAt(q.x, q.y);
          const changed = (this.hover?.index ?? null) !== index;
          this.hover = index === null ? null : { index, x: q.x, y: q.y };
          this.showTooltip(index, q.x, q.y);
          if (changed) this.draw();
        });
      }
      pendingHover = p;
    });
    c.addEventListener('pointerleave', () => {
      this.tooltip.hidden = true;
      if (this.hover) {
        this.hover = null;
        this.draw();
      }
    });
    c.addEventListener('pointerup', (ev) => {
      if (!drag) return;
      const wasClick = !drag.moved;
      c.releasePointerCapture(drag.id);
      drag = null;
      if (wasClick) {
        const p = local(ev);
        this.onSelect?.(this.bufferAt(p.x, p.y));
      }
    });
    c.addEventListener('dblclick', () => this.viewport.reset());
    c.addEventListener('keydown', (ev) => {
      const vp = this.viewport;
      const cx = (vp.x0 + vp.x1) / 2, cy = (vp.y0 + vp.y1) / 2;
      const w = vp.x1 - vp.x0, h = vp.y1 - vp.y0;
      const actions: Record<string, () => void> = {
        ArrowLeft: () => vp.pan(-w * 0.1, 0),
        ArrowRight: () => vp.pan(w * 0.1, 0),
        ArrowUp: () => vp.pan(0, h * 0.1),
        ArrowDown: () => vp.pan(0, -h * 0.1),
        '+': () => vp.zoom(0.8, cx, cy, { x: true, y: false }),
        '=': () => vp.zoom(0.8, cx, cy, { x: true, y: false }),
        '-': () => vp.zoom(1.25, cx, cy, { x: true, y: false }),
        '*': () => vp.zoom(0.8, cx, cy, { x: false, y: true }),
        '/': () => vp.zoom(1.25, cx, cy, { x: false, y: true }),
        '0': () => vp.reset(),
        Escape: () => this.onSelect?.(null),
      };
      const action = actions[ev.key];
      if (action) {
        ev.preventDefault();
        action();
      }
    });
  }
}
