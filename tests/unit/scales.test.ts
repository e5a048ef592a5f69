import { describe, expect, it } from 'vitest';
import { frameOf, scalesOf, tickCounts, MARGIN } from '../../web/src/view/scales';
import { overlaps, spreadLabels } from '../../web/src/view/labelspacing';

describe('scales', () => {
  const range = { x0: 100, x1: 300, y0: 0, y1: 4096 };
  for (const dpr of [1, 2, 1.5]) {
    const frame = frameOf(800, 500, dpr);
    const s = scalesOf(frame, range);
    it(`map the window's corners to the plot's corners (dpr ${dpr})`, () => {
      expect(frame.left).toBe(Math.round(MARGIN.left * dpr));
      expect(s.X(100)).toBeCloseTo(frame.left);
      expect(s.X(300)).toBeCloseTo(frame.left + frame.pw);
      expect(s.Y(0)).toBeCloseTo(frame.top + frame.ph);
      expect(s.Y(4096)).toBeCloseTo(frame.top);
    });
    it(`invert each other (dpr ${dpr})`, () => {
      for (const t of [100, 123.5, 299]) expect(s.time(s.X(t))).toBeCloseTo(t);
      for (const a of [0, 17, 4000]) expect(s.address(s.Y(a))).toBeCloseTo(a);
    });
  }
  it('fit more ticks in a larger plot', () => {
    expect(tickCounts(frameOf(1280, 600, 1)).x).toBeGreaterThan(tickCounts(frameOf(390, 600, 1)).x);
    expect(tickCounts(frameOf(200, 100, 2)).y).toBeGreaterThanOrEqual(2);
  });
});

describe('spreadLabels', () => {
  it('keeps labels that do not overlap where they are', () => {
    expect(spreadLabels([{ y: 10, height: 12 }, { y: 50, height: 12 }], 0, 200)).toEqual([10, 50]);
  });

  it('moves the lower of two overlapping labels below the other', () => {
    const placed = spreadLabels([{ y: 100, height: 12 }, { y: 104, height: 12 }], 0, 200);
    expect(placed[0]).toBe(100);
    expect(placed[1]).toBe(112);
  });

  it('separates three labels on the same line (L = makespan = capacity), in any input order', () => {
    for (const ys of [[80, 80, 80], [81, 79, 80], [90, 70, 80]]) {
      const boxes = ys.map((y) => ({ y, height: 12 }));
      const placed = spreadLabels(boxes, 0, 300);
      for (let a = 0; a < 3; a++) for (let b = a + 1; b < 3; b++) expect(overlaps(placed[a], 12, placed[b], 12), placed.join()).toBe(false);
    }
  });

  it('pushes labels back up at the bottom edge and down at the top edge', () => {
    const bottom = spreadLabels([{ y: 195, height: 12 }, { y: 196, height: 12 }], 0, 200);
    expect(Math.max(...bottom) + 12).toBeLessThanOrEqual(200);
    expect(overlaps(bottom[0], 12, bottom[1], 12)).toBe(false);
    const top = spreadLabels([{ y: -5, height: 12 }, { y: -3, height: 12 }], 0, 200);
    expect(Math.min(...top)).toBeGreaterThanOrEqual(0);
    expect(overlaps(top[0], 12, top[1], 12)).toBe(false);
  });
});
