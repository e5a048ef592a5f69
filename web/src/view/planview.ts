// The plan view: time on x, address on y, one rectangle per buffer, drawn on a Canvas 2D. This
// class coordinates; each part that changes for its own reasons lives in its own module:
//   scales.ts, ticks.ts, axes.ts   the plot's geometry, its ticks, the axes and their titles
//   rectangles.ts, plotpixels.ts   the pixel layers: rectangles, envelope, grid, load curve
//   markers.ts, highlights.ts      the L / makespan / capacity lines; selection, hover, replay
//   inview.ts                      the buffers in the window (kept per window, or prepared in
//                                  background slices for a large plan)
//   timeblocks.ts                  the index by start that finds the buffers in a time window
//   labels.ts                      names (else ids) on the rectangles that have room for them
//   interaction.ts                 pointer and keyboard
//   minimap.ts                     the strip under the plot: the whole time span, the window
//   hoveroverlay.ts, tooltip.ts, alive.ts   what hovering shows: the buffer, the buffers alive then
//
// Level of detail: rectangles are rasterised into one ImageData (see rectangles.ts). When more
// than OVERVIEW_LIMIT buffers are in view (or the user asks for it), the view draws the load
// curve and the plan's top edge per pixel column instead: the gap between them is the
// fragmentation at that time. Never a DOM node per buffer.
import type { InstanceData, SolveResult } from '../protocol';
import { drawable } from '../verdict';
import { bytes, grouped } from '../format';
import { colourJob, pack, type ColorBy, type ColourJob } from './colors';
import { columnLoads, paintGrid, paintLoadCurve, type ColumnLoads, type Plot } from './plotpixels';
import type { Viewport } from './viewport';
import { frameOf, MARGIN, scalesOf, type Frame, type Scales } from './scales';
import { axisTicks, drawAxes, leftMarginFor, type AxisTicks } from './axes';
import { drawMarkers, type Marker } from './markers';
import { accumulateEnvelope, paintBuffers, paintEnvelope, paintFragmentationBand } from './rectangles';
import { drawHighlights } from './highlights';
import { attachInteractions, type Point } from './interaction';
import { aliveAt, type AliveAt } from './alive';
import { describeBuffer } from './tooltip';
import { InView, sameWindow, type WindowKey } from './inview';
import type { PlanData } from './plandata';
import { HoverOverlay, type HoverInfo } from './hoveroverlay';
import { fontAt, readTheme, type Theme } from './theme';
import { drawLabels, placeLabels, type PlacedLabel } from './labels';
import { Minimap, MINIMAP_HEIGHT } from './minimap';
import { PeakMarker, peakOf, peakWindow, type Peak } from './peak';

export const OVERVIEW_LIMIT = 200_000;

/** A new plan with more buffers than this has its first window prepared in the background. */
const BACKGROUND_LIMIT = 30_000;

export type Detail = 'auto' | 'rectangles' | 'load';

export type { PlanData } from './plandata';

export class PlanView {
  readonly canvas: HTMLCanvasElement;
  readonly element: HTMLElement;
  /** The time line, tooltip and alive list over the canvas while the pointer rests on it. */
  private overlay: HoverOverlay;
  private ctx: CanvasRenderingContext2D;
  private data: PlanData | null = null;
  private colorBy: ColorBy = 'size';
  private colors: Uint32Array | null = null;
  /** Each buffer's step in the placement order, computed when first needed (undefined: not yet). */
  private rankOf: Uint32Array | null | undefined = undefined;
  /** The buffers in the frame's window, the overview's envelope, and their background job. */
  private inView: InView;
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
  /** `marked` as one flag per buffer, for the labels (only the marked are labelled over the veil). */
  private markedFlags: Uint8Array | null = null;
  /** The ticks of the last frame (tests read their labels, see `tickLabels`). */
  private ticks: AxisTicks = { time: [], address: [] };
  /** Where the last frame put the marker lines' labels (top, device pixels), by marker name. */
  markerLabels = new Map<string, number>();
  /** The labels the last frame wrote on rectangles (tests read them; the canvas's data-labels
   * attribute holds their count). */
  lastLabels: PlacedLabel[] = [];
  /** How long the last frame's labels took (finding room and writing them), ms. */
  lastLabelMs = 0;
  /** How long the last frame's overview strip took, ms. */
  lastMinimapMs = 0;
  detail: Detail = 'auto';
  /** What the last frame drew: 'rectangles', 'load', or 'empty'. */
  lastMode = 'empty';
  lastDrawMs = 0;
  /** Frames drawn since the view was made (scripts/bench-page.mjs counts them per second). */
  framesDrawn = 0;
  onSelect: ((index: number | null) => void) | null = null;
  onModeChange: ((mode: string, visible: number) => void) | null = null;
  /** Called when the view gets a new instance or plan (the search box searches it again). */
  onData: ((data: PlanData | null) => void) | null = null;

