// The plot's background layers written straight into its pixels (the ImageData that also holds the
// rectangles or the overview's envelope): the grid and the load curve, per pixel column.
//
// Why not Canvas 2D paths: Chromium records path drawing and rasterises it when the frame is
// committed, on the main thread. At 500k buffers the load curve is a path of thousands of vertices,
// filled with transparency and stroked with antialiasing; its rasterisation took ~22 ms of CPU in
// every overview frame's commit (40-100 ms of wall time on a loaded 2-core machine: most of the
// page's longest task). Written here it costs a few ms of script, and the commit only copies pixels.
import { blend } from './colors';

/** Pixels of a plot W wide and H high, row 0 at the top of the window (address y1). */
export interface Plot {
  pixels: Uint32Array;
  W: number;
  H: number;
}

/** The load curve reduced to pixel columns: the lowest and highest load alive in each. */
export interface ColumnLoads {
  /** NaN where the profile has no step: before the first allocation and after the last free. */
  low: Float64Array;
  high: Float64Array;
}

/**
 * The load profile's range in each of `width` pixel columns spanning times [x0, x1), from its
 * steps (from `times[i]` on, `loads[i]` bytes are alive): O(steps in view + width), and when many
 * steps fall inside one column, O(log) per column (see `stepExtremes`): zoomed out, a large
 * instance has hundreds of steps per column.
 */
export function columnLoads(times: Float64Array, loads: Float64Array, x0: number, x1: number, width: number): ColumnLoads {
  const low = new Float64Array(width).fill(NaN), high = new Float64Array(width).fill(NaN);
  const m = times.length;
  if (m === 0 || width <= 0) return { low, high };
  const sx = width / (x1 - x0);
  // The first step that may be visible: the last one starting at or before x0.
  let lo = 0, hi = m;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (times[mid] <= x0) lo = mid + 1;
    else hi = mid;
  }
  // Whether step p is not wholly inside column c: it starts in a later column or ends past this one
  // (the same arithmetic as below, so that the answer is the loop's own).
  const leaves = (p: number, c: number) => (times[p] - x0) * sx >= c + 1 || (times[p + 1] - x0) * sx > c + 1;
  for (let i = Math.max(0, lo - 1); i < m; i++) {
    const from = (times[i] - x0) * sx;
    if (from >= width) break;
    // A step covers [from, to) in pixel units; the last one (the final free) is a point.
    const to = i + 1 < m ? (times[i + 1] - x0) * sx : from;
    let a = Math.floor(from), b = Math.ceil(to) - 1;
    if (b < a) b = a;
    if (a === b && a >= 0 && a < width - 1 && i + 2 < m && !leaves(i + 1, a)) {
      // Steps i, i + 1, ... all inside column a (never the last step): find where they stop,
      // galloping then halving, and take their extremes at once.
      let inside = i + 1, step = 1, outside = m - 1;
      while (inside + step < m - 1 && !leaves(inside + step, a)) {
        inside += step;
        step *= 2;
      }
      if (inside + step < m - 1) outside = inside + step;
      while (outside - inside > 1) {
        const mid = (inside + outside) >> 1;
        if (leaves(mid, a)) outside = mid;
        else inside = mid;
      }
      stepExtremes(loads, i, outside);
      if (!(high[a] >= extremes.max)) high[a] = extremes.max;
      if (!(low[a] <= extremes.min)) low[a] = extremes.min;
      i = outside - 1;
      continue;
    }
    if (a < 0) a = 0;
    if (b >= width) b = width - 1;
    const load = loads[i];
    // The negated tests are also true for NaN, an empty column.
    for (let c = a; c <= b; c++) {
      if (!(high[c] >= load)) high[c] = load;
      if (!(low[c] <= load)) low[c] = load;
    }
  }
  return { low, high };
}

/** Steps per block of `loadBlocks`. */
const STEP_BLOCK = 32;
/** The lowest and highest load of each block of STEP_BLOCK steps, per profile (built on first use). */
const blocksOfLoads = new WeakMap<Float64Array, { min: Float64Array; max: Float64Array }>();
/** What `stepExtremes` found (one object, not one per column). */
const extremes = { min: 0, max: 0 };

/** Sets `extremes` to the lowest and highest of `loads[from]` to `loads[to - 1]` (to > from): whole blocks
 * from their summary, the ends one by one. */
