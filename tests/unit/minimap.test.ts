import { describe, expect, it } from 'vitest';
import { clampedStart, stripX, timeAtStrip } from '../../web/src/view/minimap';
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
