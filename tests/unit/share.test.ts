import { describe, expect, it } from 'vitest';
import { MAX_INLINE, compressText, decode, decompressText, encode, type PageState } from '../../web/src/share';

/** A state as `decode` gives it back: the defaults it fills in. */
const decoded = (state: PageState): PageState => ({ run: false, minimise: false, embed: false, autoplay: false, ...state });

describe('share links', () => {
  it('round-trip every kind of instance with the settings', () => {
    const states: PageState[] = [
      { example: 'minimalloc/challenging/C', controls: { params: {}, solver: 'minimalloc', capacity: '1MiB', seed: '7', effort: 'high', timeLimit: '5', threads: 1 }, run: true, minimise: true },
      { url: 'https://example.org/plans/model.csv', controls: { params: { nodes: '4096' } }, embed: true, theme: 'dark', autoplay: true, run: true },
      { gen: { buffers: 10000, seed: '3' }, controls: { params: {} }, compare: ['tflite', 'auto'], tab: 'compare' },
      { text: 'id,lower,upper,size\na,0,4,16\nb,1,3,8\n', format: 'csv', semantics: 'inclusive', controls: { params: {} } },
      { example: 'tflite/face_detection_short_range', controls: { params: {} }, tab: 'model' },
    ];
    for (const state of states) {
      const { query, omitted } = encode(state);
      expect(omitted).toBe(false);
      expect(decode(`?${query}`)).toEqual(decoded(state));
    }
  });

  it('write flags without a value and read them either way', () => {
    const { query } = encode({ example: 'handmade/small', controls: { params: {} }, embed: true, autoplay: true });
    expect(query).toMatch(/(^|&)embed(&|$)/);
    expect(query).toMatch(/(^|&)autoplay(&|$)/);
    expect(decode('?embed=&autoplay=1&ex=x').embed).toBe(true);
  });

  it('leave out an instance too large for a link, and say so', () => {
    let seed = 1;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed);
    const lines = Array.from({ length: 4000 }, (_, i) => `${i},${random() % 1000},${1000 + (random() % 1000)},${random()}`);
    const text = `id,lower,upper,size\n${lines.join('\n')}\n`;
    expect(compressText(text).length).toBeGreaterThan(MAX_INLINE);
    const { query, omitted } = encode({ text, controls: { params: {}, solver: 'auto' } });
    expect(omitted).toBe(true);
    expect(decode(`?${query}`).text).toBeUndefined();
    expect(decode(`?${query}`).controls.solver).toBe('auto');
  });

  it('compress text losslessly, and read a damaged one as no text', () => {
    const text = 'id,lower,upper,size,name\n"a,b",0,1,8,conv2d/Relu;bias ✓\n';
    expect(decompressText(compressText(text))).toBe(text);
    expect(decode('?src=not-deflate!!').text).toBeUndefined();
  });

  it('carry a model\'s compiler plan only beside its instance, and read a damaged one as none', () => {
    const model = { kind: 'xla' as const, name: 'm.hlo.pb', compiler: 'XLA', operators: 9, offsets: ['0', '18446744073709551615'] };
    const text = 'id,lower,upper,size\na,0,4,16\nb,1,3,8\n';
    const { query } = encode({ text, model, controls: { params: {} } });
    expect(decode(`?${query}`).model).toEqual(model);
    expect(new URLSearchParams(encode({ example: 'x', model, controls: { params: {} } }).query).has('mp')).toBe(false);
    expect(decode(`?${query.replace(/mp=[^&]*/, 'mp=bad')}`).model).toBeUndefined();
    // A plan too large for a link is left out, and said to be; the instance stays.
    let seed = 7;
    const offsets = Array.from({ length: 4000 }, () => String((seed = (seed * 1103515245 + 12345) % 2 ** 31)));
    const large = encode({ text, model: { ...model, offsets }, controls: { params: {} } });
    expect(large).toMatchObject({ omitted: false, modelOmitted: true });
    expect(decode(`?${large.query}`).text).toBe(text);
    expect(decode(`?${large.query}`).model).toBeUndefined();
    const forged = compressText(JSON.stringify({ ...model, offsets: ['-1'] }));
    expect(decode(`?src=${compressText(text)}&mp=${forged}`).model).toBeUndefined();
  });

  it('ignore a theme it does not know', () => {
    expect(decode('?theme=sepia').theme).toBeUndefined();
  });
});
