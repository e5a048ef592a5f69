// The colour legend beside a plan, as HTML: per-category swatches when colouring by category (the
// categories the instance has), else the mode's gradient between its two end words. The plan
// tab and the Model tab show the same one, with a key to the load curve drawn over the buffers.
import type { InstanceData } from '../protocol';
import { LEGEND_ENDS, legendGradient, type ColorBy } from './colors';
import { categoriesPresent, categoryColour } from './categories';

export function legendHtml(mode: ColorBy, inst: InstanceData | null): string {
  return `${colourKey(mode, inst)}${LOAD_KEY}`;
}

/** The line every plan draws over its buffers: the bytes alive at each time (its peak is L). */
const LOAD_KEY = '<span class="key" data-key="load" title="the load: the bytes alive at each time; its peak is the max load L, below which no plan can go"><i class="line"></i>load</span>';

function colourKey(mode: ColorBy, inst: InstanceData | null): string {
  if (mode === 'category') {
    const present = inst ? categoriesPresent(inst) : [];
    return present
      .map((name) => `<span class="category" data-category="${name}"><i class="swatch" style="background:${categoryColour(name)}"></i>${name}</span>`)
      .join('');
  }
  const [low, high] = LEGEND_ENDS[mode];
  return mode === 'id' ? `<i style="background:${legendGradient(mode)}"></i>` : `${low} <i style="background:${legendGradient(mode)}"></i> ${high}`;
}
