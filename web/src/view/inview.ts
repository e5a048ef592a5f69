// The buffers in the plan view's window, and the overview's envelope over them: what a frame
// reuses while the window and plan stay the same, and what a large plan's first frame leaves to
// background tasks (see `prepare`).
import type { SolveResult } from '../protocol';
import type { ColourJob } from './colors';
import type { PlanData } from './plandata';
import { accumulateEnvelope } from './rectangles';
import { BLOCK, markAlive, startIndex, type StartIndex } from './timeblocks';

/** A background task works in chunks of this many buffers… */
const BACKGROUND_CHUNK = 8_192;
/** … until this much time has passed (ms), then leaves the thread to the page: a budget in time,
 * not in buffers, keeps each task short on a loaded machine too (a fixed 100k buffers, colours
 * by size with a logarithm each, took from ~20 to 200 ms there). */
const BACKGROUND_SLICE_MS = 8;

/** The window and plan a frame shows: what the visible list and the overview's envelope depend on. */
export interface WindowKey {
  data: PlanData;
  result: SolveResult;
  x0: number;
  x1: number;
  y0: number;
  y1: number;
  replayCount: number | null;
}

export const sameWindow = (a: WindowKey | null, b: WindowKey) =>
  a !== null && a.data === b.data && a.result === b.result && a.x0 === b.x0 && a.x1 === b.x1 &&
  a.y0 === b.y0 && a.y1 === b.y1 && a.replayCount === b.replayCount;

/** What the background job needs from the view. */
export interface InViewHooks {
  /** Each buffer's placement step (for a replay's window), or null. */
  rank(): Uint32Array | null;
  /** Whether this many buffers in view are drawn as the overview. */
  isOverview(count: number): boolean;
  /** The colours still to compute, or null when they are known. */
  colourJob(): ColourJob | null;
  keepColours(colors: Uint32Array): void;
  /** Schedules a frame. */
  draw(): void;
}

export class InView {
  /** `visible[0 .. count]`: the buffers in `key`'s window. */
  visible = new Uint32Array(0);
  count = 0;
  /** What `visible` was collected for; a frame with the same window and plan reuses it. */
  key: WindowKey | null = null;
  /** The overview's top edge per pixel column, for the window it was computed for. */
  envelope: { key: WindowKey; width: number; top: Float64Array } | null = null;
  /** The window being prepared in the background (visible buffers, envelope, colours), if any. */
  private background: { key: WindowKey; width: number } | null = null;

  constructor(private hooks: InViewHooks) {}

  /** True when no background job runs. */
  get idle(): boolean {
    return this.background === null;
  }

  /** Stops the background job (at its next slice). */
  cancel() {
    this.background = null;
  }

  /** The instance's index of lifetimes (see timeblocks.ts), built on first use. */
  private index: { inst: PlanData['inst']; index: StartIndex } | null = null;
  /** The buffers alive in a time window, one bit each (null: the window holds so many that a
   * plain scan is as fast), for the instance and times they were marked for. */
  private marks: { inst: PlanData['inst']; x0: number; x1: number; bits: Uint32Array | null } | null = null;
  private bits = new Uint32Array(0);

  /** Takes the instance's index (built in the worker with `byStart`), or builds it when the
   * instance came without one; returns whether it built it (then the background job gives the
   * next slice a task of its own). */
  private ensureIndex(inst: PlanData['inst']): boolean {
    if (this.index?.inst === inst || !inst.byStart || inst.byStart.length !== inst.n) return false;
    const blocks = Math.ceil(inst.n / BLOCK);
    if (inst.blockStart?.length === blocks && inst.blockMaxEnd?.length === blocks) {
      this.index = { inst, index: { order: inst.byStart, blockStart: inst.blockStart, blockMaxEnd: inst.blockMaxEnd } };
      return false;
    }
    this.index = { inst, index: startIndex(inst.byStart, inst.startsF, inst.endsF) };
    return true;
  }

  /** The bits of the buffers alive in times [x0, x1) (see `markAlive`), or null to scan them all. */
  private aliveBits(inst: PlanData['inst'], x0: number, x1: number): Uint32Array | null {
    const m = this.marks;
    if (m && m.inst === inst && m.x0 === x0 && m.x1 === x1) return m.bits;
    let bits: Uint32Array | null = null;
    if (inst.byStart && inst.byStart.length === inst.n && inst.n > 0) {
      this.ensureIndex(inst); // sets `index` for this instance (byStart checked above)
      const words = (inst.n + 31) >>> 5;
      if (this.bits.length !== words) this.bits = new Uint32Array(words);
      else this.bits.fill(0);
      // Marking looks at buffers in start order (scattered reads): worth it below a third of them.
      if (markAlive(this.index!.index, inst.startsF, inst.endsF, x0, x1, this.bits, inst.n / 3) >= 0) bits = this.bits;
    }
    this.marks = { inst, x0, x1, bits };
    return bits;
  }

