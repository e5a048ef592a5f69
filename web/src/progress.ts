// A running solve as the page shows it: one honest line (who reports, the time, the best plan so
// far, the proven bound, the work in the reporting solver's own unit) and a small sparkline of the
// best plan and the bound as they come. The worker reports at most four times a second; before
// the first report the line still says what is known (the instance's own lower bound).
import type { Progress } from './generated/core';
import { grouped, duration } from './format';

/** What the core counts in `Progress.nodes`, by the solver reporting: a minimisation counts its
 * capacity probes (each a whole feasibility search), idealloc its box-unbox-squeeze iterations,
 * and the portfolio nothing (0: the line leaves it out). */
function workUnit(solver: string): string {
  return solver === 'idealloc' ? 'iterations' : 'capacity probes';
}

/** The reports of one run, kept for the line and the sparkline. */
export class ProgressTrace {
  last: Progress | null = null;
  /** (elapsed ms, best makespan or NaN, bound) per report; numbers for drawing only. */
  readonly points: { t: number; best: number; bound: number }[] = [];

  /** @param instanceBound the instance's own lower bound, known before any report */
  constructor(readonly instanceBound: number | string | null) {}

  add(progress: Progress | null, elapsedMs: number) {
    if (!progress) return;
    this.last = progress;
    const best = progress.best_makespan === null ? NaN : Number(progress.best_makespan);
    this.points.push({ t: elapsedMs, best, bound: Number(progress.lower_bound) });
  }
}

/** The line: "minimalloc · 1.25 s · best 1,047,552 · bound 1,039,360 · 12 capacity probes". */
export function progressLine(solver: string, trace: ProgressTrace, elapsedMs: number): string {
  const elapsed = duration(elapsedMs);
  const p = trace.last;
  if (!p) {
    const bound = trace.instanceBound !== null ? ` · bound ${grouped(trace.instanceBound)} (the instance's)` : '';
    return `${solver} · ${elapsed} · no plan reported yet${bound}`;
  }
  const parts = [`${p.solver} · ${elapsed}`, p.best_makespan !== null ? `best ${grouped(p.best_makespan)}` : 'no plan yet', `bound ${grouped(p.lower_bound)}`];
  if (String(p.nodes) !== '0') parts.push(`${grouped(p.nodes)} ${workUnit(p.solver)}`);
  return parts.join(' · ');
}

const SVG = 'http://www.w3.org/2000/svg';

/** Draws the best plan (solid) and the bound (dashed) over time into `host` as a tiny SVG; empty
 * until two reports have come. The gap between the lines is what is left to prove. */
export function drawSparkline(host: HTMLElement, trace: ProgressTrace, width = 90, height = 16) {
  const points = trace.points;
  if (points.length < 2) {
    host.replaceChildren();
    return;
  }
  const values = points.flatMap((p) => (Number.isNaN(p.best) ? [p.bound] : [p.best, p.bound]));
  const low = Math.min(...values), high = Math.max(...values);
  const t0 = points[0].t, t1 = points[points.length - 1].t || 1;
  const x = (t: number) => ((t - t0) / Math.max(t1 - t0, 1e-9)) * (width - 2) + 1;
  const y = (v: number) => (high === low ? height / 2 : height - 1 - ((v - low) / (high - low)) * (height - 2));
  const path = (key: 'best' | 'bound') =>
    points.filter((p) => !Number.isNaN(p[key])).map((p, i) => `${i ? 'L' : 'M'}${x(p.t).toFixed(1)},${y(p[key]).toFixed(1)}`).join('');
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('width', String(width));
  svg.setAttribute('height', String(height));
  svg.setAttribute('class', 'sparkline');
  svg.setAttribute('aria-label', 'best plan (solid) and proven bound (dashed) over time');
  for (const [key, cls] of [['best', 'best'], ['bound', 'bound']] as const) {
    const line = document.createElementNS(SVG, 'path');
    line.setAttribute('d', path(key));
    line.setAttribute('class', cls);
    svg.append(line);
  }
  host.replaceChildren(svg);
}
