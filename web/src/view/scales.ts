// The plot's geometry: where the plot sits inside the canvas (margins for the axes) and the
// mapping between data (time, address) and canvas pixels for a viewport's window. Pure arithmetic,
// so that drawing, hit testing and the tests all agree on one mapping.
import type { Range } from './viewport';

/** Room around the plot, in CSS pixels: tick labels and the address title on the left, tick labels
 * and the time title below. */
export const MARGIN = { left: 84, right: 12, top: 12, bottom: 38 };

/** The canvas and the plot inside it, in device pixels (`dpr` device pixels per CSS pixel). */
export interface Frame {
  dpr: number;
  /** The canvas. */
  w: number;
  h: number;
  /** The plot: its top-left corner and size. */
  left: number;
  top: number;
  pw: number;
  ph: number;
  cssW: number;
  cssH: number;
}

/** The frame of a canvas of `cssW` × `cssH` CSS pixels, the plot `leftMargin` CSS pixels from
 * its left edge. */
export function frameOf(cssW: number, cssH: number, dpr: number, leftMargin = MARGIN.left): Frame {
  const w = Math.round(cssW * dpr), h = Math.round(cssH * dpr);
  const left = Math.round(leftMargin * dpr), top = Math.round(MARGIN.top * dpr);
  const pw = Math.max(1, w - left - Math.round(MARGIN.right * dpr));
  const ph = Math.max(1, h - top - Math.round(MARGIN.bottom * dpr));
  return { dpr, w, h, left, top, pw, ph, cssW, cssH };
}

/** Data to device pixels and back, for one frame and window. Address grows upwards. */
export interface Scales {
  /** Time to canvas x (device pixels). */
  X: (time: number) => number;
  /** Address to canvas y (device pixels). */
  Y: (address: number) => number;
  /** Canvas x (device pixels) to time. */
  time: (x: number) => number;
  /** Canvas y (device pixels) to address. */
  address: (y: number) => number;
}

export function scalesOf(frame: Frame, range: Range): Scales {
  const sx = frame.pw / (range.x1 - range.x0), sy = frame.ph / (range.y1 - range.y0);
  return {
    X: (time) => frame.left + (time - range.x0) * sx,
    Y: (address) => frame.top + frame.ph - (address - range.y0) * sy,
    time: (x) => range.x0 + (x - frame.left) / sx,
    address: (y) => range.y0 + (frame.top + frame.ph - y) / sy,
  };
}

/** How many ticks fit: one per ~110 CSS pixels of time, one per ~48 of address. */
export function tickCounts(frame: Frame) {
  return {
    x: Math.max(2, Math.floor(frame.pw / (110 * frame.dpr))),
    y: Math.max(2, Math.floor(frame.ph / (48 * frame.dpr))),
  };
}
