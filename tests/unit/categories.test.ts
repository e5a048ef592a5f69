import { describe, expect, it } from 'vitest';
import type { InstanceData } from '../../web/src/protocol';
import { categoriesPresent, categoryColour, codeColours, hasCategories } from '../../web/src/view/categories';
import { colourJob, pack } from '../../web/src/view/colors';
import { bufferCategory } from '../../web/src/view/tooltip';

const NAMES = ['input', 'output', 'weight', 'variable', 'temporary'];

function instance(codes: number[]): InstanceData {
  return {
    n: codes.length,
    categories: Uint8Array.from(codes),
    categoryNames: codes.length ? NAMES : [],
  } as unknown as InstanceData;
}

describe('buffer categories', () => {
  it('are offered only when some buffer has one', () => {
    expect(hasCategories(null)).toBe(false);
    expect(hasCategories(instance([]))).toBe(false);
    expect(hasCategories(instance([0, 5]))).toBe(true);
  });

  it('list the categories present in the core order, unknown last', () => {
    expect(categoriesPresent(instance([5, 1, 5, 2]))).toEqual(['input', 'output', 'temporary']);
    expect(categoriesPresent(instance([0, 5, 3]))).toEqual(['weight', 'temporary', 'unknown']);
  });

  it('name each buffer for the tooltip, unknown as nothing', () => {
    const inst = instance([1, 0, 5]);
    expect([0, 1, 2].map((i) => bufferCategory(inst, i))).toEqual(['input', '', 'temporary']);
    expect(bufferCategory(instance([]), 0)).toBe('');
  });

  it('colour every category apart, and unknown grey', () => {
    const colours = NAMES.map(categoryColour);
    expect(new Set(colours).size).toBe(NAMES.length);
    expect(categoryColour('unknown')).toBe(categoryColour('something new'));
    expect(colours).not.toContain(categoryColour('unknown'));
    const inst = instance([1, 0, 5]);
    const job = colourJob('category', inst, null);
    job.step(3);
    expect(Array.from(job.out)).toEqual([1, 0, 5].map((code) => pack(codeColours(inst)[code])));
  });
});
