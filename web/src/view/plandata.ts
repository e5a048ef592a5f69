// What a plan view draws: an instance, the plan (if any) and the capacity. Its own module so
// that the parts of a view (the buffers in the window, ...) can name it without importing the
// view that uses them.
import type { InstanceData, SolveResult } from '../protocol';

export interface PlanData {
  inst: InstanceData;
  /** The plan to draw: only one the validator accepted is drawn (see `drawable` in planview.ts). */
  result: SolveResult | null;
  /** The capacity to draw (bytes), if any. */
  capacity: number | null;
}
