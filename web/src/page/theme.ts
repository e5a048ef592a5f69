// Light or dark, and the embed's compact layout: what the address the page was opened with says
// about how the page looks, applied before anything is drawn.
import type { PageState } from '../share';
import { $ } from '../dom';

/** A link's `theme` (an embed matching the page around it), else the system's, followed as it
 * changes. Call before the plan view reads the colours. */
export function applyTheme(initial: PageState) {
  const darkScheme = matchMedia('(prefers-color-scheme: dark)');
  const apply = () => {
    document.documentElement.dataset.theme = initial.theme ?? (darkScheme.matches ? 'dark' : 'light');
  };
  apply();
  darkScheme.addEventListener('change', apply);
}

/** Compact layout for an iframe: the plan, and the solver, Run and Cancel moved into the top bar,
 * with a link that opens the same state in the full playground. */
export function applyEmbed() {
  document.body.classList.add('embed');
  const strip = document.createElement('span');
  strip.className = 'embed-strip';
  const full = document.createElement('a');
  full.textContent = 'open in the playground ↗';
  full.target = '_blank';
  full.href = `${location.pathname}?${new URLSearchParams(Array.from(new URLSearchParams(location.search)).filter(([k]) => k !== 'embed'))}`;
  strip.append($('solver-select'), $('run-button'), $('cancel-button'), full);
  $('status').before(strip);
}
