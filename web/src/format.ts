// Number formatting for the page. Exact values stay decimal strings / BigInts; only the short
// human forms (1.29 MiB) go through floating point.

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];

/** `1.29 MiB` for a byte count (exact below 1 KiB). */
export function bytes(value: bigint | string | number): string {
  let v = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(v)) return String(value);
  let unit = 0;
  while (Math.abs(v) >= 1024 && unit < UNITS.length - 1) {
    v /= 1024;
    unit++;
  }
  if (unit === 0) return `${v} B`;
  const digits = Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 10 ? 1 : 2;
  return `${v.toFixed(digits)} ${UNITS[unit]}`;
}

/** `1,352,704` from an exact decimal string or BigInt. */
export function grouped(value: bigint | string | number): string {
  const text = String(value);
  const negative = text.startsWith('-');
  const digits = negative ? text.slice(1) : text;
  if (!/^\d+$/.test(digits)) return text;
  return (negative ? '-' : '') + digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** A span of time (or of bytes), `138,240 – 169,984`: start to end, the end excluded. One form
 * everywhere on the page, since the bracketed one with grouped digits, `[138,240, 169,984)`,
 * reads as four numbers. */
export function span(from: bigint | number | string, to: bigint | number | string): string {
  return `${grouped(from)} – ${grouped(to)}`;
}

/** Short axis labels: 1.5k, 2M, 3.2G (decimal, for time). */
export function compact(value: number): string {
  const abs = Math.abs(value);
  for (const [limit, suffix] of [[1e15, 'P'], [1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'k']] as const) {
    if (abs >= limit) return `${+(value / limit).toPrecision(3)}${suffix}`;
  }
  return `${+value.toPrecision(4)}`;
}

export function duration(ms: number): string {
  if (ms < 1) return `${ms.toFixed(3)} ms`;
  if (ms < 1000) return `${ms.toFixed(ms < 10 ? 2 : 1)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}

export function percent(value: number): string {
  return `${value.toFixed(value < 10 ? 2 : 1)} %`;
}

/** Escapes text for HTML. */
export function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
