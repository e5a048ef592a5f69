// Tick positions and labels for the plan view's two axes. Addresses are bytes, so their ticks fall
// on powers of two (0, 256 KiB, 512 KiB, 768 KiB, 1 MiB): a decimal step such as 200 KiB would
// cut binary sizes at places nobody allocates. Time is a count of steps, so its ticks are decimal
// (1, 2 or 5 × 10^k) and always whole steps. Every label is exact for its value, so two ticks never
// share a label however far the view is zoomed in.

export interface Tick {
  value: number;
  label: string;
}

const BINARY_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];

/**
 * An address as a tick label: in the largest unit it is at least one of, when it is a whole number
 * of that unit or has at most two decimals in it (`1.25 MiB`); else in the next smaller unit, down
 * to bytes. Exact, so distinct addresses never get the same label.
 */
export function byteLabel(value: number): string {
  if (value === 0) return '0';
  const abs = Math.abs(value);
  for (let unit = BINARY_UNITS.length - 1; unit > 0; unit--) {
    const size = 2 ** (10 * unit);
    if (abs < size) continue;
    const scaled = value / size;
    if (Number.isInteger(scaled * 100)) return `${+scaled.toFixed(2)} ${BINARY_UNITS[unit]}`;
  }
  return `${value} B`;
}

/**
 * Ticks over addresses [lo, hi] about `count` of them (at least half as many, at most `count`),
 * one every power of two bytes (never less than 1 byte: when the window is under a few bytes
 * there are fewer ticks).
 */
export function binaryTicks(lo: number, hi: number, count: number): Tick[] {
  if (!(hi > lo) || !Number.isFinite(lo) || !Number.isFinite(hi)) return [];
  const want = Math.max(1, count);
  let step = 2 ** Math.max(0, Math.ceil(Math.log2((hi - lo) / want)));
  // log2 rounding: make sure the step gives no more than `want` intervals.
  while ((hi - lo) / step > want) step *= 2;
  return stepTicks(lo, hi, step, byteLabel);
}

/** The decimal step (1, 2 or 5 × 10^k, at least 1) giving about `count` intervals over `span`. */
export function timeStep(span: number, count: number): number {
  const raw = span / Math.max(1, count);
  if (!(raw > 1)) return 1;
  const power = 10 ** Math.floor(Math.log10(raw));
  const mantissa = raw / power;
  const nice = mantissa <= 1 ? 1 : mantissa <= 2 ? 2 : mantissa <= 5 ? 5 : 10;
  return nice * power;
}

const TIME_SUFFIXES: [number, string][] = [[1e15, 'P'], [1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'k']];

/**
 * A labeller for times that are multiples of `step`, the largest being `largest` in magnitude:
 * when all are below 10,000, the whole number; else each in its own suffix (k, M, G…: 800k, 1M)
 * with as many decimals as the step needs there, so that consecutive ticks always differ
 * (1.2345M, 1.2346M).
 */
export function timeLabeller(step: number, largest: number): (value: number) => string {
  if (largest < 1e4) return (value) => String(Math.round(value));
  return (value) => {
    const suffix = TIME_SUFFIXES.find(([limit]) => Math.abs(value) >= limit);
    if (!suffix) return String(Math.round(value));
    const [scale, name] = suffix;
    const decimals = Math.max(0, Math.ceil(Math.log10(scale / step) - 1e-9));
    return `${+(value / scale).toFixed(decimals)}${name}`;
  };
}

/** Ticks over times [lo, hi], about `count` of them, on whole steps only. */
export function timeTicks(lo: number, hi: number, count: number): Tick[] {
  if (!(hi > lo) || !Number.isFinite(lo) || !Number.isFinite(hi)) return [];
  const step = timeStep(hi - lo, count);
  return stepTicks(lo, hi, step, timeLabeller(step, Math.max(Math.abs(lo), Math.abs(hi))));
}

/** Every multiple of `step` in [lo, hi], labelled. */
function stepTicks(lo: number, hi: number, step: number, label: (value: number) => string): Tick[] {
  const out: Tick[] = [];
  const first = Math.ceil(lo / step), last = Math.floor(hi / step);
  for (let k = first; k <= last && out.length < 1000; k++) {
    const value = k * step;
    out.push({ value, label: label(value) });
  }
  return out;
}