  constructor(
    parent: HTMLElement,
    readonly viewport: Viewport,
    options: { testid?: string; title?: string; height?: number; minimap?: boolean; peak?: boolean } = {},
  ) {
    this.element = document.createElement('div');
    this.element.className = 'planview';
    if (options.height) this.element.style.height = `${options.height}px`;
    if (options.title) {
      const title = document.createElement('div');
      title.className = 'planview-title';
      title.textContent = options.title;
      title.title = options.title; // whole, should a narrow panel cut it
      this.element.append(title);
    }
    this.canvas = document.createElement('canvas');
    this.canvas.tabIndex = 0;
    if (options.testid) this.canvas.dataset.testid = options.testid;
    this.canvas.setAttribute('aria-label', 'memory plan: time on x, address on y');
    this.element.append(this.canvas);
    this.overlay = new HoverOverlay(this.element, options.testid);
    if (options.minimap) this.minimap = new Minimap(this.element, viewport, options.testid);
    if (options.peak) this.peakMark = new PeakMarker(this.element, () => this.jumpToPeak(), options.testid);
    parent.append(this.element);
    this.ctx = this.canvas.getContext('2d')!;
    this.inView = new InView({
      rank: () => this.rank,
      isOverview: (count) => this.isOverview(count),
      colourJob: () => this.colourJob(),
      keepColours: (colors) => this.keepColours(colors),
      draw: () => this.draw(),
    });
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
    attachInteractions(this.canvas, viewport, {
      toData: (x, y) => this.toData(x, y),
      hover: (point) => this.hoverAt(point),
      click: (point) => this.onSelect?.(this.bufferAt(point.x, point.y)),
      clearSelection: () => {
        this.unpin();
        this.onSelect?.(null);
      },
      zoomToSelection: () => this.zoomToSelection(),
    });
  }

  /** The overview strip under the plot (the page's main view has one). */
  private minimap: Minimap | null = null;
  /** The peak's mark on the time axis (the page's main view has one). */
  private peakMark: PeakMarker | null = null;
  /** The peak of the instance it was found for. */
  private peakFound: { inst: InstanceData; peak: Peak | null } | null = null;
  /** The time whose alive list stays shown while the pointer is away (a jump to the peak pins
   * it; Escape or another instance unpins it). */
  pinned: number | null = null;
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
    if (data?.inst !== this.data?.inst) this.pinned = null;
    this.data = data;
    this.rankOf = undefined;
    this.selected = null;
    this.conflicts = null;
    this.replayCount = null;
    this.hoverAt(null);
    this.recolour();
    this.onData?.(data);
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

  /** The colour mode (the PNG export's legend names it). */
  get colourMode(): ColorBy {
    return this.colorBy;
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
    this.minimap?.setMarks(indices);
    this.markedFlags = null;
    if (indices && this.data) {
      this.markedFlags = new Uint8Array(this.data.inst.n);
      for (const i of indices) this.markedFlags[i] = 1;
    }
    this.draw();
  }

  setSelection(index: number | null, conflicts: Uint32Array | null) {
    this.selected = index;
    this.conflicts = conflicts;
    this.draw();
  }

  /** The time of the instance's max load (its first step at L), or null without an instance. */
  get peak(): Peak | null {
    const inst = this.data?.inst;
    if (!inst) return null;
    if (this.peakFound?.inst !== inst) this.peakFound = { inst, peak: peakOf(inst) };
    return this.peakFound.peak;
  }

  /** Centres and zooms the view on the peak and pins the list of the buffers alive then. */
  jumpToPeak() {
    const peak = this.peak;
    if (!peak) return;
    this.pinned = peak.time;
    this.viewport.set(peakWindow(peak, this.viewport.fullRange));
    this.draw();
  }

  /** Lets the pinned alive list go. */
  unpin() {
    if (this.pinned === null) return;
    this.pinned = null;
    if (!this.hover) this.overlay.hide();
  }

