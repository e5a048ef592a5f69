// The top of a plan view's address axis: the highest line it must show (max load, capacity, the
// plan's peak) plus room above it for that line's label, which is drawn above the line. A fixed 4 %
// is enough on a desktop plot; on a phone or in an embed the plot is short and 4 % is a few pixels,
// so the label of a line at the top was cut off.

/** Height of a line's label above it, in CSS pixels (the view's font with a little air). */
const LABEL_PX = 18;

/** The axis top for `top` bytes on a plot about `plotPx` CSS pixels high. */
export function axisTop(top: number, plotPx: number): number {
  const room = Math.max(0.04, LABEL_PX / Math.max(plotPx - LABEL_PX, 60));
  return top * (1 + room) || 1;
}
