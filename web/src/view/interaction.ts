// The plan view's pointer and keyboard: wheel zooms (time; with Shift the addresses; with Ctrl,
// Alt or Meta both) around the pointer, dragging pans, a click selects, a double click resets.
// Keys on the focused canvas (the hint under the plan lists them; KEYS below is the one list):
// arrows pan, W/S zoom time in/out and A/D pan time (as in Perfetto), + - zoom time, * / zoom
// addresses, Z or F zoom to the selected buffer, 0 resets, Escape clears the selection. Hover is
// reported once per animation frame, however many pointer events arrive.
import type { Viewport } from './viewport';

/** A point on the canvas in CSS pixels. */
export interface Point {
  x: number;
  y: number;
}

export interface InteractionTarget {
  /** The data point (time x, address y) under a canvas point. */
  toData(cssX: number, cssY: number): { x: number; y: number };
  /** The pointer rests at a point (null: it left the canvas or started a drag). */
  hover(point: Point | null): void;
  /** A click (no drag) at a point. */
  click(point: Point): void;
  /** Escape: clear the selection. */
  clearSelection(): void;
  /** Z or F: show the selected buffer (nothing without one). */
  zoomToSelection(): void;
}

/** What each key does, by `KeyboardEvent.key` (letters either case); the hint under the plan says
 * the same. Pans move a tenth of the window, zooms scale it by 0.8 or 1.25 around its centre. */
export const KEYS: Record<string, string> = {
  ArrowLeft: 'pan left', ArrowRight: 'pan right', ArrowUp: 'pan up', ArrowDown: 'pan down',
  a: 'pan left', d: 'pan right', w: 'zoom time in', s: 'zoom time out',
  '+': 'zoom time in', '=': 'zoom time in', '-': 'zoom time out',
  '*': 'zoom addresses in', '/': 'zoom addresses out',
  z: 'zoom to the selection', f: 'zoom to the selection', '0': 'reset', Escape: 'clear the selection',
};

export function attachInteractions(canvas: HTMLCanvasElement, viewport: Viewport, target: InteractionTarget) {
  let drag: { x: number; y: number; moved: boolean; id: number } | null = null;
  let pendingHover: Point | null = null;
  const local = (ev: MouseEvent): Point => {
    const r = canvas.getBoundingClientRect();
    return { x: ev.clientX - r.left, y: ev.clientY - r.top };
  };
  canvas.addEventListener(
    'wheel',
    (ev) => {
      ev.preventDefault();
      const p = local(ev);
      const d = target.toData(p.x, p.y);
      const factor = Math.exp(Math.max(-300, Math.min(300, ev.deltaY)) * 0.0018);
      const both = ev.ctrlKey || ev.altKey || ev.metaKey;
      viewport.zoom(factor, d.x, d.y, { x: both || !ev.shiftKey, y: both || ev.shiftKey });
    },
    { passive: false },
  );
  canvas.addEventListener('pointerdown', (ev) => {
    if (ev.button !== 0) return;
    drag = { ...local(ev), moved: false, id: ev.pointerId };
    canvas.setPointerCapture(ev.pointerId);
  });
  canvas.addEventListener('pointermove', (ev) => {
    const p = local(ev);
    if (drag) {
      const dx = p.x - drag.x, dy = p.y - drag.y;
      if (!drag.moved && Math.hypot(dx, dy) < 3) return;
      drag.moved = true;
      const a = target.toData(drag.x, drag.y), b = target.toData(p.x, p.y);
      viewport.pan(a.x - b.x, a.y - b.y);
      drag.x = p.x;
      drag.y = p.y;
      target.hover(null);
      return;
    }
    if (pendingHover === null) {
      requestAnimationFrame(() => {
        const q = pendingHover;
        pendingHover = null;
        if (q) target.hover(q);
      });
    }
    pendingHover = p;
  });
  canvas.addEventListener('pointerleave', () => {
    pendingHover = null;
    target.hover(null);
  });
  canvas.addEventListener('pointerup', (ev) => {
    if (!drag) return;
    const wasClick = !drag.moved;
    canvas.releasePointerCapture(drag.id);
    drag = null;
    if (wasClick) target.click(local(ev));
  });
  canvas.addEventListener('dblclick', () => viewport.reset());
  canvas.addEventListener('keydown', (ev) => {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return; // Ctrl+Enter runs, Ctrl+W closes: not ours
    const vp = viewport;
    const cx = (vp.x0 + vp.x1) / 2, cy = (vp.y0 + vp.y1) / 2;
    const w = vp.x1 - vp.x0, h = vp.y1 - vp.y0;
    const zoomTime = (factor: number) => () => vp.zoom(factor, cx, cy, { x: true, y: false });
    const actions: Record<string, () => void> = {
      'pan left': () => vp.pan(-w * 0.1, 0),
      'pan right': () => vp.pan(w * 0.1, 0),
      'pan up': () => vp.pan(0, h * 0.1),
      'pan down': () => vp.pan(0, -h * 0.1),
      'zoom time in': zoomTime(0.8),
      'zoom time out': zoomTime(1.25),
      'zoom addresses in': () => vp.zoom(0.8, cx, cy, { x: false, y: true }),
      'zoom addresses out': () => vp.zoom(1.25, cx, cy, { x: false, y: true }),
      'zoom to the selection': () => target.zoomToSelection(),
      reset: () => vp.reset(),
      'clear the selection': () => target.clearSelection(),
    };
    const key = ev.key.length === 1 ? ev.key.toLowerCase() : ev.key;
    const action = KEYS[key] ? actions[KEYS[key]] : undefined;
    if (action) {
      ev.preventDefault();
      action();
    }
  });
}
