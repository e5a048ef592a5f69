// Finding buffers by id or name: what the plan's search box matches. Pure functions over the
// instance's columns, so that the tests run them in Node.
//
// A match is a case-insensitive substring of the id or of the name. The ids (and names) are one
// concatenated string each (see InstanceData), so a query is a few `indexOf` scans over it and a
// binary search per hit: at 500k buffers that is milliseconds, not a string per buffer.
import type { InstanceData, SolveResult } from '../protocol';
import type { Range } from './viewport';

/** The lower-cased id and name texts of the last instance searched: lower-casing 500k ids once
 * per instance, not per keystroke. */
let lowered: { inst: InstanceData; ids: string; names: string } | null = null;

function lowerTexts(inst: InstanceData) {
  if (lowered?.inst !== inst) lowered = { inst, ids: inst.idText.toLowerCase(), names: inst.nameText.toLowerCase() };
  return lowered;
}

/** Marks in `found` each buffer whose piece of `text` (between `offsets[i]` and `offsets[i + 1]`)
 * contains `query`. */
function markHits(text: string, offsets: Uint32Array, query: string, found: Uint8Array) {
  const n = offsets.length - 1;
  for (let at = text.indexOf(query); at >= 0; ) {
    // The buffer whose piece holds position `at`: the last i with offsets[i] <= at (an empty
    // piece shares its offset with the next, so the last is the one that holds characters).
    let lo = 0, hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (offsets[mid] <= at) lo = mid;
      else hi = mid - 1;
    }
    if (at + query.length <= offsets[lo + 1]) {
      found[lo] = 1;
      at = text.indexOf(query, offsets[lo + 1]); // one hit per buffer is enough
    } else {
      at = text.indexOf(query, at + 1); // the hit crosses into the next id
    }
  }
}

/** The buffers (indices, ascending) whose id or name contains `query`, ignoring case; none for a
 * blank query. */
export function findBuffers(inst: InstanceData, query: string): Uint32Array {
  const q = query.trim().toLowerCase();
  if (q === '' || inst.n === 0) return new Uint32Array(0);
  const texts = lowerTexts(inst);
  const found = new Uint8Array(inst.n);
  markHits(texts.ids, inst.idOffsets, q, found);
  if (inst.nameOffsets.length) markHits(texts.names, inst.nameOffsets, q, found);
  let count = 0;
  for (let i = 0; i < inst.n; i++) count += found[i];
  const out = new Uint32Array(count);
  for (let i = 0, k = 0; i < inst.n; i++) if (found[i]) out[k++] = i;
  return out;
}

/** The smallest window holding the buffers `indices` in the plan (addresses from 0 without a
 * plan), or null for none. */
export function boundsOf(inst: InstanceData, result: SolveResult | null, indices: Uint32Array): Range | null {
  if (indices.length === 0) return null;
  let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
  for (const i of indices) {
    const offset = result ? result.offsetsF[i] : 0;
    x0 = Math.min(x0, inst.startsF[i]);
    x1 = Math.max(x1, inst.endsF[i]);
    y0 = Math.min(y0, offset);
    y1 = Math.max(y1, offset + inst.sizesF[i]);
  }
  return { x0, x1, y0, y1 };
}
