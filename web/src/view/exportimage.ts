// The PNG export: the plan view's canvas under a title strip that says what the picture is (the
// instance, the solver, the makespan, the max load L, the fragmentation) and a legend of the
// colours (a gradient, or one swatch per category), so that a picture shared alone still reads.
import { bytes, grouped, percent } from '../format';
import { drawable } from '../verdict';
import { COLOR_MODES, LEGEND_ENDS, legendStops } from './colors';
import { categoriesPresent, categoryColour } from './categories';
import type { PlanView } from './planview';
import { fontAt } from './theme';

/** The title strip's height, CSS pixels. */
const STRIP = 46;

/** The lines of the title strip: the instance's name, then the plan's figures. */
export function titleLines(view: PlanView): [string, string] {
  const data = view.plan;
  if (!data) return ['memplan', 'no instance'];
  const figures = [`${grouped(data.inst.n)} buffers`, `L ${bytes(data.inst.summary.max_load)}`];
  const r = data.result;
  if (r && drawable(r)) {
    const s = r.summary;
    figures.unshift(`solver ${s.solver}${s.winner && s.winner !== s.solver ? ` (${s.winner})` : ''}`);
    figures.push(`makespan ${bytes(s.makespan ?? 0)} (${grouped(s.makespan ?? 0)} B)`);
    if (s.fragmentation !== null) figures.push(`fragmentation ${bytes(s.fragmentation)} (${percent(s.fragmentation_pct ?? 0)})`);
  } else {
    figures.unshift('no plan');
  }
  if (data.capacity !== null) figures.push(`capacity ${bytes(data.capacity)}`);
  return [data.inst.name || 'instance', figures.join(' · ')];
}

/** A new canvas: the title strip with the legend at its right, and the view's canvas below
 * (drawn as it is: call `view.renderNow()` first). */
export function exportImage(view: PlanView): HTMLCanvasElement {
  const plot = view.canvas;
  const dpr = window.devicePixelRatio || 1;
  const strip = Math.round(STRIP * dpr);
  const out = document.createElement('canvas');
  out.width = plot.width;
  out.height = plot.height + strip;
  const ctx = out.getContext('2d')!;
  const theme = view.theme();
  ctx.fillStyle = theme.bg;
  ctx.fillRect(0, 0, out.width, out.height);
  ctx.drawImage(plot, 0, strip);
  const [name, figures] = titleLines(view);
  const pad = 10 * dpr;
  // The legend: "colour: size", then the gradient between its two end words; by category, a
  // swatch and the name of each category the instance has.
  const mode = view.colourMode;
  const [low, high] = LEGEND_ENDS[mode];
  ctx.font = fontAt(theme, dpr);
  ctx.textBaseline = 'middle';
  const barWidth = 90 * dpr, barHeight = 9 * dpr, swatch = 9 * dpr, gap = 6 * dpr;
  const modeLabel = `colour: ${COLOR_MODES.find(([m]) => m === mode)?.[1] ?? mode}`;
  type Item = { text: string } | { bar: true } | { swatch: string };
  const items: Item[] = [{ text: modeLabel }];
  if (mode === 'category') {
    for (const name of view.plan ? categoriesPresent(view.plan.inst) : []) items.push({ swatch: categoryColour(name) }, { text: name });
  } else {
    if (low) items.push({ text: low });
    items.push({ bar: true });
    if (high) items.push({ text: high });
  }
  const widthOf = (item: Item) => ('text' in item ? ctx.measureText(item.text).width + gap : 'bar' in item ? barWidth + gap : swatch + 3 * dpr);
  const legendWidth = items.reduce((sum, item) => sum + widthOf(item), 0);
  const legendFits = out.width - legendWidth - pad > out.width * 0.35;
  let textRight = out.width - pad;
  if (legendFits) {
    const y = strip / 2;
    let x = out.width - pad - legendWidth;
    textRight = x - pad;
    ctx.textAlign = 'left';
    for (const item of items) {
      if ('bar' in item) {
        const gradient = ctx.createLinearGradient(x, 0, x + barWidth, 0);
        const stops = legendStops(mode);
        stops.forEach((c, k) => gradient.addColorStop(k / (stops.length - 1), c));
        ctx.fillStyle = gradient;
        ctx.fillRect(x, y - barHeight / 2, barWidth, barHeight);
      } else if ('swatch' in item) {
        ctx.fillStyle = item.swatch;
        ctx.fillRect(x, y - swatch / 2, swatch, swatch);
      } else {
        ctx.fillStyle = theme.muted;
        ctx.fillText(item.text, x, y);
      }
      x += widthOf(item);
    }
  }
  // Name and figures, cut to the room left of the legend.
  ctx.textAlign = 'left';
  ctx.textBaseline = 'alphabetic';
  ctx.fillStyle = theme.fg;
  ctx.font = fontAt(theme, dpr, '600 ').replace(/^600 (\d+(\.\d+)?)px/, (_, px) => `600 ${(Number(px) * 13) / 11}px`);
  ctx.fillText(name, pad, 18 * dpr, textRight - pad);
  ctx.font = fontAt(theme, dpr);
  ctx.fillStyle = theme.muted;
  ctx.fillText(figures, pad, 36 * dpr, textRight - pad);
  ctx.strokeStyle = theme.grid;
  ctx.lineWidth = dpr;
  ctx.beginPath();
  ctx.moveTo(0, strip - 0.5);
  ctx.lineTo(out.width, strip - 0.5);
  ctx.stroke();
  return out;
}
