import { describe, expect, it } from 'vitest';
import { columnLoads } from '../../web/src/view/plotpixels';
import { rng } from './rng';

/** The load curve per column as a loop over every step in view: the reference. */
function reference(times: Float64Array, loads: Float64Array, x0: number, x1: number, width: number) {
  const low = new Float64Array(width).fill(NaN), high = new Float64Array(width).fill(NaN);
  const m = times.length;
  const sx = width / (x1 - x0);
  for (let i = 0; i < m; i++) {
    const from = (times[i] - x0) * sx;
    if (from >= width) break;
    const to = i + 1 < m ? (times[i + 1] - x0) * sx : from;
    if (to < 0 && i + 1 < m) continue;
    let a = Math.floor(from), b = Math.ceil(to) - 1;
    if (b < a) b = a;
    if (a < 0) a = 0;
    if (b >= width) b = width - 1;
    for (let c = a; c <= b; c++) {
      if (!(high[c] >= loads[i])) high[c] = loads[i];
      if (!(low[c] <= loads[i])) low[c] = loads[i];
    }
  }
  return { low, high };
}

describe('columnLoads', () => {
  for (const steps of [1, 2, 40, 500, 20_000]) {
    it(`equals a loop over every step (${steps} steps, dense and sparse windows)`, () => {
      const r = rng(steps);
      const times = new Float64Array(steps), loads = new Float64Array(steps);
      let t = 0;
      for (let i = 0; i < steps; i++) {
        t += 1 + Math.floor(r() * (r() < 0.1 ? 500 : 5));
        times[i] = t;
        loads[i] = i + 1 === steps ? 0 : Math.floor(r() * 1e6);
      }
      for (let q = 0; q < 40; q++) {
        const width = [1, 2, 7, 300, 1200][q % 5];
        const x0 = q % 4 === 0 ? times[0] : times[0] - 10 + r() * t;
        const x1 = q % 3 === 0 ? t + 1 : x0 + 1 + r() * (q % 2 ? t : t / 50);
        const got = columnLoads(times, loads, x0, x1, width);
        const want = reference(times, loads, x0, x1, width);
        expect([...got.high]).toEqual([...want.high]);
        expect([...got.low]).toEqual([...want.low]);
      }
    });
  }
});
