import { describe, expect, it } from 'vitest';
import { clampedStart, markedColumns, stripX, timeAtStrip } from '../../web/src/view/minimap';
import { framedBox } from '../../web/src/view/viewport';

const full = { x0: 100, x1: 1100, y0: 0, y1: 500 };

describe('the overview strip', () => {
  it('maps its pixels to the whole time span and back', () => {
    expect(timeAtStrip(0, 500, full)).toBe(100);
    expect(timeAtStrip(250, 500, full)).toBe(600);
    expect(timeAtStrip(500, 500, full)).toBe(1100);
    expect(stripX(600, 500, full)).toBe(250);
  });

  it('keeps a moved window inside the span, or centred on it when wider', () => {
    expect(clampedStart(400, 200, full)).toBe(400);
    expect(clampedStart(50, 200, full)).toBe(100);
    expect(clampedStart(1000, 200, full)).toBe(900);
    expect(clampedStart(0, 1200, full)).toBe(0);
  });
});

describe('the marked buffers on the strip', () => {
  it('ticks the columns their lifetimes cover, at least one each', () => {
    const starts = Float64Array.of(100, 600, 1000, 300);
    const ends = Float64Array.of(300, 601, 1100, 400);
    // 10 columns of 100 time steps: buffer 0 covers columns 0-1, buffer 1 column 5, buffer 2 column 9.
    expect(Array.from(markedColumns(starts, ends, Uint32Array.of(0, 1, 2), 10, full))).toEqual([1, 1, 0, 0, 0, 1, 0, 0, 0, 1]);
    expect(Array.from(markedColumns(starts, ends, Uint32Array.of(3), 10, full))).toEqual([0, 0, 1, 0, 0, 0, 0, 0, 0, 0]);
  });
});

describe('framedBox (zoom to a selection or to the buffers found)', () => {
  it('adds the margin around a box, inside the full range', () => {
    const w = framedBox({ x0: 500, x1: 600, y0: 100, y1: 200 }, full, 0.1);
    expect(w.x0).toBeCloseTo(490);
    expect(w.x1).toBeCloseTo(610);
    expect(w.y0).toBeCloseTo(90);
    expect(w.y1).toBeCloseTo(210);
    const edge = framedBox({ x0: 100, x1: 1100, y0: 0, y1: 500 }, full, 0.1);
    expect(edge).toEqual({ x0: 100, x1: 1100, y0: 0, y1: 500 });
  });

  it('widens a box thinner than a thousandth of the range', () => {
    const w = framedBox({ x0: 600, x1: 600.01, y0: 10, y1: 10.001 }, full, 0);
    expect(w.x1 - w.x0).toBeCloseTo(1);
    expect(w.y1 - w.y0).toBeCloseTo(0.5);
  });
});
