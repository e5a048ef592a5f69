import { describe, expect, it } from 'vitest';
import type { InstanceData, SolveResult } from '../../web/src/protocol';
import { boundsOf, findBuffers } from '../../web/src/view/search';

function instance(ids: string[], names: string[] = []): InstanceData {
  const offsets = (list: string[]) => {
    const out = new Uint32Array(list.length + 1);
    list.forEach((s, i) => (out[i + 1] = out[i] + s.length));
    return out;
  };
  const n = ids.length;
  return {
    n,
    idText: ids.join(''),
    idOffsets: offsets(ids),
    nameText: names.join(''),
    nameOffsets: names.length ? offsets(names) : new Uint32Array(0),
    startsF: Float64Array.from(ids, (_, i) => i),
    endsF: Float64Array.from(ids, (_, i) => i + 2),
    sizesF: Float64Array.from(ids, () => 10),
  } as unknown as InstanceData;
}

const found = (inst: InstanceData, query: string) => Array.from(findBuffers(inst, query));

describe('findBuffers', () => {
  const inst = instance(['12', '3', '4123', '41', '23'], ['Conv2D', '', 'relu', '', 'conv_1']);

  it('finds ids containing the text, not a hit across two ids', () => {
    // '12' + '3' are adjacent in the concatenated ids: "123" must not match buffer 0 or 1.
    expect(found(inst, '123')).toEqual([2]);
    expect(found(inst, '23')).toEqual([2, 4]);
    expect(found(inst, '41')).toEqual([2, 3]);
  });

  it('finds names too, ignoring case, each buffer once', () => {
    expect(found(inst, 'conv')).toEqual([0, 4]);
    expect(found(inst, 'RELU')).toEqual([2]);
    expect(found(inst, '1')).toEqual([0, 2, 3, 4]);
  });

  it('finds nothing for a blank text or no match', () => {
    expect(found(inst, '  ')).toEqual([]);
    expect(found(inst, 'zz')).toEqual([]);
  });

  it('works without names, with empty ids, and on a new instance after another', () => {
    const plain = instance(['a', '', 'ab', 'b']);
    expect(found(plain, 'b')).toEqual([2, 3]);
    expect(found(plain, 'ab')).toEqual([2]);
    expect(found(inst, 'conv')).toEqual([0, 4]);
  });

  it('finds every match among 500k ids', () => {
    const big = instance(Array.from({ length: 500_000 }, (_, i) => String(i)));
    expect(found(big, '99999')).toEqual([99999, 199999, 299999, 399999, 499999]);
  });
});

describe('boundsOf', () => {
  it('is the smallest window holding the buffers in the plan', () => {
    const inst = instance(['a', 'b', 'c']);
    const result = { offsetsF: Float64Array.of(0, 100, 40) } as unknown as SolveResult;
    expect(boundsOf(inst, result, Uint32Array.of(1, 2))).toEqual({ x0: 1, x1: 4, y0: 40, y1: 110 });
    expect(boundsOf(inst, null, Uint32Array.of(0))).toEqual({ x0: 0, x1: 2, y0: 0, y1: 10 });
    expect(boundsOf(inst, result, new Uint32Array(0))).toBeNull();
  });
});
