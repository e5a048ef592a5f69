// The element's inline instance and its "open in the playground" link: the playground's own share-link form (web/src/
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

/** The link, or null when the inline instance is too large for one (share.ts's MAX_INLINE);
 * a relative `base` is read against `baseURI` (the page's address). */
export function playgroundLink(o: LinkOptions, baseURI = document.baseURI): string | null {
  const { query, omitted } = encode({
    url: o.url,
    text: o.url ? undefined : o.text,
    controls: { solver: o.solver, capacity: o.capacity, seed: o.seed, timeLimit: o.timeLimit, params: {} },
    run: true,
  });
  if (omitted) return null;
  const target = new URL(o.base, baseURI);
  target.search = query;
  return target.href;
}

/** An inline instance as written in HTML, indented with the page: each line without the spaces
 * around it, no blank lines at either end (a CSV field or JSON token never starts with a space). */
export function dedent(text: string): string {
  return text.split('\n').map((line) => line.trim()).join('\n').trim();
}
