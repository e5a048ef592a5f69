// The plan view's colours and font, read from the page's CSS variables (light or dark follows the
// system, so they are read again when the scheme changes).

export interface Theme {
  bg: string;
  plotBg: string;
  fg: string;
  muted: string;
  grid: string;
  accent: string;
  load: string;
  maxLoad: string;
  makespan: string;
  capacity: string;
  frag: string;
  select: string;
  conflict: string;
  /** The CSS font at one device pixel per CSS pixel; see `fontAt`. */
  font: string;
}

export function readTheme(element: Element): Theme {
  const s = getComputedStyle(element);
  const v = (name: string) => s.getPropertyValue(name).trim();
  return {
    bg: v('--bg'),
    plotBg: v('--plot-bg'),
    fg: v('--fg'),
    muted: v('--muted'),
    grid: v('--grid'),
    accent: v('--accent'),
    load: v('--load'),
    maxLoad: v('--max-load'),
    makespan: v('--makespan'),
    capacity: v('--capacity'),
    frag: v('--frag'),
    select: v('--select'),
    conflict: v('--conflict'),
    font: `11px ${v('--mono')}`,
  };
}

/** The theme's font scaled to `dpr` device pixels per CSS pixel (the canvas draws in device
 * pixels), optionally `weight` (e.g. '600 ') in front. */
export function fontAt(theme: Theme, dpr: number, weight = ''): string {
  return weight + theme.font.replace(/^(\d+)px/, (_, px) => `${Number(px) * dpr}px`);
}