function stepExtremes(loads: Float64Array, from: number, to: number) {
  let min = Infinity, max = -Infinity;
  let i = from;
  if (to - from >= 2 * STEP_BLOCK) {
    let blocks = blocksOfLoads.get(loads);
    if (!blocks) {
      const count = Math.floor(loads.length / STEP_BLOCK);
      blocks = { min: new Float64Array(count), max: new Float64Array(count) };
      for (let k = 0; k < count; k++) {
        let low = Infinity, high = -Infinity;
        for (let p = k * STEP_BLOCK; p < (k + 1) * STEP_BLOCK; p++) {
          if (loads[p] < low) low = loads[p];
          if (loads[p] > high) high = loads[p];
        }
        blocks.min[k] = low;
        blocks.max[k] = high;
      }
      blocksOfLoads.set(loads, blocks);
    }
    const firstBlock = Math.ceil(from / STEP_BLOCK), lastBlock = Math.floor(to / STEP_BLOCK);
    for (; i < firstBlock * STEP_BLOCK; i++) {
      if (loads[i] < min) min = loads[i];
      if (loads[i] > max) max = loads[i];
    }
    for (let k = firstBlock; k < lastBlock; k++) {
      if (blocks.min[k] < min) min = blocks.min[k];
      if (blocks.max[k] > max) max = blocks.max[k];
    }
    i = lastBlock * STEP_BLOCK;
  }
  for (; i < to; i++) {
    if (loads[i] < min) min = loads[i];
    if (loads[i] > max) max = loads[i];
  }
  extremes.min = min;
  extremes.max = max;
}

/** Blends `colour` at `alpha` over the pixels of the given columns and rows (each pixel once). */
export function paintGrid(plot: Plot, columns: number[], rows: number[], colour: number, alpha: number) {
  const { pixels, W, H } = plot;
  const blended = memoBlend(colour, alpha);
  const isRow = new Uint8Array(H), isColumn = new Uint8Array(W);
  for (const y of rows) {
    if (y < 0 || y >= H || isRow[y]) continue;
    isRow[y] = 1;
    for (let k = y * W, end = k + W; k < end; k++) pixels[k] = blended(pixels[k]);
  }
  for (const x of columns) {
    if (x < 0 || x >= W || isColumn[x]) continue;
    isColumn[x] = 1;
    for (let y = 0; y < H; y++) if (!isRow[y]) pixels[y * W + x] = blended(pixels[y * W + x]);
  }
}

/**
 * The load curve of `columns` (see `columnLoads`) for addresses [y0, y1): with `fill`, the area
 * under each column's highest load blended at `fillAlpha`; then its outline, `line` pixels thick
 * and opaque: in each column a vertical run over the load's range there, joined to the previous
 * column's (and to zero where the curve starts and ends), so that a step is a corner and a column
 * where the load went up and down shows how far.
 */
export function paintLoadCurve(plot: Plot, columns: ColumnLoads, y0: number, y1: number, colour: number, fill: boolean, fillAlpha: number, line: number) {
  const { pixels, W, H } = plot;
  const { low, high } = columns;
  const sy = H / (y1 - y0);
  // Row of an address: may fall outside [0, H) (clamped where drawn).
  const row = (v: number) => Math.floor((y1 - v) * sy);
  const zero = row(0);
  const clampRow = (r: number) => (r < 0 ? 0 : r > H ? H : r);
  if (fill) {
    // Row by row (the pixels' order in memory), each column from its peak down to zero.
    const tops = new Int32Array(W);
    let first = H;
    for (let x = 0; x < W; x++) {
      const v = high[x];
      tops[x] = v !== v ? H : clampRow(row(v));
      if (tops[x] < first) first = tops[x];
    }
    const bottom = clampRow(zero);
    const blended = memoBlend(colour, fillAlpha);
    for (let y = first; y < bottom; y++) {
      for (let x = 0, k = y * W; x < W; x++, k++) {
        if (tops[x] <= y) pixels[k] = blended(pixels[k]);
      }
    }
  }
  // The window's edge columns do not drop to zero: the curve may go on outside.
  let previousLow = NaN, previousHigh = NaN;
  for (let x = 0; x < W; x++) {
    const highest = high[x], lowest = low[x];
    if (highest !== highest) {
      previousLow = previousHigh = NaN;
      continue;
    }
    let top = highest, bottom = lowest;
    if (previousLow === previousLow) {
      // Joined to the previous column's range.
      if (top < previousLow) top = previousLow;
      if (bottom > previousHigh) bottom = previousHigh;
    } else if (x > 0) {
      bottom = Math.min(bottom, 0); // the curve starts here
    }
    if (x + 1 < W && high[x + 1] !== high[x + 1]) bottom = Math.min(bottom, 0); // and ends here
    const from = clampRow(row(top)), to = clampRow(row(bottom) + line);
    for (let dx = 0; dx < line && x + dx < W; dx++) {
      for (let y = from, k = y * W + x + dx; y < to; y++, k += W) pixels[k] = colour;
    }
    previousLow = lowest;
    previousHigh = highest;
  }
}

/** `colour` at `alpha` over a pixel, remembering the last result: plots have few distinct colours. */
function memoBlend(colour: number, alpha: number): (under: number) => number {
  let under = -1, over = 0;
  return (pixel) => {
    if (pixel !== under) {
      under = pixel;
      over = blend(colour, pixel, alpha);
    }
    return over;
  };
}