  /** Shows the pinned time's alive list (the pointer is away), or hides the overlay. */
  private showPinned(frame: Frame, scales: Scales) {
    const data = this.data, time = this.pinned;
    const x = time === null ? NaN : scales.X(time);
    if (!data || time === null || x < frame.left || x > frame.left + frame.pw) return this.overlay.hide();
    const hover: HoverInfo = { index: null, time, x: x / frame.dpr, y: frame.top / frame.dpr };
    this.overlay.show(hover, data.inst, this.canvas, frame, (i) => this.describe(i), [...this.markerLabels.values()], true);
  }

  /** Where the peak's mark sits under the plot (canvas x, device pixels, with 3 px of air each
   * side), or null when it is not shown: the time labels leave it clear, else it covers one. */
  private peakClearance(frame: Frame, scales: Scales): [number, number] | null {
    const peak = this.peakMark ? this.peak : null;
    if (!peak) return null;
    const x = scales.X(peak.time);
    if (x < frame.left || x > frame.left + frame.pw) return null;
    const half = (this.peakMark!.width / 2 + 3) * frame.dpr;
    return [x - half, x + half];
  }

  /** Puts the peak's mark on the time axis, under the plot (hidden outside the window). */
  private placePeak(frame: Frame, scales: Scales) {
    if (!this.peakMark) return;
    const peak = this.peak;
    const x = peak ? scales.X(peak.time) : NaN;
    const inside = peak !== null && x >= frame.left && x <= frame.left + frame.pw;
    const title = peak ? `peak: ${bytes(peak.load)} alive at time ${grouped(Math.floor(peak.time))} (the max load L). Click to zoom there and list them` : '';
    this.peakMark.place(inside ? x / frame.dpr : null, this.canvasTop + (frame.top + frame.ph) / frame.dpr, title);
  }

  /** Shows the selected buffer with some room around it (Z or F on the canvas). */
  zoomToSelection() {
    const data = this.data, i = this.selected;
    if (!data?.result || i === null) return;
    const o = data.result.offsetsF[i];
    this.viewport.show({ x0: data.inst.startsF[i], x1: data.inst.endsF[i], y0: o, y1: o + data.inst.sizesF[i] });
  }

  private recolour() {
    this.colors = null;
    this.inView.cancel(); // it may be computing colours of the previous mode or plan
    this.draw();
  }

