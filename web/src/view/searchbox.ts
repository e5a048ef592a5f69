// The plan toolbar's search box: typing marks the buffers whose id or name contains the text (over
// a veil, as the Model tab marks moved buffers) and says how many; Enter shows them all (the
// window around them), Escape clears. A new instance or plan searches again.
import { grouped } from '../format';
import type { PlanView } from './planview';
import { boundsOf, findBuffers } from './search';

/** Typing pauses this long before a search runs (one search per word, not per keystroke). */
const PAUSE_MS = 150;

export class SearchBox {
  /** The buffers the current text found. */
  matches: Uint32Array = new Uint32Array(0);
  private timer = 0;

  constructor(private input: HTMLInputElement, private count: HTMLElement, private view: PlanView) {
    input.addEventListener('input', () => {
      clearTimeout(this.timer);
      this.timer = window.setTimeout(() => this.search(), PAUSE_MS);
    });
    input.addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter') {
        ev.preventDefault();
        clearTimeout(this.timer);
        this.search();
        this.show();
      } else if (ev.key === 'Escape') {
        input.value = '';
        this.search();
      }
    });
    view.onData = () => this.search();
  }

  /** Marks the buffers the text finds and says how many. */
  search() {
    const data = this.view.plan;
    const query = this.input.value;
    this.matches = data ? findBuffers(data.inst, query) : new Uint32Array(0);
    const found = this.matches.length;
    this.view.setMarked(found ? this.matches : null);
    this.count.textContent = query.trim() === '' ? '' : found === 0 ? 'none' : `${grouped(found)} found`;
    this.count.dataset.count = query.trim() === '' ? '' : String(found);
    // The count is written inside the box, right: the text typed stops before it.
    this.input.style.paddingRight = this.count.textContent ? `${this.count.offsetWidth + 26}px` : '';
  }

  /** Zooms to the window around the buffers found. */
  show() {
    const data = this.view.plan;
    const box = data ? boundsOf(data.inst, data.result, this.matches) : null;
    if (!box) return;
    if (!data!.result) {
      // No plan: no addresses to show, only the time.
      const vp = this.view.viewport;
      box.y0 = vp.y0;
      box.y1 = vp.y1;
    }
    this.view.viewport.show(box);
  }
}
