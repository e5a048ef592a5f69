// The peak: the time of the max load L, where the most bytes are alive at once (and so where no
// plan can be lower). The plan view marks it on its time axis with a small button; clicking it
// (or the toolbar's "peak") centres and zooms the view there and pins the hover list of the
// buffers alive then, so that what makes the peak can be read without hunting for it.
import type { InstanceData } from '../protocol';
import type { Range } from './viewport';

/** The peak's first step: over [time, end), `load` (the max load L) is alive. */
export interface Peak {
  time: number;
  end: number;
  load: number;
}

/** The first step of the load profile that holds the max load (ties: the earliest); null for an
 * instance without steps. */
export function peakOf(inst: Pick<InstanceData, 'profileTimes' | 'profileLoads'>): Peak | null {
  const t = inst.profileTimes, l = inst.profileLoads;
  if (l.length === 0) return null;
  let k = 0;
  for (let i = 1; i < l.length; i++) if (l[i] > l[k]) k = i;
  return { time: t[k], end: k + 1 < t.length ? t[k + 1] : t[k] + 1, load: l[k] };
}

/** The window a jump to the peak shows: the peak's step in the middle, twelve times its length or
 * a twentieth of the whole span wide, whichever is wider; the addresses as in `full`. */
export function peakWindow(peak: Peak, full: Range): Range {
  const middle = (peak.time + peak.end) / 2;
  const half = Math.max((peak.end - peak.time) * 6, (full.x1 - full.x0) / 40, 1);
  return { x0: middle - half, x1: middle + half, y0: full.y0, y1: full.y1 };
}

/** The peak's mark on the plan view's time axis: a small button under the plot at the peak's
 * time (hidden when the window does not hold it). */
export class PeakMarker {
  readonly button: HTMLButtonElement;
  /** Where it was last put (CSS pixels), so that a frame that moves nothing writes no style. */
  private at = '';

  constructor(host: HTMLElement, onClick: () => void, testid?: string) {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'peak-marker';
    b.textContent = '▲ peak';
    b.hidden = true;
    if (testid) b.dataset.testid = `${testid}-peak`;
    b.addEventListener('click', onClick);
    this.button = b;
    host.append(b);
  }

  /** Its width (CSS pixels), measured once shown (its text never changes); a guess before. */
  get width(): number {
    if (!this.measured && !this.button.hidden && this.button.isConnected) this.measured = this.button.offsetWidth;
    return this.measured || 48;
  }

  private measured = 0;

  /** Puts the mark's tip at `x` (CSS pixels from the host's left edge) on the line `y` (the
   * plot's bottom edge), or hides it (x null); `title` says what the peak is. */
  place(x: number | null, y: number, title: string) {
    const at = x === null ? 'hidden' : `${Math.round(x)},${Math.round(y)},${title}`;
    if (at === this.at) return;
    this.at = at;
    this.button.hidden = x === null;
    if (x === null) return;
    this.button.title = title;
    this.button.dataset.x = String(Math.round(x));
    this.button.style.transform = `translate(calc(${Math.round(x)}px - 50%), ${Math.round(y)}px)`;
  }
}
