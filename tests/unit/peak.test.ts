import { describe, expect, it } from 'vitest';
import { peakOf, peakWindow } from '../../web/src/view/peak';
import { rng } from './rng';

const profile = (times: number[], loads: number[]) => ({ profileTimes: Float64Array.from(times), profileLoads: Float64Array.from(loads) });

describe('peakOf', () => {
  it('finds the first step at the max load and where it ends', () => {
    expect(peakOf(profile([0, 5, 9, 12, 20], [3, 8, 2, 8, 0]))).toEqual({ time: 5, end: 9, load: 8 });
    expect(peakOf(profile([4], [7]))).toEqual({ time: 4, end: 5, load: 7 });
    expect(peakOf(profile([], []))).toBeNull();
  });

  it('agrees with a scan of random profiles', () => {
    const random = rng(19);
    for (let round = 0; round < 50; round++) {
      const n = 1 + Math.floor(random() * 40);
      const times = Array.from({ length: n }, (_, i) => i * 3);
      const loads = Array.from({ length: n }, () => Math.floor(random() * 10));
      const peak = peakOf(profile(times, loads))!;
      const max = Math.max(...loads);
      expect(peak.load).toBe(max);
      expect(peak.time).toBe(times[loads.indexOf(max)]);
    }
  });
});

describe('peakWindow', () => {
  const full = { x0: 0, x1: 4000, y0: 0, y1: 64 };
  it('centres the peak, at least a fortieth of the span wide, the addresses as they were', () => {
    expect(peakWindow({ time: 1000, end: 1010, load: 1 }, full)).toEqual({ x0: 905, x1: 1105, y0: 0, y1: 64 });
    // A long step: a dozen of its lengths.
    expect(peakWindow({ time: 1000, end: 1100, load: 1 }, full)).toEqual({ x0: 450, x1: 1650, y0: 0, y1: 64 });
  });
});
