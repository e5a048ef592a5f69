import { describe, expect, it } from 'vitest';
import { SYNC_TEXT_MAX, addressQuery, pageState, type PageParts } from '../../web/src/page/urlstate';
import { decode, encode } from '../../web/src/share';
import type { LoadRequest } from '../../web/src/input';

const controls = { solver: 'auto', params: {}, capacity: '1MiB', timeLimit: '', seed: '0', effort: 'normal', threads: 8 };
const parts = (over: Partial<PageParts> = {}): PageParts => ({
  loaded: null, model: null, format: '', semantics: 'half-open', controls, maxThreads: 8, compare: ['tflite', 'auto'],
  tab: 'plan', ran: false, minimised: false, opened: { embed: false, theme: undefined, autoplay: false }, ...over,
});
const text = 'id,lower,upper,size\na,0,4,16\n';

describe('the page state a link keeps', () => {
  it('names an example, a url or a generated trace rather than carrying their text', () => {
    const example = { source: { kind: 'text', text, name: 'C' }, text, example: { id: 'minimalloc/challenging/C' } } as unknown as LoadRequest;
    const gen = { source: { kind: 'generate', buffers: 10, seed: '1' }, gen: { buffers: 10, seed: '1' }, text } as unknown as LoadRequest;
    const pasted = { source: { kind: 'text', text, name: 'input' }, text } as unknown as LoadRequest;
    expect(pageState(parts({ loaded: example }))).toMatchObject({ example: 'minimalloc/challenging/C', text: undefined });
    expect(pageState(parts({ loaded: gen }))).toMatchObject({ gen: { buffers: 10, seed: '1' }, text: undefined });
    expect(pageState(parts({ loaded: pasted })).text).toBe(text);
  });

  it('carries an imported model\'s compiler plan with its instance, but not with a named one', () => {
    const model = { kind: 'tflite' as const, name: 'm.tflite', compiler: 'LiteRT', operators: 3, offsets: ['0', '16'] };
    const imported = { source: { kind: 'text', text, name: 'm.tflite' }, text } as unknown as LoadRequest;
    const state = pageState(parts({ loaded: imported, model, tab: 'model', ran: true }));
    expect(state).toMatchObject({ text, model, tab: 'model' });
    expect(decode(`?${addressQuery(state, '')}`)).toMatchObject({ text, model, tab: 'model' });
    const gallery = { ...imported, example: { id: 'tflite/m', kind: 'model' } } as unknown as LoadRequest;
    expect(pageState(parts({ loaded: gallery, model })).model).toBeUndefined();
  });

  it('leaves out the machine\'s thread count, and says minimise only of a run', () => {
    expect(pageState(parts()).controls.threads).toBeUndefined();
    expect(pageState(parts({ controls: { ...controls, threads: 1 } })).controls.threads).toBe(1);
    expect(pageState(parts({ minimised: true })).minimise).toBe(false);
    expect(pageState(parts({ ran: true, minimised: true }))).toMatchObject({ run: true, minimise: true });
  });

  it('keeps the open tab, the Model tab too, through the address', () => {
    for (const tab of ['compare', 'model'] as const) {
      const query = addressQuery(pageState(parts({ tab })), '')!;
      expect(new URLSearchParams(query).get('tab')).toBe(tab);
      expect(decode(`?${query}`).tab).toBe(tab);
    }
    // The plan tab is the default: not written.
    expect(new URLSearchParams(addressQuery(pageState(parts()), '')!).has('tab')).toBe(false);
    expect(decode('?tab=settings').tab).toBeUndefined();
  });

  it('keeps the layout, theme and replay the page was opened with', () => {
    const state = pageState(parts({ opened: { embed: true, theme: 'dark', autoplay: true } }));
    expect(decode(`?${encode(state).query}`)).toMatchObject({ embed: true, theme: 'dark', autoplay: true });
  });
});

describe('addressQuery', () => {
  it('is null when the address already says the state', () => {
    const state = pageState(parts({ ran: true }));
    const query = addressQuery(state, '')!;
    expect(addressQuery(state, `?${query}`)).toBeNull();
    expect(addressQuery(pageState(parts({ ran: false })), `?${query}`)).not.toBeNull();
  });

  it('leaves out a pasted text too long to deflate on every change', () => {
    const long = `id,lower,upper,size\n${'a,0,4,16\n'.repeat(Math.ceil(SYNC_TEXT_MAX / 9) + 1)}`;
    const loaded = { source: { kind: 'text', text: long, name: 'input' }, text: long } as unknown as LoadRequest;
    const query = addressQuery(pageState(parts({ loaded })), '')!;
    expect(new URLSearchParams(query).has('src')).toBe(false);
    expect(new URLSearchParams(query).get('solver')).toBe('auto');
  });
});