  /** One packed colour per buffer, computed when first needed (or a slice per task in the
   * background, see `InView.prepare`): at 10^5-10^6 buffers they take tens of ms. */
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
      this.framesDrawn++;
    });
  }

  /** Draws now (for PNG export and tests), the overview's envelope included. */
  renderNow() {
    this.render(false);
  }

  /** The labels of the last frame's ticks, left to right and bottom to top. */
  tickLabels(): { time: string[]; address: string[] } {
    return { time: this.ticks.time.map((t) => t.label), address: this.ticks.address.map((t) => t.label) };
  }

  /** The plot's distance from the canvas's left edge, CSS pixels: wider when the address labels
   * are (see `leftMarginFor`). */
  private leftMargin = MARGIN.left;
  /** The canvas's top in the view's element (under a title, if any), CSS pixels: read when the
   * canvas is sized, not in every frame (a read of a layout property in a frame may force one). */
  private canvasTop = 0;

  /** Sizes the canvas to its element and returns the frame. */
  private layout(): Frame {
    const dpr = window.devicePixelRatio || 1;
    const cssW = Math.max(120, this.element.clientWidth);
    const strip = this.minimap ? MINIMAP_HEIGHT : 0;
    const cssH = Math.max(80, this.element.clientHeight - strip - (this.element.querySelector('.planview-title')?.clientHeight ?? 0));
    const frame = frameOf(cssW, cssH, dpr, this.leftMargin);
    if (this.canvas.width !== frame.w || this.canvas.height !== frame.h) {
      this.canvas.width = frame.w;
      this.canvas.height = frame.h;
      this.canvas.style.width = `${cssW}px`;
      this.canvas.style.height = `${cssH}px`;
      this.canvasTop = this.canvas.offsetTop;
    }
    return frame;
  }

  /** `defer`: the first frame of a new plan may leave its large parts to the background. */
  private render(defer = true) {
    const { ctx } = this;
    if (!defer) this.inView.cancel(); // this frame computes everything itself
    let frame = this.layout();
    const t = this.theme();
    const vp = this.viewport;
    if (this.data) {
      // The address labels decide the left margin; the ticks are taken again in the frame it makes.
      const margin = leftMarginFor(ctx, axisTicks(frame, vp).address, t, frame.dpr);
      if (margin !== this.leftMargin) {
        this.leftMargin = margin;
        frame = this.layout();
      }
    }
    const scales = scalesOf(frame, vp);
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.fillStyle = t.bg;
    ctx.fillRect(0, 0, frame.w, frame.h);
    const data = this.data;
    let mode = 'empty';
    this.ticks = data ? axisTicks(frame, vp) : { time: [], address: [] };
    if (data) {
      // Everything inside the plot but the lines, labels and highlights goes into one ImageData:
      // rectangles or envelope, then the grid, then the load curve (see plotpixels.ts for why).
      const image = this.plotImage(frame);
      const plot: Plot = { pixels: new Uint32Array(image.data.buffer), W: frame.pw, H: frame.ph };
      plot.pixels.fill(pack(t.plotBg));
      const result = data.result;
      if (result && drawable(result)) mode = this.paintPlan(plot, frame, t, data, result, defer);
      else this.inView.cancel();
      this.paintGrid(plot, frame, t, scales);
      this.paintLoadCurve(plot, data, frame, t, mode !== 'rectangles');
      ctx.putImageData(image, frame.left, frame.top);
      ctx.save();
      ctx.beginPath();
      ctx.rect(frame.left, frame.top, frame.pw, frame.ph);
      ctx.clip();
      if (result && drawable(result) && mode === 'rectangles') {
        drawHighlights(ctx, frame, scales, t, {
          inst: data.inst,
          result,
          colors: () => this.bufferColours,
          marked: this.marked,
          selected: this.selected,
          conflicts: this.conflicts,
          replayCount: this.replayCount,
          rank: () => this.rank,
          hovered: this.hover?.index ?? null,
        });
      }
      const labelsBegan = performance.now();
      this.lastLabels = result && mode === 'rectangles' ? this.drawLabels(frame, scales, t, data, result) : [];
      this.lastLabelMs = performance.now() - labelsBegan;
      const labelCount = String(this.lastLabels.length);
      if (this.canvas.dataset.labels !== labelCount) this.canvas.dataset.labels = labelCount; // no DOM write per frame
      ctx.restore();
      // The L, makespan and capacity lines over the highlights' veil: marking the buffers that
      // moved must not fade the lines they are measured against.
      this.markerLabels = drawMarkers(ctx, frame, t, this.markers(data, t, scales));
      drawAxes(ctx, frame, scales, this.ticks, t, this.peakClearance(frame, scales));
    } else {
      this.inView.cancel();
      ctx.fillStyle = t.plotBg;
      ctx.fillRect(frame.left, frame.top, frame.pw, frame.ph);
    }
    ctx.strokeStyle = t.grid;
    ctx.lineWidth = 1;
    ctx.strokeRect(frame.left + 0.5, frame.top + 0.5, frame.pw - 1, frame.ph - 1);
    const stripBegan = performance.now();
    this.minimap?.draw(data?.inst ?? null, t, frame.cssW, frame.left / frame.dpr, (frame.left + frame.pw) / frame.dpr, frame.dpr);
    this.lastMinimapMs = performance.now() - stripBegan;
    this.placePeak(frame, scales);
    if (!this.hover && this.pinned !== null) this.showPinned(frame, scales);
    if (mode !== this.lastMode) this.onModeChange?.(mode, this.inView.count);
    this.lastMode = mode;
  }

  /** The plan's pixels (rectangles, or the overview's envelope); returns the mode drawn. */
  private paintPlan(plot: Plot, frame: Frame, t: Theme, data: PlanData, result: SolveResult, defer: boolean): string {
    const vp = this.viewport;
    const key: WindowKey = { data, result, x0: vp.x0, x1: vp.x1, y0: vp.y0, y1: vp.y1, replayCount: this.replayCount };
    // The first frame of a new plan with many buffers shows the load curve alone, and the
    // buffers in the window (then their colours, or the overview's envelope) are gathered in
    // the background, a slice per task: in one task, with the code still cold, they blocked
    // the page for more than 100 ms at 500k buffers (and ~60-120 ms at 62k on a loaded
    // machine). Later frames (zoom, pan) are warm and compute at once, so that nothing
    // flickers.
    const firstOfPlan = this.inView.key?.result !== result;
    const large = defer && firstOfPlan && data.inst.n > BACKGROUND_LIMIT;
    if (!sameWindow(this.inView.key, key) && !large) {
      // After an overview frame (panning zoomed out), the next is likely one too: its envelope is
      // raised while the buffers are collected, and kept if it is.
      const likelyOverview = this.detail === 'load' || (this.detail === 'auto' && this.lastMode === 'load' && this.inView.count > OVERVIEW_LIMIT);
      const top = likelyOverview ? new Float64Array(frame.pw) : null;
      this.inView.count = this.inView.collect(key, 0, data.inst.n, 0, top);
      this.inView.key = key;
      if (top && this.isOverview(this.inView.count)) this.inView.envelope = { key, width: frame.pw, top };
    }
    if (!sameWindow(this.inView.key, key)) {
      this.inView.prepare(key, frame.pw);
      return 'load';
    }
    if (this.isOverview(this.inView.count)) {
      if (sameWindow(this.inView.envelope?.key ?? null, key) && this.inView.envelope!.width === frame.pw) {
        paintEnvelope(plot, vp, this.inView.envelope!.top, pack(t.frag, 255));
      } else if (defer && this.inView.envelope?.key.result !== result && this.inView.count > OVERVIEW_LIMIT) {
        this.inView.prepare(key, frame.pw);
      } else {
        const top = new Float64Array(frame.pw);
        accumulateEnvelope(top, key.x0, key.x1, data.inst, result, this.inView.visible, 0, this.inView.count);
        this.inView.envelope = { key, width: frame.pw, top };
        paintEnvelope(plot, vp, top, pack(t.frag, 255));
      }
      return 'load';
    }
    paintFragmentationBand(plot, vp, Number(data.inst.summary.max_load), Number(result.summary.makespan), pack(t.frag), pack(t.plotBg), frame.dpr);
    paintBuffers(plot, vp, data.inst, result, this.inView, this.bufferColours, frame.dpr);
    return 'rectangles';
  }

  /** Names (else ids) on the rectangles in view that have room for them (see labels.ts); over a
   * veil, only on the buffers it leaves clear (the selected one, or those marked). */
  private drawLabels(frame: Frame, scales: Scales, t: Theme, data: PlanData, result: SolveResult): PlacedLabel[] {
    const { ctx } = this;
    const font = fontAt(t, frame.dpr);
    ctx.font = font;
    const charWidth = ctx.measureText('0').width;
    const selected = this.selected, flags = this.markedFlags;
    const shown = selected !== null ? { visible: Uint32Array.of(selected), count: 1 } : this.inView;
    const labels = placeLabels(frame, scales, data.inst, result, shown, { charWidth, lineHeight: 11 * frame.dpr, pad: 3 * frame.dpr }, selected === null && flags ? (i) => flags[i] === 1 : null);
    drawLabels(ctx, labels, this.bufferColours, font);
    return labels;
  }

  /** The max load L, the makespan and the capacity as lines. */
  private markers(data: PlanData, t: Theme, scales: Scales): Marker[] {
    const maxLoad = Number(data.inst.summary.max_load);
    const out: Marker[] = [{ name: 'max-load', y: scales.Y(maxLoad), colour: t.maxLoad, label: `L ${bytes(maxLoad)}`, dash: [6, 4] }];
    const r = data.result;
    if (r && drawable(r)) {
      const makespan = Number(r.summary.makespan);
      out.push({ name: 'makespan', y: scales.Y(makespan), colour: t.makespan, label: `makespan ${bytes(makespan)}`, dash: [] });
    }
    if (data.capacity !== null) out.push({ name: 'capacity', y: scales.Y(data.capacity), colour: t.capacity, label: `capacity ${bytes(data.capacity)}`, dash: [2, 3] });
    return out;
  }

  /** The overview (load curve and envelope) instead of rectangles, for this many buffers in view. */
  private isOverview(visibleCount: number): boolean {
    return this.detail === 'load' || (this.detail === 'auto' && visibleCount > OVERVIEW_LIMIT);
  }

  /** True when no frame or background work is pending: what is on the canvas is complete. */
  get settled(): boolean {
    return !this.scheduled && this.inView.idle;
  }

  private plotImage(frame: Frame): ImageData {
    if (!this.image || this.image.width !== frame.pw || this.image.height !== frame.ph) this.image = new ImageData(frame.pw, frame.ph);
    return this.image;
  }

  /** Grid lines at the axes' ticks, half transparent, over the rectangles or the envelope. */
  private paintGrid(plot: Plot, frame: Frame, t: Theme, scales: Scales) {
    const columns = this.ticks.time.map((tick) => Math.round(scales.X(tick.value)) - frame.left);
    const rows = this.ticks.address.map((tick) => Math.round(scales.Y(tick.value)) - frame.top);
    paintGrid(plot, columns, rows, pack(t.grid), 0.5);
  }

  /** The load over time (a step function), its range per pixel column when steps are denser;
   * filled in the overview, an outline over the rectangles. */
  private paintLoadCurve(plot: Plot, data: PlanData, frame: Frame, t: Theme, filled: boolean) {
    const vp = this.viewport;
    const cached = this.loadColumns;
    let columns: ColumnLoads;
    if (cached && cached.inst === data.inst && cached.x0 === vp.x0 && cached.x1 === vp.x1 && cached.columns.high.length === plot.W) {
      columns = cached.columns;
    } else {
      columns = columnLoads(data.inst.profileTimes, data.inst.profileLoads, vp.x0, vp.x1, plot.W);
      this.loadColumns = { inst: data.inst, x0: vp.x0, x1: vp.x1, columns };
    }
    paintLoadCurve(plot, columns, vp.y0, vp.y1, pack(t.load), filled, 0.8, Math.max(1, Math.round(1.25 * frame.dpr)));
  }

  private cachedTheme: Theme | null = null;
  /** The colours and font, read from CSS once (again when the colour scheme changes). */
  theme(): Theme {
    return (this.cachedTheme ??= readTheme(this.element));
  }

  /** The buffer under a canvas point (CSS pixels), among those drawn. */
  bufferAt(cssX: number, cssY: number): number | null {
    const data = this.data, result = data?.result;
    if (!data || !result || !drawable(result) || this.lastMode !== 'rectangles') return null;
    const { x, y } = this.toData(cssX, cssY);
    const { inst } = data;
    const s = inst.startsF, e = inst.endsF, z = inst.sizesF, o = result.offsetsF;
    // Pixel tolerance so that thin buffers can be picked.
    const frame = this.layout();
    const tx = ((this.viewport.x1 - this.viewport.x0) / frame.pw) * frame.dpr * 1.5;
    const ty = ((this.viewport.y1 - this.viewport.y0) / frame.ph) * frame.dpr * 1.5;
    const { pieceStart, pieces } = inst;
    let best: number | null = null, bestArea = Infinity;
    for (let k = 0; k < this.inView.count; k++) {
      const i = this.inView.visible[k];
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
    const frame = this.layout();
    const scales = scalesOf(frame, this.viewport);
    return { x: scales.X(time) / frame.dpr, y: scales.Y(address) / frame.dpr };
  }

  /** The time and address under a canvas point (CSS pixels), and whether it is inside the plot. */
  toData(cssX: number, cssY: number) {
    const frame = this.layout();
    const scales = scalesOf(frame, this.viewport);
    const px = cssX * frame.dpr, py = cssY * frame.dpr;
    return {
      x: scales.time(px),
      y: scales.address(py),
      inside: px >= frame.left && py >= frame.top && px <= frame.left + frame.pw && py <= frame.top + frame.ph,
    };
  }

  /** Tooltip rows for buffer i: exact values from the u64 columns. */
  describe(i: number): string {
    const data = this.data!;
    return describeBuffer(data.inst, data.result, this.rank, i);
  }

  /** The buffers alive at `time` (the hover list's content; tests compare it with the instance). */
  aliveAt(time: number, limit = 10): AliveAt | null {
    return this.data ? aliveAt(this.data.inst, time, limit) : null;
  }

  /** The pointer rests at a canvas point (CSS pixels), or left (null): the buffer under it gets
   * the tooltip, and the time under it (over the plot or the time axis) the alive list. */
  private hoverAt(point: Point | null) {
    const previous = this.hover;
    this.hover = null;
    const data = this.data;
    if (point && data) {
      const frame = this.layout();
      const px = point.x * frame.dpr, py = point.y * frame.dpr;
      const overTime = px >= frame.left && px <= frame.left + frame.pw && py >= frame.top && py <= frame.h;
      if (overTime) {
        const hover: HoverInfo = { index: this.bufferAt(point.x, point.y), time: this.toData(point.x, point.y).x, x: point.x, y: point.y };
        this.hover = hover;
        this.overlay.show(hover, data.inst, this.canvas, frame, (i) => this.describe(i), [...this.markerLabels.values()]);
      }
    }
    if (!this.hover) {
      const frame = this.layout();
      this.showPinned(frame, scalesOf(frame, this.viewport));
    }
    if ((previous?.index ?? null) !== (this.hover?.index ?? null)) this.draw();
  }

  /** How long the last hover's alive list took to compute, ms. */
  get lastAliveMs(): number {
    return this.overlay.lastAliveMs;
  }
}
