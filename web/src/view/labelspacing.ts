// Keeping the labels of the plot's horizontal lines (max load L, makespan, capacity) apart. The
// lines can be a pixel apart (a plan with no fragmentation has its makespan on L), and their
// labels, all at the right edge, would print over each other.

/** A label that wants its top edge at `y` and is `height` high (pixels, y grows downwards). */
export interface LabelBox {
  y: number;
  height: number;
}

/**
 * Where each label's top goes (in the input's order) so that no two overlap and all stay within
 * [min, max]: labels keep their wanted place when they can; one that would overlap the label above
 * it moves down, and when the lowest would pass `max` the run of labels is pushed back up.
 */
export function spreadLabels(labels: LabelBox[], min: number, max: number): number[] {
  const order = labels.map((_, k) => k).sort((a, b) => labels[a].y - labels[b].y);
  const placed = new Array<number>(labels.length);
  let bottom = -Infinity;
  for (const k of order) {
    const y = Math.max(labels[k].y, bottom, min);
    placed[k] = y;
    bottom = y + labels[k].height;
  }
  // Past the bottom edge: push up from the last label, each one only as far as it has to go.
  let limit = max;
  for (let j = order.length - 1; j >= 0; j--) {
    const k = order[j];
    const y = Math.min(placed[k], limit - labels[k].height);
    placed[k] = y;
    limit = y;
  }
  return placed;
}

/** True when two placed labels overlap. */
export function overlaps(a: number, aHeight: number, b: number, bHeight: number): boolean {
  return a < b + bHeight && b < a + aHeight;
}
