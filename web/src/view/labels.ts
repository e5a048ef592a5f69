// Names on the rectangles, as memory_viz and Perfetto write them: a buffer's name (else its id)
// inside its rectangle when the text fits the rectangle's pixel box, shortened with an ellipsis
// when only part of it fits, in black or white, whichever reads on the fill.
//
// Cost: labels are looked for among the buffers already in view (never the whole instance), a
// rectangle too small for a few characters is skipped on two multiplications, and at most
// LABEL_LIMIT labels are written per frame (each is a canvas call).
import type { InstanceData, SolveResult } from '../protocol';
import { bufferId, bufferName } from './tooltip';
import type { VisibleBuffers } from './rectangles';
import type { Frame, Scales } from './scales';

/** At most this many labels per frame; the largest rectangles do not win, the first in view do. */
export const LABEL_LIMIT = 600;
/** Fewer characters than this is no label. */
const MIN_CHARS = 3;
/** A shortened label needs room for this many (ellipsis included): `a…n_1` says too little. */
const MIN_SHORTENED = 7;

/** What a rectangle says: the buffer's name, else its id. */
export function labelOf(inst: InstanceData, i: number): string {
  return bufferName(inst, i) || bufferId(inst, i);
}

/** `text` as it fits in `width` pixels of characters `charWidth` wide (a monospace font): whole,
 * or shortened in the middle (a third of the room for its start, the rest for its end: names
 * differ at their ends, as `activation_11` from `activation_12` or `block_3/conv/Relu6`) when
 * MIN_SHORTENED characters fit, else null. */
export function fitLabel(text: string, width: number, charWidth: number): string | null {
  const room = Math.floor(width / charWidth);
  if (text.length <= room) return text.length > 0 ? text : null;
  if (room < MIN_SHORTENED) return null;
  const head = Math.floor((room - 1) / 3), tail = room - 1 - head;
  return `${text.slice(0, head)}…${text.slice(text.length - tail)}`;
}

/** Black or white, whichever contrasts more with a packed fill colour (0xAABBGGRR): by the fill's
 * relative luminance (WCAG), white below 0.18, where the two contrast equally. */
export function inkOn(rgba: number): string {
  const channel = (c: number) => {
    const v = c / 255;
    return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * channel(rgba & 255) + 0.7152 * channel((rgba >>> 8) & 255) + 0.0722 * channel((rgba >>> 16) & 255);
  return luminance < 0.18 ? '#fff' : '#000';
}

/** A label placed on the canvas (device pixels): its text starts at (x, y), y its middle. */
export interface PlacedLabel {
  index: number;
  text: string;
  x: number;
  y: number;
}

/**
 * The labels of the buffers in view whose rectangle, as far as it lies inside the plot, has room
 * for a line of text (`lineHeight` high) and MIN_CHARS characters (`charWidth` wide) beside a
 * `pad` on each side (and, given `only`, that it accepts). A buffer with gaps is drawn as its live
 * pieces, not its hull: its label goes on its largest piece in view, when that piece has room.
 */
export function placeLabels(
  frame: Frame,
  scales: Scales,
  inst: InstanceData,
  result: SolveResult,
  shown: VisibleBuffers,
  metrics: { charWidth: number; lineHeight: number; pad: number },
  only: ((index: number) => boolean) | null = null,
): PlacedLabel[] {
  const out: PlacedLabel[] = [];
  const { charWidth, lineHeight, pad } = metrics;
  const minWidth = MIN_CHARS * charWidth + 2 * pad, minHeight = lineHeight + pad;
  const left = frame.left, right = frame.left + frame.pw, top = frame.top, bottom = frame.top + frame.ph;
  const s = inst.startsF, e = inst.endsF, z = inst.sizesF, o = result.offsetsF;
  // Pixels per data unit: the size tests below need no scale calls.
  const sx = scales.X(1) - scales.X(0), sy = scales.Y(0) - scales.Y(1);
  const { pieceStart, pieces } = inst;
  /** The box (device pixels, clipped to the plot) of [t0, t1) x [a0, a1) when it has room. */
  const roomy = (t0: number, t1: number, a0: number, a1: number) => {
    const x0 = Math.max(left, scales.X(t0)), x1 = Math.min(right, scales.X(t1));
    const y0 = Math.max(top, scales.Y(a1)), y1 = Math.min(bottom, scales.Y(a0));
    return x1 - x0 < minWidth || y1 - y0 < minHeight ? null : { x0, x1, y0, y1 };
  };
  for (let k = 0; k < shown.count && out.length < LABEL_LIMIT; k++) {
    const i = shown.visible[k];
    if ((e[i] - s[i]) * sx < minWidth || z[i] * sy < minHeight) continue;
    if (only && !only(i)) continue;
    let box: { x0: number; x1: number; y0: number; y1: number } | null = null;
    if (pieceStart.length > 0 && pieceStart[i + 1] > pieceStart[i]) {
      // The live piece with the largest box in the plot.
      let area = 0;
      for (let p = pieceStart[i]; p < pieceStart[i + 1]; p++) {
        const q = 4 * p;
        const b = roomy(pieces[q], pieces[q + 1], o[i] + pieces[q + 2], o[i] + pieces[q + 3]);
        if (b && (b.x1 - b.x0) * (b.y1 - b.y0) > area) {
          box = b;
          area = (b.x1 - b.x0) * (b.y1 - b.y0);
        }
      }
    } else {
      box = roomy(s[i], e[i], o[i], o[i] + z[i]);
    }
    if (!box) continue;
    const text = fitLabel(labelOf(inst, i), box.x1 - box.x0 - 2 * pad, charWidth);
    if (text !== null) out.push({ index: i, text, x: box.x0 + pad, y: (box.y0 + box.y1) / 2 });
  }
  return out;
}

/** Writes the labels in the theme's font, each in the ink that reads on its buffer's colour. */
export function drawLabels(ctx: CanvasRenderingContext2D, labels: PlacedLabel[], colors: Uint32Array, font: string) {
  ctx.font = font;
  ctx.textBaseline = 'middle';
  ctx.textAlign = 'left';
  for (const label of labels) {
    ctx.fillStyle = inkOn(colors[label.index]);
    ctx.fillText(label.text, label.x, label.y);
  }
}
