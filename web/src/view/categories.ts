// Colours for what buffers hold (input, output, weight, variable, temporary), as the importers
// say. A small qualitative palette of mid-lightness hues, so that every colour stands out on the
// light and on the dark background alike; unknown is a neutral grey.
import type { InstanceData } from '../protocol';

const COLOURS: Record<string, string> = {
  input: '#3b82c4',
  output: '#e0663a',
  weight: '#9467bd',
  variable: '#d4a72c',
  temporary: '#4aa57a',
};

export const UNKNOWN_CATEGORY = 'unknown';
const UNKNOWN_COLOUR = '#8c8c8c';

/** The CSS colour of a category's name ('unknown' or a name the page does not know: grey). */
export function categoryColour(name: string): string {
  return COLOURS[name] ?? UNKNOWN_COLOUR;
}

/** True when some buffer of the instance says what it holds: only then is colouring by category
 * offered. */
export function hasCategories(inst: InstanceData | null): boolean {
  return !!inst && inst.categories.length > 0;
}

/** The categories the instance's buffers have, in the core's order, then 'unknown' when some
 * buffer has none: what the legend lists. */
export function categoriesPresent(inst: InstanceData): string[] {
  const seen = new Uint8Array(inst.categoryNames.length + 1);
  for (let i = 0; i < inst.categories.length; i++) seen[inst.categories[i]] = 1;
  const present = inst.categoryNames.filter((_, k) => seen[k + 1]);
  if (seen[0]) present.push(UNKNOWN_CATEGORY);
  return present;
}

/** The CSS colour of each code (0 = unknown, then the instance's category names in order). */
export function codeColours(inst: InstanceData): string[] {
  return [UNKNOWN_COLOUR, ...inst.categoryNames.map(categoryColour)];
}
