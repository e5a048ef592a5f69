// The plot's pixel layers for a plan: the fragmentation band, the buffers' rectangles, and the
// overview's envelope, all written into the plot's pixels (see plotpixels.ts for why not paths).
//
// Level of detail: a valid plan's rectangles never overlap, so rasterising them is
// O(buffers + pixels); whatever is smaller than a pixel merges into the pixel it falls in, and
// rectangles a few pixels large get an outline.
import type { InstanceData, SolveResult } from '../protocol';
import { blend, darker } from './colors';
import type { Plot } from './plotpixels';
import type { Range } from './viewport';

/** The buffers a frame shows: `visible[0 .. count]` are buffer indices. */
export interface VisibleBuffers {
  visible: Uint32Array;
  count: number;
}

/** The rows between max load L and the makespan, tinted and hatched: drawn under the rectangles,
 * what stays visible of the band is the space the plan wastes at its peak. */
export function paintFragmentationBand(plot: Plot, range: Range, maxLoad: number, makespan: number, frag: number, bg: number, dpr: number) {
  const { pixels, W, H } = plot;
  const sy = H / (range.y1 - range.y0);
  const bandTop = Math.max(0, Math.floor((range.y1 - makespan) * sy));
  const bandBottom = Math.min(H, Math.floor((range.y1 - maxLoad) * sy));
  if (bandBottom <= bandTop) return;
  const tint = blend(frag, bg, 0.1), hatch = blend(frag, bg, 0.4);
  const period = 9 * Math.max(1, Math.round(dpr));
  for (let y = bandTop; y < bandBottom; y++) {
    pixels.fill(tint, y * W, (y + 1) * W);
    for (let x = (period - (y % period)) % period; x < W; x += period) pixels[y * W + x] = hatch;
  }
}

/** The visible buffers' rectangles in their colours (`colors`, packed, one per buffer); a buffer
 * with gaps is drawn as its live pieces. */
export function paintBuffers(plot: Plot, range: Range, inst: InstanceData, result: SolveResult, shown: VisibleBuffers, colors: Uint32Array, dpr: number) {
  const sx = plot.W / (range.x1 - range.x0), sy = plot.H / (range.y1 - range.y0);
  const s = inst.startsF, e = inst.endsF, z = inst.sizesF, o = result.offsetsF;
  const edge = Math.max(1, Math.round(dpr));
  const { pieceStart, pieces } = inst;
  for (let k = 0; k < shown.count; k++) {
    const i = shown.visible[k];
    if (pieceStart.length > 0 && pieceStart[i + 1] > pieceStart[i]) {
      // A buffer with gaps: each live piece, a windowed one as high as its window.
      for (let p = pieceStart[i]; p < pieceStart[i + 1]; p++) {
        const q = 4 * p;
        paintRect(plot, range, colors[i], edge, pieces[q], pieces[q + 1], o[i] + pieces[q + 2], o[i] + pieces[q + 3], sx, sy);
      }
      continue;
    }
    paintRect(plot, range, colors[i], edge, s[i], e[i], o[i], o[i] + z[i], sx, sy);
  }
}

/** Rectangles at most this many pixels wide are written pixel by pixel, not by fill(). */
const NARROW = 16;

/** One rectangle, times [from, to) and addresses [low, high), with an outline when it is a few
 * pixels large. */
function paintRect(plot: Plot, range: Range, c: number, edge: number, from: number, to: number, low: number, high: number, sx: number, sy: number) {
  const { pixels, W, H } = plot;
  const { x0, y1 } = range;
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
  if (b - a <= NARROW) {
    // Most rectangles of a large plan are a few pixels wide: a loop beats a fill() call per row.
    for (let y = top; y < bottom; y++) for (let k = y * W + a, end = y * W + b; k < end; k++) pixels[k] = c;
  } else {
    for (let y = top; y < bottom; y++) pixels.fill(c, y * W + a, y * W + b);
  }
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

/** Raises `top` (one entry per pixel column over times [x0, x1)) to the top of the visible
 * buffers `from` to `to`: the plan's top edge, for the overview. */
export function accumulateEnvelope(top: Float64Array, x0: number, x1: number, inst: InstanceData, result: SolveResult, visible: Uint32Array, from: number, to: number) {
  const W = top.length;
  const sx = W / (x1 - x0);
  const s = inst.startsF, e = inst.endsF, z = inst.sizesF, o = result.offsetsF;
  for (let k = from; k < to; k++) {
    const i = visible[k];
    const a = Math.max(0, Math.floor((s[i] - x0) * sx));
    const b = Math.min(W, Math.max(a + 1, Math.ceil((e[i] - x0) * sx)));
    const up = o[i] + z[i];
    for (let x = a; x < b; x++) if (top[x] < up) top[x] = up;
  }
}

/** Overview: the plan's top edge per pixel column, filled (the load curve is drawn over it). */
export function paintEnvelope(plot: Plot, range: Range, top: Float64Array, fill: number) {
  const { y0, y1 } = range;
  const { pixels, W, H } = plot;
  const sy = H / (y1 - y0);
  for (let x = 0; x < W; x++) {
    if (top[x] <= y0) continue;
    const from = Math.max(0, Math.floor((y1 - top[x]) * sy));
    for (let y = from; y < H; y++) pixels[y * W + x] = fill;
  }
}
