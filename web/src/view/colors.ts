// Colour per buffer, as packed RGBA for ImageData (little-endian: 0xAABBGGRR), computed once per
// plan and colour mode so that drawing reads one typed array.
import { interpolateCividis, interpolateTurbo, interpolateViridis, interpolateRainbow } from 'd3-scale-chromatic';
import { color } from 'd3-color';
import type { InstanceData } from '../protocol';
import { categoryColour, codeColours } from './categories';

export type ColorBy = 'size' | 'lifetime' | 'order' | 'id' | 'category';

export const COLOR_MODES: [ColorBy, string][] = [
  ['size', 'size'],
  ['lifetime', 'lifetime'],
  ['order', 'placement order'],
  ['id', 'id'],
  // Offered only for instances whose buffers have categories (`hasCategories`).
  ['category', 'category'],
];

const LUT_SIZE = 256;

function lut(interpolate: (t: number) => string): Uint32Array {
  const out = new Uint32Array(LUT_SIZE);
  for (let i = 0; i < LUT_SIZE; i++) out[i] = pack(interpolate(0.08 + (0.86 * i) / (LUT_SIZE - 1)));
  return out;
}

export function pack(css: string, alpha = 255): number {
  const c = color(css)?.rgb() ?? { r: 128, g: 128, b: 128 };
  return ((alpha << 24) | (Math.round(c.b) << 16) | (Math.round(c.g) << 8) | Math.round(c.r)) >>> 0;
}

export function unpack(rgba: number): string {
  return `rgb(${rgba & 255},${(rgba >>> 8) & 255},${(rgba >>> 16) & 255})`;
}

/** A darker shade of a packed colour, for outlines. */
export function darker(rgba: number, f = 0.62): number {
  const r = (rgba & 255) * f, g = ((rgba >>> 8) & 255) * f, b = ((rgba >>> 16) & 255) * f;
  return ((255 << 24) | (b << 16) | (g << 8) | r) >>> 0;
}

const LUTS = {
  size: lut(interpolateViridis),
  lifetime: lut(interpolateCividis),
  order: lut(interpolateTurbo),
};

/** A colour computation that can be spread over tasks: `step(count)` colours the next `count`
 * buffers into `out` and says whether all are done. */
export interface ColourJob {
  out: Uint32Array;
  step: (count: number) => boolean;
}

/**
 * One packed colour per buffer, a slice at a time (at 10^5-10^6 buffers the logarithms take tens
 * of ms). `rank[i]` is buffer i's position in the placement order. Size and lifetime are placed
 * between their minimum and maximum on a log scale.
 */
export function colourJob(mode: ColorBy, inst: InstanceData, rank: Uint32Array | null): ColourJob {
  const n = inst.n;
  const out = new Uint32Array(n);
  let colour: (i: number) => number;
  if (mode === 'size' || mode === 'lifetime') {
    const s = inst.startsF, e = inst.endsF, z = inst.sizesF;
    const value = mode === 'size' ? (i: number) => z[i] : (i: number) => e[i] - s[i];
    const table = LUTS[mode];
    let min = Infinity, max = 0;
    for (let i = 0; i < n; i++) {
      const v = value(i);
      if (v < min) min = v;
      if (v > max) max = v;
    }
    const lo = Math.log(Math.max(min, 1)), span = Math.log(Math.max(max, 1)) - lo || 1;
    colour = (i) => {
      const t = (Math.log(Math.max(value(i), 1)) - lo) / span;
      return table[Math.min(LUT_SIZE - 1, Math.max(0, Math.round(t * (LUT_SIZE - 1))))];
    };
  } else if (mode === 'category') {
    const palette = codeColours(inst).map((css) => pack(css));
    const codes = inst.categories;
    colour = (i) => palette[codes.length ? codes[i] : 0] ?? palette[0];
  } else if (mode === 'order' && rank) {
    colour = (i) => LUTS.order[Math.floor((rank[i] * (LUT_SIZE - 1)) / Math.max(1, n - 1))];
  } else {
    const palette = new Uint32Array(64);
    for (let k = 0; k < 64; k++) palette[k] = pack(interpolateRainbow(k / 64));
    colour = (i) => palette[(i * 37) % 64];
  }
  let next = 0;
  return {
    out,
    step: (count) => {
      const end = Math.min(n, next + count);
      for (let i = next; i < end; i++) out[i] = colour(i);
      next = end;
      return next === n;
    },
  };
}

/** The colours along a mode's legend, from its low end to its high end. */
export function legendStops(mode: ColorBy): string[] {
  if (mode === 'category') return ['input', 'output', 'weight', 'variable', 'temporary'].map(categoryColour);
  const f = mode === 'size' ? interpolateViridis : mode === 'lifetime' ? interpolateCividis : mode === 'order' ? interpolateTurbo : interpolateRainbow;
  return [0, 0.25, 0.5, 0.75, 1].map((t) => f(mode === 'id' ? t : 0.08 + 0.86 * t));
}

/** What a mode's legend says at its two ends (id colours mean nothing in order). */
export const LEGEND_ENDS: Record<ColorBy, [string, string]> = { size: ['small', 'large'], lifetime: ['short', 'long'], order: ['first', 'last placed'], id: ['', ''], category: ['', ''] };

/** CSS gradient for the legend of a mode. */
export function legendGradient(mode: ColorBy): string {
  return `linear-gradient(90deg, ${legendStops(mode).join(', ')})`;
}

/** `a` over `b` with weight `t` (0..1), packed. */
export function blend(a: number, b: number, t: number): number {
  const ch = (shift: number) => Math.round(((a >>> shift) & 255) * t + ((b >>> shift) & 255) * (1 - t));
  return ((255 << 24) | (ch(16) << 16) | (ch(8) << 8) | ch(0)) >>> 0;
}
