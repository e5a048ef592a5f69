// The element's "open in the playground" link: the playground's own share-link form (web/src/
// share.ts), so the playground opens the same instance with the same solver settings and runs it.
import { encode } from '../src/share';

export interface LinkOptions {
  /** The playground's address (its index page or folder). */
  base: string;
  /** The instance's address, absolute (the playground fetches it from its own page). */
  url?: string;
  /** The inline instance, when there is no address. */
  text?: string;
  solver: string;
  capacity?: string;
  seed?: string;
  timeLimit?: string;
}

/** The link, or null when the inline instance is too large for one (share.ts's MAX_INLINE). */
export function playgroundLink(o: LinkOptions): string | null {
  const { query, omitted } = encode({
    url: o.url,
    text: o.url ? undefined : o.text,
    controls: { solver: o.solver, capacity: o.capacity, seed: o.seed, timeLimit: o.timeLimit, params: {} },
    run: true,
  });
  if (omitted) return null;
  const target = new URL(o.base, document.baseURI);
  target.search = query;
  return target.href;
}
