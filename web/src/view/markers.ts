// The plot's horizontal marker lines: the max load L (no plan can be lower), the plan's makespan
// and the capacity, each labelled at the right edge. Their labels are spread apart when the lines
// are close (see labelspacing.ts), so that all three stay readable.
import { spreadLabels } from './labelspacing';
import type { Frame } from './scales';
import { fontAt, type Theme } from './theme';

export interface Marker {
  /** Which line: also the key tests read. */
  name: 'max-load' | 'makespan' | 'capacity';
  /** Canvas y of the line (device pixels). */
  y: number;
  colour: string;
  label: string;
  /** Dash pattern in CSS pixels (empty: solid). */
  dash: number[];
}

/** Draws the lines in the plot and their labels; returns where each label went (its top, device
 * pixels) for the markers inside the plot. */
export function drawMarkers(ctx: CanvasRenderingContext2D, frame: Frame, theme: Theme, markers: Marker[]): Map<string, number> {
  const { dpr, left, top, pw, ph } = frame;
  const shown = markers.filter((m) => m.y >= top - 1 && m.y <= top + ph + 1);
  ctx.save();
  ctx.beginPath();
  ctx.rect(left, top, pw, ph);
  ctx.clip();
  ctx.lineWidth = 1.5 * dpr;
  for (const m of shown) {
    ctx.strokeStyle = m.colour;
    ctx.setLineDash(m.dash.map((d) => d * dpr));
    ctx.beginPath();
    ctx.moveTo(left, Math.round(m.y) + 0.5);
    ctx.lineTo(left + pw, Math.round(m.y) + 0.5);
    ctx.stroke();
  }
  ctx.setLineDash([]);
  // Each label wants to sit just above its line.
  const height = 13 * dpr;
  const places = spreadLabels(shown.map((m) => ({ y: m.y - height - dpr, height })), top, top + ph);
  ctx.font = fontAt(theme, dpr);
  ctx.textAlign = 'right';
  ctx.textBaseline = 'bottom';
  const placed = new Map<string, number>();
  shown.forEach((m, k) => {
    const y = places[k];
    const width = ctx.measureText(m.label).width;
    ctx.fillStyle = theme.bg;
    ctx.globalAlpha = 0.85;
    ctx.fillRect(left + pw - width - 8 * dpr, y, width + 6 * dpr, height - dpr);
    ctx.globalAlpha = 1;
    ctx.fillStyle = m.colour;
    ctx.fillText(m.label, left + pw - 5 * dpr, y + height - 2 * dpr);
    placed.set(m.name, y);
  });
  ctx.restore();
  return placed;
}
