// The page's state in its address: what the page shows (instance, settings, tab, whether it ran)
// as a share link's query (share.ts encodes it), kept in step as the page changes so that reloading
// or copying the address gives the same state; Share link also copies it. Pure functions for the
// state and the query (unit-tested), and the small class that writes the address.
import { encode, type PageState, type SharedModel, type Tab } from '../share';
import type { ControlState } from '../controls';
import type { LoadRequest } from '../input';

/** Longest pasted text the address is kept in step with (deflating more on every change costs). */
export const SYNC_TEXT_MAX = 100_000;

/** What the page holds that a link says. */
export interface PageParts {
  /** The load the shown instance came from (null: none). */
  loaded: LoadRequest | null;
  /** The model the Model tab shows for this instance, with its compiler's plan (null: none). */
  model: SharedModel | null;
  format: string;
  semantics: string;
  controls: ControlState;
  /** The threads a link leaves out (the machine's count: the default). */
  maxThreads: number;
  compare: string[];
  tab: Tab;
  /** A result is shown; `minimised`: it was minimised without the capacity. */
  ran: boolean;
  minimised: boolean;
  /** Kept from the address the page was opened with: the layout, theme and replay are not
   * changed on the page. */
  opened: Pick<PageState, 'embed' | 'theme' | 'autoplay'>;
}

/** The link's state of the page: an example, a url or a generated trace by name, else the text. */
export function pageState(p: PageParts): PageState {
  const l = p.loaded;
  const named = l?.example || l?.gen || l?.url;
  return {
    example: l?.example?.id,
    url: l?.url,
    gen: l?.gen,
    text: named ? undefined : l?.text,
    // A gallery model is named and imported again; a dropped one travels as its instance, with
    // the compiler's plan beside it.
    model: named || l?.text === undefined ? undefined : p.model ?? undefined,
    format: p.format || undefined,
    semantics: p.semantics,
    controls: { ...p.controls, threads: p.controls.threads === p.maxThreads ? undefined : p.controls.threads },
    compare: p.compare,
    tab: p.tab,
    run: p.ran,
    minimise: p.ran && p.minimised,
    embed: p.opened.embed,
    theme: p.opened.theme,
    autoplay: p.opened.autoplay,
  };
}

/** The address's query for a state (a pasted text longer than SYNC_TEXT_MAX left out), or null
 * when the address `current` (location.search) already says it. */
export function addressQuery(state: PageState, current: string): string | null {
  const kept = state.text !== undefined && state.text.length > SYNC_TEXT_MAX ? { ...state, text: undefined } : state;
  const query = encode(kept).query;
  return `?${query}` === current ? null : query;
}

/** Writes the address as the page changes, once the first screen is up (before, the address is
 * the one the page was opened with): at once after what the user did (a tab, a setting), and in
 * a task of its own after a load or a run (`syncLater`): `history.replaceState` took ~10 ms of the
 * task that shows a 500k-buffer plan on a loaded machine. */
export class AddressSync {
  private started = false;
  private pending = 0;

  constructor(private state: () => PageState) {}

  start() {
    this.started = true;
    this.write();
  }

  sync() {
    if (this.started) this.write();
  }

  /** As `sync`, in a later task (several in a row write once). */
  syncLater() {
    if (!this.started || this.pending) return;
    this.pending = window.setTimeout(() => this.write(), 0);
  }

  private write() {
    clearTimeout(this.pending);
    this.pending = 0;
    const query = addressQuery(this.state(), location.search);
    if (query !== null) history.replaceState(null, '', `?${query}`);
  }

  /** The share link: the whole address, and whether the instance had to be left out (it also
   * becomes the address). */
  link(): { url: string; omitted: boolean; modelOmitted: boolean } {
    clearTimeout(this.pending);
    this.pending = 0;
    const { query, omitted, modelOmitted } = encode(this.state());
    history.replaceState(null, '', `?${query}`);
    return { url: `${location.origin}${location.pathname}?${query}`, omitted, modelOmitted };
  }
}
