// The plot's axes: ticks for its window, their labels outside the plot, and the axis titles.
// The grid lines inside the plot are drawn at the same ticks (see plotpixels.ts's paintGrid).
import type { Range } from './viewport';
import { MARGIN, tickCounts, type Frame, type Scales } from './scales';
import { binaryTicks, timeTicks, type Tick } from './ticks';
import { fontAt, type Theme } from './theme';

export interface AxisTicks {
  time: Tick[];
  address: Tick[];
}

/** The ticks a frame shows for a window. */
export function axisTicks(frame: Frame, range: Range): AxisTicks {
  const count = tickCounts(frame);
  return { time: timeTicks(range.x0, range.x1, count.x), address: binaryTicks(range.y0, range.y1, count.y) };
}

export const TIME_TITLE = 'time (step)';
export const ADDRESS_TITLE = 'address';

/** Tick labels under and left of the plot, and each axis's title. `keepClear` (canvas x, device
 * pixels, from-to) is a stretch under the plot where something else sits (the peak's mark): a
 * time label that would reach into it is left out, its tick kept. */
export function drawAxes(ctx: CanvasRenderingContext2D, frame: Frame, scales: Scales, ticks: AxisTicks, theme: Theme, keepClear: [number, number] | null = null) {
  const { dpr, left, top, pw, ph } = frame;
  ctx.save();
  ctx.fillStyle = theme.muted;
  ctx.strokeStyle = theme.muted;
  ctx.lineWidth = dpr;
  ctx.font = fontAt(theme, dpr);
  ctx.textAlign = 'center';
  ctx.textBaseline = 'top';
  const bottom = top + ph;
  for (const tick of ticks.time) {
    const x = Math.round(scales.X(tick.value)) + 0.5;
    if (x < left - 1 || x > left + pw + 1) continue;
    ctx.beginPath();
    ctx.moveTo(x, bottom);
    ctx.lineTo(x, bottom + 3 * dpr);
    ctx.stroke();
    if (keepClear) {
      const half = ctx.measureText(tick.label).width / 2;
      if (x + half > keepClear[0] && x - half < keepClear[1]) continue;
    }
    ctx.fillText(tick.label, x, bottom + 5 * dpr);
  }
  ctx.textAlign = 'right';
  ctx.textBaseline = 'middle';
  for (const tick of ticks.address) {
    const y = Math.round(scales.Y(tick.value)) + 0.5;
    if (y < top - 1 || y > bottom + 1) continue;
    ctx.beginPath();
    ctx.moveTo(left - 3 * dpr, y);
    ctx.lineTo(left, y);
    ctx.stroke();
    ctx.fillText(tick.label, left - 6 * dpr, y);
  }
  // Titles: time centred under the tick labels, address turned along the left edge (the left
  // margin leaves it room, see `leftMarginFor`).
  ctx.fillStyle = theme.fg;
  ctx.font = fontAt(theme, dpr, '600 ');
  ctx.textAlign = 'center';
  ctx.textBaseline = 'bottom';
  ctx.fillText(TIME_TITLE, left + pw / 2, frame.h - 2 * dpr);
  ctx.translate(3 * dpr, top + ph / 2);
  ctx.rotate(-Math.PI / 2);
  ctx.textBaseline = 'top';
  ctx.fillText(ADDRESS_TITLE, 0, 0);
  ctx.restore();
}

/** The left margin (CSS pixels) that fits the address title and the widest of these tick labels:
 * the default one, unless a label such as `1023.75 KiB` (zoomed far in) needs more. */
export function leftMarginFor(ctx: CanvasRenderingContext2D, ticks: Tick[], theme: Theme, dpr: number): number {
  ctx.save();
  ctx.font = fontAt(theme, dpr);
  let widest = 0;
  for (const tick of ticks) widest = Math.max(widest, ctx.measureText(tick.label).width);
  ctx.restore();
  // 3 px, the title (~12 px), 4 px of air, the label, 6 px to the axis.
  return Math.max(MARGIN.left, Math.ceil(widest / dpr + 25));
}