  /** Appends to `visible` (from position `count`, returned advanced) the buffers among `from` to
   * `to` that are in `key`'s window (and placed so far, during a replay), in buffer order. Given
   * `top`, also raises it to their envelope as `accumulateEnvelope` does, in the same pass (a
   * zoomed-out frame of a large plan reads each buffer once, not twice). */
  collect(key: WindowKey, from: number, to: number, count: number, top: Float64Array | null = null): number {
    const { inst } = key.data;
    if (this.visible.length < inst.n) this.visible = new Uint32Array(inst.n);
    const { x0, x1, y0, y1 } = key;
    const s = inst.startsF, e = inst.endsF, z = inst.sizesF, o = key.result.offsetsF;
    const limit = key.replayCount;
    const rank = limit !== null ? this.hooks.rank() : null;
    const visible = this.visible;
    const bits = this.aliveBits(inst, x0, x1);
    const W = top ? top.length : 0, sx = W / (x1 - x0);
    if (bits === null) {
      for (let i = from; i < to; i++) {
        if (e[i] <= x0 || s[i] >= x1) continue;
        const off = o[i];
        if (off + z[i] <= y0 || off >= y1) continue;
        if (limit !== null && rank && rank[i] >= limit) continue;
        visible[count++] = i;
        if (top !== null) {
          // As accumulateEnvelope, the same arithmetic.
          const a = Math.max(0, Math.floor((s[i] - x0) * sx));
          const b = Math.min(W, Math.max(a + 1, Math.ceil((e[i] - x0) * sx)));
          const up = o[i] + z[i];
          for (let x = a; x < b; x++) if (top[x] < up) top[x] = up;
        }
      }
      return count;
    }
    if (top !== null) {
      // Few buffers in view: the envelope in its own pass.
      const first = count;
      count = this.collect(key, from, to, count);
      accumulateEnvelope(top, x0, x1, inst, key.result, visible, first, count);
      return count;
    }
    // The marked buffers, in buffer order: alive in the window's times; then its addresses.
    for (let w = from >>> 5, lastWord = (to + 31) >>> 5; w < lastWord; w++) {
      let word = bits[w];
      while (word !== 0) {
        const bit = 31 - Math.clz32(word & -word);
        word &= word - 1;
        const i = (w << 5) + bit;
        if (i < from || i >= to) continue;
        const off = o[i];
        if (off + z[i] <= y0 || off >= y1) continue;
        if (limit !== null && rank && rank[i] >= limit) continue;
        visible[count++] = i;
      }
    }
    return count;
  }

  /**
   * Gathers the buffers in `key`'s window, then the envelope over them for the overview (or the
   * buffers' colours), in tasks of about BACKGROUND_SLICE_MS each, and draws again when done. A
   * frame for another window or plan replaces the job, and the old one stops at its next slice.
   */
  prepare(key: WindowKey, width: number) {
    if (this.background && sameWindow(this.background.key, key) && this.background.width === width) return;
    const job = { key, width };
    this.background = job;
    const hooks = this.hooks;
    const n = key.data.inst.n;
    let phase: 'visible' | 'envelope' | 'colours' = sameWindow(this.key, key) ? 'envelope' : 'visible';
    if (phase === 'visible') this.key = null; // `visible` is rewritten from here on
    let next = 0, count = 0;
    const top = new Float64Array(width);
    let colouring: ColourJob | null = null;
    const slice = () => {
      if (this.background !== job) return;
      const began = performance.now();
      const more = () => performance.now() - began < BACKGROUND_SLICE_MS;
      if (phase === 'visible') {
        if (next === 0 && this.ensureIndex(key.data.inst)) return void setTimeout(slice, 0);
        do {
          const end = Math.min(n, next + BACKGROUND_CHUNK);
          count = this.collect(key, next, end, count);
          next = end;
        } while (next < n && more());
        if (next < n) return void setTimeout(slice, 0);
        this.count = count;
        this.key = key;
        phase = hooks.isOverview(count) ? 'envelope' : 'colours';
        next = 0;
        return void setTimeout(slice, 0);
      }
      if (phase === 'envelope') {
        do {
          const end = Math.min(this.count, next + BACKGROUND_CHUNK);
          accumulateEnvelope(top, key.x0, key.x1, key.data.inst, key.result, this.visible, next, end);
          next = end;
        } while (next < this.count && more());
        if (next < this.count) return void setTimeout(slice, 0);
        this.envelope = { key, width, top };
        // The overview is complete: show it; the colours that zooming in will need follow.
        hooks.draw();
        phase = 'colours';
        return void setTimeout(slice, 0);
      }
      colouring ??= hooks.colourJob();
      if (colouring) {
        let done = false;
        while (!(done = colouring.step(BACKGROUND_CHUNK)) && more());
        if (!done) return void setTimeout(slice, 0);
        hooks.keepColours(colouring.out);
      }
      this.background = null;
      hooks.draw();
    };
    setTimeout(slice, 0);
  }
}
