// The page's one DOM look-up: an element of index.html by id, typed as the caller expects. The
// ids are the page's own (index.html), so a missing one is a bug of the page, not of the input.

/** The element with this id, as the type the caller names (`$<HTMLInputElement>('seed')`). */
export const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
