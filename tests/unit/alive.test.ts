import { describe, expect, it } from 'vitest';
import type { InstanceData } from '../../web/src/protocol';
import { aliveAt, bytesAt, loadAt } from '../../web/src/view/alive';

/** An instance of buffers [start, end, size], optionally with live pieces per buffer. */
function instance(buffers: [number, number, number][], pieces: [number, number, number, number][][] = []): InstanceData {
  const n = buffers.length;
  const pieceStart = new Uint32Array(pieces.length ? n + 1 : 0);
  const flat: number[] = [];
  pieces.forEach((list, i) => {
    pieceStart[i] = flat.length / 4;
    for (const p of list) flat.push(...p);
  });
  if (pieces.length) pieceStart[n] = flat.length / 4;
  // The load profile, from the buffers' live bytes at every boundary.
  const times = [...new Set(buffers.flatMap(([s, e]) => [s, e]).concat(flat.filter((_, k) => k % 4 < 2)))].sort((a, b) => a - b);
  const partial = { n, startsF: Float64Array.from(buffers, (b) => b[0]), endsF: Float64Array.from(buffers, (b) => b[1]), sizesF: Float64Array.from(buffers, (b) => b[2]), pieceStart, pieces: Float64Array.from(flat) } as unknown as InstanceData;
  const loads = times.map((t) => buffers.reduce((sum, _, i) => sum + bytesAt(partial, i, t), 0));
  return { ...partial, profileTimes: Float64Array.from(times), profileLoads: Float64Array.from(loads) };
}

describe('aliveAt', () => {
  const inst = instance([[0, 10, 5], [2, 4, 50], [3, 8, 7], [8, 9, 1], [0, 3, 7]]);

  it('lists the buffers alive at a time, largest first, ends excluded', () => {
    const at3 = aliveAt(inst, 3);
    expect(at3.largest.map((b) => b.index)).toEqual([1, 2, 0]);
    expect(at3.count).toBe(3);
    expect(at3.total).toBe(62);
    expect(aliveAt(inst, 8).largest.map((b) => b.index)).toEqual([0, 3]);
    expect(aliveAt(inst, 10).count).toBe(0);
  });

  it('keeps only the largest few but counts and sums all', () => {
    const at = aliveAt(inst, 2.5, 2);
    expect(at.largest.map((b) => b.bytes)).toEqual([50, 7]);
    expect(at.count).toBe(3);
    expect(at.total).toBe(62);
  });

  it('agrees with the load profile at every time', () => {
    for (let t = -1; t <= 11; t += 0.5) expect(aliveAt(inst, t).total).toBe(loadAt(inst, t));
  });

  it('matches a sort of everything on random instances', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const buffers: [number, number, number][] = [];
    for (let i = 0; i < 400; i++) {
      const s = Math.floor(random() * 100);
      buffers.push([s, s + 1 + Math.floor(random() * 30), 1 + Math.floor(random() * 1000)]);
    }
    const big = instance(buffers);
    for (const t of [0, 17, 50.5, 99, 128]) {
      const alive = buffers.map(([s, e, z], index) => ({ index, bytes: s <= t && t < e ? z : 0 })).filter((b) => b.bytes > 0);
      alive.sort((a, b) => b.bytes - a.bytes || a.index - b.index);
      const at = aliveAt(big, t, 10);
      expect(at.largest.map((b) => b.bytes)).toEqual(alive.slice(0, 10).map((b) => b.bytes));
      expect(at.count).toBe(alive.length);
      expect(at.total).toBe(loadAt(big, t));
    }
  });

  it('counts a buffer with gaps only in its live pieces, with its window', () => {
    // a: alive [0, 3) and [6, 10), 8 bytes; in [6, 10) only bytes 4..8 are live.
    const gaps = instance([[0, 10, 8], [3, 6, 8]], [[[0, 3, 0, 8], [6, 10, 4, 8]], []]);
    expect(aliveAt(gaps, 4).largest.map((b) => b.index)).toEqual([1]);
    expect(aliveAt(gaps, 1).total).toBe(8);
    expect(aliveAt(gaps, 7).total).toBe(4);
    for (const t of [0, 1, 3, 4.5, 6, 7, 9.9]) expect(aliveAt(gaps, t).total).toBe(loadAt(gaps, t));
  });
});
