// The element's inline instance and its "open in the playground" link: the playground's own share-link form (web/src/
// share.ts), so the playground opens the same instance with the same solver settings and runs it.
import { encode, MAX_INLINE } from '../src/share';

/** An inline instance longer than this (characters) gets no link without being compressed: it
 * would have to shrink about 20 times to fit MAX_INLINE base64 characters, which instance text
 * does not, and compressing it (deflate level 9, about 2 ms per KiB) would hold the host page. */
export const LINK_TEXT_LIMIT = 16 * MAX_INLINE;

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
  if (!o.url && (o.text?.length ?? 0) > LINK_TEXT_LIMIT) return null;
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
