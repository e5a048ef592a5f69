// What the plan view shows over its canvas while the pointer rests on it: a line at the hovered
// time, the buffer under the pointer (a tooltip that follows it) and the buffers alive at that
// time (a list in the plot's upper corner away from the pointer). Elements over the canvas, so
// that moving the pointer redraws nothing.
import type { InstanceData } from '../protocol';
import { aliveAt, type AliveAt } from './alive';
import type { Frame } from './scales';
import { besidePoint, describeAlive } from './tooltip';

/** The list names this many of the buffers alive at the hovered time… */
const ALIVE_LISTED = 10;
/** … and this many on a small plot (a phone), where it also gives way to a buffer's tooltip. */
const ALIVE_LISTED_SMALL = 5;

/** Where the pointer rests: the buffer under it (if any) and the time under it. */
export interface HoverInfo {
  index: number | null;
  time: number;
  /** The point, CSS pixels from the canvas's corner. */
  x: number;
  y: number;
}

export class HoverOverlay {
  private tooltip: HTMLElement;
  private aliveBox: HTMLElement;
  private cursor: HTMLElement;
  /** How long the last alive list took to compute, ms. */
  lastAliveMs = 0;
  /** The last list, kept for the instance, time and length it was computed for: a pinned list
   * is placed again on every frame while the view moves, and computed once. */
  private lastAlive: { inst: InstanceData; time: number; limit: number; alive: AliveAt } | null = null;

  constructor(host: HTMLElement, testid?: string) {
    this.cursor = element('time-cursor');
    this.tooltip = element('tooltip');
    this.aliveBox = element('alive-list');
    if (testid) this.aliveBox.dataset.testid = `${testid}-alive`;
    host.append(this.cursor, this.tooltip, this.aliveBox);
  }

  hide() {
    this.tooltip.hidden = this.aliveBox.hidden = this.cursor.hidden = true;
  }

  /**
   * Shows the overlay for a hover over `canvas` (`frame` its last layout): `describe(i)` gives
   * buffer i's tooltip; `labelTops` are where the marker lines' labels are (device pixels), which
   * the list stays below when it is on their (right) side. `pinned`: the list stays while the
   * pointer is away (the peak's), marked as such.
   */
  show(hover: HoverInfo, inst: InstanceData, canvas: HTMLCanvasElement, frame: Frame, describe: (i: number) => string, labelTops: number[], pinned = false) {
    const { dpr } = frame;
    const offset = canvas.offsetTop;
    const top = offset + frame.top / dpr;
    this.cursor.hidden = false;
    this.cursor.style.height = `${frame.ph / dpr}px`;
    this.cursor.style.transform = `translate(${Math.round(hover.x)}px, ${top}px)`;
    const bounds = { width: canvas.offsetWidth, height: offset + canvas.offsetHeight };
    if (hover.index === null) this.tooltip.hidden = true;
    else {
      this.tooltip.innerHTML = describe(hover.index);
      this.tooltip.hidden = false;
      const at = besidePoint(hover.x, hover.y + offset, this.tooltip.offsetWidth, this.tooltip.offsetHeight, bounds);
      this.tooltip.style.transform = `translate(${at.left}px, ${at.top}px)`;
    }
    const small = frame.pw / dpr < 480 || frame.ph / dpr < 260;
    if (small && hover.index !== null) {
      this.aliveBox.hidden = true;
      return;
    }
    const limit = small ? ALIVE_LISTED_SMALL : ALIVE_LISTED;
    const box = this.aliveBox;
    const kept = this.lastAlive;
    if (!kept || kept.inst !== inst || kept.time !== hover.time || kept.limit !== limit || box.classList.contains('pinned') !== pinned) {
      const began = performance.now();
      const alive = kept && kept.inst === inst && kept.time === hover.time && kept.limit === limit ? kept.alive : aliveAt(inst, hover.time, limit);
      this.lastAliveMs = performance.now() - began;
      this.lastAlive = { inst, time: hover.time, limit, alive };
      box.innerHTML = (pinned ? '<div class="alive-pin">pinned at the peak · Esc unpins</div>' : '') + describeAlive(inst, alive);
      box.classList.toggle('pinned', pinned);
      box.dataset.pinned = pinned ? 'true' : '';
      box.dataset.time = String(alive.time);
      box.dataset.count = String(alive.count);
      box.dataset.total = String(alive.total);
    }
    box.hidden = false;
    const plotLeft = frame.left / dpr, plotRight = (frame.left + frame.pw) / dpr;
    const onLeft = hover.x > (plotLeft + plotRight) / 2;
    const x = onLeft ? plotLeft + 6 : plotRight - box.offsetWidth - 6;
    let y = top + 6;
    if (!onLeft) {
      // Below the labels of L, makespan and capacity when they are near the top.
      const bottoms = labelTops.map((v) => (v + 14 * dpr) / dpr).filter((v) => v < (frame.top + frame.ph * 0.4) / dpr);
      if (bottoms.length) y = Math.max(y, offset + Math.max(...bottoms) + 4);
    }
    box.style.transform = `translate(${Math.max(0, x)}px, ${y}px)`;
  }
}

function element(className: string): HTMLElement {
  const e = document.createElement('div');
  e.className = className;
  e.hidden = true;
  return e;
}
