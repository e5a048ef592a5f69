import { describe, expect, it } from 'vitest';
import type { InstanceData, SolveResult } from '../../web/src/protocol';
import { fitLabel, inkOn, labelOf, placeLabels } from '../../web/src/view/labels';
import { frameOf, scalesOf } from '../../web/src/view/scales';
import { pack } from '../../web/src/view/colors';

/** Buffers [start, end, size, offset], with ids and optional names. */
function plan(buffers: [number, number, number, number][], ids: string[], names: string[] = []) {
  const offsets = (list: string[]) => Uint32Array.from([0, ...list.map((_, i) => list.slice(0, i + 1).join('').length)]);
  const inst = {
    n: buffers.length,
    idText: ids.join(''),
    idOffsets: offsets(ids),
    nameText: names.join(''),
    nameOffsets: names.length ? offsets(names) : new Uint32Array(0),
    startsF: Float64Array.from(buffers, (b) => b[0]),
    endsF: Float64Array.from(buffers, (b) => b[1]),
    sizesF: Float64Array.from(buffers, (b) => b[2]),
    pieceStart: new Uint32Array(0),
  } as unknown as InstanceData;
  const result = { offsetsF: Float64Array.from(buffers, (b) => b[3]) } as unknown as SolveResult;
  return { inst, result };
}

describe('fitLabel', () => {
  it('keeps a text that fits, whole', () => {
    expect(fitLabel('conv2d', 60, 6)).toBe('conv2d');
    expect(fitLabel('conv2d', 36, 6)).toBe('conv2d');
  });
  it('shortens in the middle, keeping more of the end', () => {
    expect(fitLabel('activation_11', 42, 6)).toBe('ac…n_11');
    expect(fitLabel('activation_11', 42, 6)!.length).toBe(7);
  });
  it('gives nothing when too little of a long text fits, or for no text', () => {
    expect(fitLabel('activation_1', 36, 6)).toBeNull();
    expect(fitLabel('17', 12, 6)).toBe('17');
    expect(fitLabel('', 100, 6)).toBeNull();
  });
});

describe('inkOn', () => {
  it('writes white on dark fills and black on light ones', () => {
    expect(inkOn(pack('#000000'))).toBe('#fff');
    expect(inkOn(pack('#440154'))).toBe('#fff'); // viridis's dark end
    expect(inkOn(pack('#fde725'))).toBe('#000'); // viridis's light end
    expect(inkOn(pack('#ffffff'))).toBe('#000');
  });
});

describe('labelOf and placeLabels', () => {
  const { inst, result } = plan(
    [[0, 50, 50, 0], [50, 100, 50, 0], [0, 1, 1, 60], [0, 100, 10, 90]],
    ['a', 'b', 'c', 'long-id'],
    ['input', '', 'tiny', ''],
  );
  // A plot 1000 x 500 device pixels over times 0-100 and addresses 0-100: 10 px per time step,
  // 5 px per byte.
  const frame = frameOf(1096, 550, 1, 84);
  const window = { x0: 0, x1: 100, y0: 0, y1: 100 };
  const metrics = { charWidth: 6, lineHeight: 11, pad: 3 };
  const all = { visible: Uint32Array.of(0, 1, 2, 3), count: 4 };

  it('says the name, else the id', () => {
    expect(labelOf(inst, 0)).toBe('input');
    expect(labelOf(inst, 1)).toBe('b');
    expect(labelOf(inst, 3)).toBe('long-id');
  });

  it('labels the rectangles with room, in their left part, vertically centred', () => {
    expect(frame.pw).toBe(1000);
    expect(frame.ph).toBe(500);
    const labels = placeLabels(frame, scalesOf(frame, window), inst, result, all, metrics);
    // Buffer 1's id is one character (no label needs three if the text is shorter); buffer 2 is
    // 10 x 5 pixels: no room.
    expect(labels.map((l) => [l.index, l.text])).toEqual([[0, 'input'], [1, 'b'], [3, 'long-id']]);
    const first = labels[0];
    expect(first.x).toBe(frame.left + 3);
    expect(first.y).toBe(frame.top + 500 - 125);
  });

  it('follows the part of a rectangle inside the plot, and the filter', () => {
    const zoomed = { x0: 25, x1: 75, y0: 0, y1: 100 };
    const labels = placeLabels(frame, scalesOf(frame, zoomed), inst, result, all, metrics, (i) => i !== 1);
    expect(labels.map((l) => l.index)).toEqual([0, 3]);
    expect(labels[0].x).toBe(frame.left + 3); // buffer 0 starts left of the window
  });
});

describe('placeLabels on a buffer with gaps', () => {
  // One buffer over times 0-100, 40 bytes at offset 20, alive in two pieces: times 0-20 (all 40
  // bytes) and 30-100 (its lower 20 bytes); and one plain buffer. Same plot: 10 px per time
  // step, 5 px per byte.
  const { inst, result } = plan([[0, 100, 40, 20], [0, 100, 10, 0]], ['gapped', 'plain'], ['conv/Relu6', '']);
  inst.pieceStart = Uint32Array.of(0, 2, 2);
  (inst as unknown as { pieces: Float64Array }).pieces = Float64Array.of(0, 20, 0, 40, 30, 100, 0, 20);
  const frame = frameOf(1096, 550, 1, 84);
  const metrics = { charWidth: 6, lineHeight: 11, pad: 3 };
  const all = { visible: Uint32Array.of(0, 1), count: 2 };

  it('writes the name on its largest live piece in view, not on its hull', () => {
    const labels = placeLabels(frame, scalesOf(frame, { x0: 0, x1: 100, y0: 0, y1: 100 }), inst, result, all, metrics);
    expect(labels.map((l) => [l.index, l.text])).toEqual([[0, 'conv/Relu6'], [1, 'plain']]);
    // The second piece: 700 x 100 px against 200 x 200; its box is times 30-100, addresses 20-40.
    expect(labels[0].x).toBe(frame.left + 300 + 3);
    expect(labels[0].y).toBe(frame.top + 500 - 150);
  });

  it('takes the piece the window shows more of, and none when no piece has room', () => {
    // Times 0-25: the first piece is 20 time steps of 40 bytes, the second 0 → the first.
    const early = placeLabels(frame, scalesOf(frame, { x0: 0, x1: 25, y0: 0, y1: 100 }), inst, result, all, metrics);
    expect(early[0].index).toBe(0);
    expect(early[0].x).toBe(frame.left + 3);
    expect(early[0].y).toBe(frame.top + 500 - 200);
    // Addresses 0-10,000: every piece is 2 px high, no room.
    const flat = placeLabels(frame, scalesOf(frame, { x0: 0, x1: 100, y0: 0, y1: 10_000 }), inst, result, all, metrics);
    expect(flat.map((l) => l.index)).toEqual([]);
  });
});
