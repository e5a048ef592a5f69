// What the plan view tells about the point under the pointer, as HTML: the buffer there (exact
// values from the u64 columns) and the buffers alive at that time. Time spans are written as
// `138,240 – 169,984` (see format.ts's `span`).
import type { InstanceData, SolveResult } from '../protocol';
import { bytes, esc, grouped, percent, span } from '../format';
import type { AliveAt } from './alive';

/** The id of buffer i. */
export function bufferId(inst: InstanceData, i: number): string {
  return inst.idText.slice(inst.idOffsets[i], inst.idOffsets[i + 1]);
}

/** What buffer i holds (input, output, weight, variable, temporary), or '' when unknown. */
export function bufferCategory(inst: InstanceData, i: number): string {
  const code = inst.categories.length ? inst.categories[i] : 0;
  return code ? (inst.categoryNames[code - 1] ?? '') : '';
}

/** The name of buffer i (a tensor's, an HLO value's), or '' when it has none. */
export function bufferName(inst: InstanceData, i: number): string {
  return inst.nameOffsets.length ? inst.nameText.slice(inst.nameOffsets[i], inst.nameOffsets[i + 1]) : '';
}

const rowsHtml = (rows: [string, string][]) => rows.map(([k, v]) => `<span>${k}</span><b>${esc(v)}</b>`).join('');

/** Rows describing buffer i: id, lifetime, size, offset, alignment, live pieces, placement step. */
export function describeBuffer(inst: InstanceData, result: SolveResult | null, rank: Uint32Array | null, i: number): string {
  const name = bufferName(inst, i);
  const category = bufferCategory(inst, i);
  const rows: [string, string][] = [
    ['id', bufferId(inst, i)],
    ...(name ? [['name', name] as [string, string]] : []),
    ...(category ? [['category', category] as [string, string]] : []),
    ['lifetime', span(inst.starts[i], inst.ends[i])],
    ['size', `${grouped(inst.sizes[i])} B (${bytes(inst.sizes[i])})`],
  ];
  if (result) {
    rows.push(['offset', grouped(result.offsets[i])]);
    rows.push(['end address', grouped(result.offsets[i] + inst.sizes[i])]);
  }
  rows.push(['alignment', grouped(inst.alignments[i])]);
  const { pieceStart, pieces } = inst;
  if (pieceStart.length > 0 && pieceStart[i + 1] > pieceStart[i]) {
    const live = [];
    for (let p = pieceStart[i]; p < pieceStart[i + 1]; p++) {
      const q = 4 * p;
      const window = pieces[q + 2] > 0 || pieces[q + 3] < Number(inst.sizes[i]) ? ` (bytes ${span(pieces[q + 2], pieces[q + 3])})` : '';
      live.push(`${span(pieces[q], pieces[q + 1])}${window}`);
    }
    rows.push(['alive', live.join(', ')]);
  }
  if (rank) rows.push(['placement step', `${grouped(rank[i] + 1)} of ${grouped(inst.n)}`]);
  if (inst.lines[i]) rows.push(['input line', String(inst.lines[i])]);
  return rowsHtml(rows);
}

/** The buffers alive at a time: a heading with their count, bytes and share of the peak (max
 * load L), then the largest with their sizes and lifetimes, then how many more. */
export function describeAlive(inst: InstanceData, alive: AliveAt): string {
  const peak = Number(inst.summary.max_load);
  const share = peak > 0 ? ` = ${percent((100 * alive.total) / peak)} of the peak L` : '';
  const head = `<div class="alive-head">time ${grouped(Math.floor(alive.time))}: ${grouped(alive.count)} alive, ${bytes(alive.total)}${share}</div>`;
  if (alive.count === 0) return head;
  const rows = alive.largest
    .map(({ index, bytes: held }) => `<tr data-index="${index}"><td>${esc(bufferId(inst, index))}</td><td>${esc(bytes(held))}</td><td>${esc(span(inst.starts[index], inst.ends[index]))}</td></tr>`)
    .join('');
  const more = alive.count > alive.largest.length ? `<div class="alive-more">+ ${grouped(alive.count - alive.largest.length)} more</div>` : '';
  return `${head}<table>${rows}</table>${more}`;
}

/** Places a box of `width` × `height` next to the point (x, y) inside a `bounds` area, on the
 * other side of the point when it would not fit. */
export function besidePoint(x: number, y: number, width: number, height: number, bounds: { width: number; height: number }) {
  let left = x + 14, top = y + 14;
  if (left + width > bounds.width) left = Math.max(0, x - width - 10);
  if (top + height > bounds.height) top = Math.max(0, y - height - 10);
  return { left, top };
}
