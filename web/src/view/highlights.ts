// What the plot draws over its rectangles with Canvas 2D: the buffers marked (over a veil), the
// selected buffer and its conflicts (over a veil), the buffer being placed in a replay, the
// hovered buffer.
import type { InstanceData, SolveResult } from '../protocol';
import { unpack } from './colors';
import type { Frame, Scales } from './scales';
import type { Theme } from './theme';

/** At most this many conflicts (or marked buffers) are drawn around a selection (each is a canvas
 * call). */
const CONFLICT_LIMIT = 50_000;

export interface HighlightState {
  inst: InstanceData;
  result: SolveResult;
  colors: () => Uint32Array;
  marked: Uint32Array | null;
  selected: number | null;
  conflicts: Uint32Array | null;
  replayCount: number | null;
  rank: () => Uint32Array | null;
  hovered: number | null;
}

/** Buffer i's rectangle (its hull) on the canvas, at least a pixel each way. */
export function rectOf(i: number, inst: InstanceData, result: SolveResult, scales: Scales) {
  const x = scales.X(inst.startsF[i]), x2 = scales.X(inst.endsF[i]);
  const y = scales.Y(result.offsetsF[i] + inst.sizesF[i]), y2 = scales.Y(result.offsetsF[i]);
  return { x, y, w: Math.max(1, x2 - x), h: Math.max(1, y2 - y) };
}

function veil(ctx: CanvasRenderingContext2D, frame: Frame, theme: Theme) {
  ctx.fillStyle = theme.plotBg;
  ctx.globalAlpha = 0.72;
  ctx.fillRect(0, 0, frame.w, frame.h);
  ctx.globalAlpha = 1;
}

/** Draws the highlights; the caller clips to the plot. */
export function drawHighlights(ctx: CanvasRenderingContext2D, frame: Frame, scales: Scales, theme: Theme, state: HighlightState) {
  const { inst, result, selected } = state;
  const dpr = frame.dpr;
  const rect = (i: number) => rectOf(i, inst, result, scales);
  if (selected === null && state.marked) {
    veil(ctx, frame, theme);
    const colors = state.colors();
    ctx.lineWidth = 1.5 * dpr;
    ctx.strokeStyle = theme.select;
    // Only those in the plot, and at most CONFLICT_LIMIT: a search may mark most of 500k buffers.
    let drawn = 0;
    for (let k = 0; k < state.marked.length && drawn < CONFLICT_LIMIT; k++) {
      const j = state.marked[k];
      const r = rect(j);
      if (r.x > frame.left + frame.pw || r.x + r.w < frame.left || r.y > frame.top + frame.ph || r.y + r.h < frame.top) continue;
      drawn++;
      ctx.fillStyle = unpack(colors[j]);
      ctx.fillRect(r.x, r.y, r.w, r.h);
      ctx.strokeRect(r.x + 0.5, r.y + 0.5, r.w - 1, r.h - 1);
    }
  }
  if (selected !== null) {
    veil(ctx, frame, theme);
    const colors = state.colors();
    const conflicts = state.conflicts;
    const limit = conflicts ? Math.min(conflicts.length, CONFLICT_LIMIT) : 0;
    const rank = state.replayCount !== null ? state.rank() : null;
    ctx.lineWidth = dpr;
    ctx.strokeStyle = theme.conflict;
    for (let k = 0; k < limit; k++) {
      const j = conflicts![k];
      if (rank && rank[j] >= state.replayCount!) continue;
      const r = rect(j);
      ctx.fillStyle = unpack(colors[j]);
      ctx.fillRect(r.x, r.y, r.w, r.h);
      ctx.strokeRect(r.x + 0.5, r.y + 0.5, r.w - 1, r.h - 1);
    }
    const r = rect(selected);
    ctx.fillStyle = theme.select;
    ctx.globalAlpha = 0.35;
    ctx.fillRect(r.x, r.y, r.w, r.h);
    ctx.globalAlpha = 1;
    ctx.strokeStyle = theme.select;
    ctx.lineWidth = 2.5 * dpr;
    ctx.strokeRect(r.x, r.y, r.w, r.h);
  }
  if (state.replayCount !== null && state.replayCount > 0 && result.order.length) {
    const current = result.order[Math.min(state.replayCount, result.order.length) - 1];
    const r = rect(current);
    ctx.strokeStyle = theme.accent;
    ctx.lineWidth = 2.5 * dpr;
    ctx.strokeRect(r.x - 2 * dpr, r.y - 2 * dpr, r.w + 4 * dpr, r.h + 4 * dpr);
  }
  if (state.hovered !== null && state.hovered !== selected) {
    const r = rect(state.hovered);
    ctx.strokeStyle = theme.fg;
    ctx.lineWidth = 1.5 * dpr;
    ctx.strokeRect(r.x, r.y, r.w, r.h);
  }
}
