// Share links: the page state in the URL's query. A small instance travels compressed (deflate,
// base64url) in `src`; a gallery example by its id (`ex`); a generated trace by size and seed
// (`gen`). A pasted instance too large for a link is left out, and the page says so. After a
// model import, the compiler's plan travels with its instance (`mp`): the instance alone would open
// an empty Model tab.
import { deflateSync, inflateSync, strFromU8, strToU8 } from 'fflate';
import type { ControlState } from './controls';
import type { ModelKind } from './generated/core';

/** Longest compressed instance put in a link (characters); browsers and servers take far more. */
export const MAX_INLINE = 12_000;

/** The page's tabs: the plan, compare, and an imported model's two plans. */
export type Tab = 'plan' | 'compare' | 'model';

/** An imported model in a link: what the Model tab compares memplan's plan with, which its
 * instance alone does not carry. */
export interface SharedModel {
  kind: ModelKind;
  name: string;
  compiler: string;
  operators: number;
  /** The compiler's offsets, one per buffer, as decimals (exact past 2^53). */
  offsets: string[];
}

export interface PageState {
  example?: string;
  /** An instance (or model) at an address, fetched by the page: for embeds in documentation. */
  url?: string;
  text?: string;
  gen?: { buffers: number; seed: string };
  /** The model the instance (`text`) was imported from, with its compiler's plan. */
  model?: SharedModel;
  format?: string;
  semantics?: string;
  controls: Partial<ControlState>;
  compare?: string[];
  /** The tab open (the plan's, the default, is left out). */
  tab?: Tab;
  /** Run the solver once the instance is loaded. */
  run?: boolean;
  /** That run minimises: the capacity is shown but left out of the request (the page's
   * "minimise"), so the link reproduces the minimised plan, not the first fit. */
  minimise?: boolean;
  embed?: boolean;
  /** Light or dark regardless of the system's setting (an embed matching its page). */
  theme?: 'light' | 'dark';
  /** Replay the placement, buffer by buffer, once the plan is shown. */
  autoplay?: boolean;
}

function toBase64Url(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): Uint8Array {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

export function compressText(text: string): string {
  return toBase64Url(deflateSync(strToU8(text), { level: 9 }));
}

export function decompressText(encoded: string): string {
  return strFromU8(inflateSync(fromBase64Url(encoded)));
}

/** The query string for a state, and what had to be left out: the instance (`omitted`), or only
 * an imported model's compiler plan beside it (`modelOmitted`: the link opens the instance alone). */
export function encode(state: PageState): { query: string; omitted: boolean; modelOmitted: boolean } {
  const q = new URLSearchParams();
  let omitted = false;
  let modelOmitted = false;
  if (state.example) q.set('ex', state.example);
  else if (state.url) q.set('url', state.url);
  else if (state.gen) q.set('gen', `${state.gen.buffers}:${state.gen.seed}`);
  else if (state.text !== undefined) {
    const packed = compressText(state.text);
    if (packed.length <= MAX_INLINE) q.set('src', packed);
    else omitted = true;
    const model = state.model && !omitted ? compressText(JSON.stringify(state.model)) : '';
    if (model.length > MAX_INLINE) modelOmitted = true;
    else if (model) q.set('mp', model);
  }
  if (state.format) q.set('fmt', state.format);
  if (state.semantics && state.semantics !== 'half-open') q.set('sem', state.semantics);
  const c = state.controls;
  if (c.solver) q.set('solver', c.solver);
  for (const [name, value] of Object.entries(c.params ?? {})) q.set(`p.${name}`, value);
  if (c.capacity) q.set('cap', c.capacity);
  if (c.timeLimit) q.set('tl', c.timeLimit);
  if (c.seed && c.seed !== '0') q.set('seed', c.seed);
  if (c.effort && c.effort !== 'normal') q.set('effort', c.effort);
  if (c.threads) q.set('threads', String(c.threads));
  if (state.compare?.length) q.set('cmp', state.compare.join(','));
  if (state.tab && state.tab !== 'plan') q.set('tab', state.tab);
  if (state.run) q.set('run', state.minimise ? 'min' : '1');
  if (state.theme) q.set('theme', state.theme);
  if (state.autoplay) q.set('autoplay', '');
  if (state.embed) q.set('embed', '');
  return { query: q.toString().replace(/(embed|autoplay)=(&|$)/g, '$1$2'), omitted, modelOmitted };
}

export function decode(search: string): PageState {
  const q = new URLSearchParams(search);
  const params: Record<string, string> = {};
  for (const [key, value] of q) if (key.startsWith('p.')) params[key.slice(2)] = value;
  const state: PageState = { controls: { params } };
  const ex = q.get('ex') ?? q.get('example');
  if (ex) state.example = ex.replace(/\.csv$/, '').replace(/\.1048576$/, '');
  const url = q.get('url');
  if (url) state.url = url;
  const gen = q.get('gen');
  if (gen) {
    const [buffers, seed = '0'] = gen.split(':');
    state.gen = { buffers: Number(buffers), seed };
  }
  const src = q.get('src');
  if (src) {
    try {
      state.text = decompressText(src);
    } catch {
      state.text = undefined;
    }
  }
  const mp = q.get('mp');
  if (mp && state.text !== undefined) state.model = sharedModel(mp);
  state.format = q.get('fmt') ?? undefined;
  state.semantics = q.get('sem') ?? undefined;
  const c = state.controls;
  c.solver = q.get('solver') ?? undefined;
  c.capacity = q.get('cap') ?? undefined;
  c.timeLimit = q.get('tl') ?? undefined;
  c.seed = q.get('seed') ?? undefined;
  c.effort = q.get('effort') ?? undefined;
  const threads = Number(q.get('threads'));
  if (threads > 0) c.threads = threads;
  const cmp = q.get('cmp');
  if (cmp) state.compare = cmp.split(',').filter(Boolean);
  const tab = q.get('tab');
  if (tab === 'compare' || tab === 'model') state.tab = tab;
  state.run = q.get('run') === '1' || q.get('run') === 'min';
  state.minimise = q.get('run') === 'min';
  state.embed = q.has('embed');
  const theme = q.get('theme');
  if (theme === 'light' || theme === 'dark') state.theme = theme;
  state.autoplay = q.has('autoplay');
  return state;
}

/** The model a link's `mp` holds, or undefined when it cannot be read (the instance still opens). */
function sharedModel(encoded: string): SharedModel | undefined {
  try {
    const m = JSON.parse(decompressText(encoded)) as Partial<SharedModel>;
    const text = (v: unknown) => typeof v === 'string';
    if (text(m.kind) && text(m.name) && text(m.compiler) && typeof m.operators === 'number' && Array.isArray(m.offsets) && m.offsets.every((o) => text(o) && /^\d+$/.test(o))) {
      return { kind: m.kind!, name: m.name!, compiler: m.compiler!, operators: m.operators, offsets: m.offsets };
    }
  } catch {
    /* a damaged link: no model */
  }
  return undefined;
}
