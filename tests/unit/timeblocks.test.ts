import { describe, expect, it } from 'vitest';
import { BLOCK, markAlive, sortByStart, startIndex } from '../../web/src/view/timeblocks';
import { accumulateEnvelope } from '../../web/src/view/rectangles';
import { rng } from './rng';

/** Random lifetimes: short and long ones, in time order or shuffled, with ties. */
function lifetimes(n: number, seed: number, ordered: boolean) {
  const r = rng(seed);
  const starts = new Float64Array(n), ends = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    starts[i] = ordered ? Math.floor(i / 3) : Math.floor(r() * n);
    ends[i] = starts[i] + 1 + Math.floor(r() < 0.05 ? r() * n : r() * 8);
  }
  return { starts, ends };
}

const bruteForce = (starts: Float64Array, ends: Float64Array, x0: number, x1: number) =>
  [...starts.keys()].filter((i) => starts[i] < x1 && ends[i] > x0);

const marked = (bits: Uint32Array, n: number) => [...Array(n).keys()].filter((i) => (bits[i >>> 5] >>> (i & 31)) & 1);

describe('sortByStart', () => {
  it('orders buffer numbers by start, ties by number', () => {
    expect([...sortByStart(Float64Array.of(5, 1, 5, 0, 1))]).toEqual([3, 1, 4, 0, 2]);
    expect(sortByStart(new Float64Array(0)).length).toBe(0);
  });
});

describe('markAlive', () => {
  for (const ordered of [true, false]) {
    for (const n of [1, BLOCK - 1, BLOCK, 5 * BLOCK + 7, 3000]) {
      it(`marks exactly the buffers a scan finds (${n} buffers, ${ordered ? 'in time order' : 'shuffled'})`, () => {
        const { starts, ends } = lifetimes(n, n * 7 + (ordered ? 1 : 2), ordered);
        const index = startIndex(sortByStart(starts), starts, ends);
        const r = rng(n);
        const span = Math.max(...ends) + 2;
        for (let q = 0; q < 60; q++) {
          const a = Math.floor(r() * span) - 1, width = q % 3 === 0 ? Math.floor(r() * span) : Math.floor(r() * 10);
          // Fractional windows too, as a zoomed view has.
          const x0 = q % 4 === 1 ? a + 0.5 : a, x1 = x0 + width + (q % 5 === 2 ? 0.25 : 0);
          const bits = new Uint32Array((n + 31) >>> 5);
          const found = markAlive(index, starts, ends, x0, x1, bits, Infinity);
          const expected = bruteForce(starts, ends, x0, x1);
          expect(marked(bits, n)).toEqual(expected);
          expect(found).toBe(expected.length);
        }
      });
    }
  }

  it('marks nothing and says so when the window needs more looks than the budget', () => {
    const { starts, ends } = lifetimes(1000, 3, false);
    const index = startIndex(sortByStart(starts), starts, ends);
    const bits = new Uint32Array(32);
    expect(markAlive(index, starts, ends, -1, 1e9, bits, 100)).toBe(-1);
    expect(bits.every((w) => w === 0)).toBe(true);
    expect(markAlive(index, starts, ends, -1, 1e9, bits, 1000 + BLOCK)).toBe(1000);
  });
});

describe('InView.collect', () => {
  it('finds the buffers in a window, in buffer order, as a scan of every buffer does, in slices too', async () => {
    const { InView } = await import('../../web/src/view/inview');
    const n = 2000;
    const { starts, ends } = lifetimes(n, 11, false);
    const r = rng(5);
    const sizes = Float64Array.from({ length: n }, () => 1 + Math.floor(r() * 50));
    const offsets = Float64Array.from({ length: n }, () => Math.floor(r() * 1000));
    const inst = { n, startsF: starts, endsF: ends, sizesF: sizes, byStart: sortByStart(starts) };
    const result = { offsetsF: offsets };
    const view = new InView({ rank: () => null, isOverview: () => false, colourJob: () => null, keepColours: () => {}, draw: () => {} });
    const span = Math.max(...ends);
    for (let q = 0; q < 40; q++) {
      const x0 = r() * span, x1 = x0 + (q % 2 ? r() * span : r() * 20), y0 = r() * 500, y1 = y0 + r() * 600;
      const key = { data: { inst, result: null, capacity: null }, result, x0, x1, y0, y1, replayCount: null } as never;
      const expected = [...Array(n).keys()].filter((i) => starts[i] < x1 && ends[i] > x0 && offsets[i] + sizes[i] > y0 && offsets[i] < y1);
      const count = view.collect(key, 0, n, 0);
      expect([...view.visible.subarray(0, count)]).toEqual(expected);
      let sliced = 0;
      for (let from = 0; from < n; from += 300) sliced = view.collect(key, from, Math.min(n, from + 300), sliced);
      expect([...view.visible.subarray(0, sliced)]).toEqual(expected);
      // With an envelope raised in the same pass: as accumulateEnvelope over what was found.
      const top = new Float64Array(37), want = new Float64Array(37);
      const withTop = view.collect(key, 0, n, 0, top);
      expect([...view.visible.subarray(0, withTop)]).toEqual(expected);
      accumulateEnvelope(want, x0, x1, inst as never, result as never, Uint32Array.from(expected), 0, expected.length);
      expect([...top]).toEqual([...want]);
    }
  });
});

describe('sortByStart on random starts', () => {
  it('equals a comparator sort (ties by number)', () => {
    const r = rng(9);
    for (const n of [2, 100, 5000]) {
      const starts = Float64Array.from({ length: n }, () => Math.floor(r() * n / 4) + (r() < 0.1 ? 0.5 : 0));
      const expected = [...starts.keys()].sort((a, b) => starts[a] - starts[b] || a - b);
      expect([...sortByStart(starts)]).toEqual(expected);
    }
  });
});
