// What the page shows, in one place: the instance, where it came from, the result, and whether a
// run is going on. The run lifecycle (session.ts) changes it; the panels read it.
import type { LoadRequest } from '../input';
import type { InstanceData, SolveResult } from '../protocol';

/** Why the last run ended without a summary, shown in the verdict's place: the request was refused
 * (or failed), or the single-threaded build's cancel ended its worker. */
export interface NoSummary {
  tone: 'interrupted' | 'infeasible';
  stopped: 'cancelled' | '';
  words: string;
  detail: string;
}

export class Shown {
  inst: InstanceData | null = null;
  loaded: LoadRequest | null = null;
  result: SolveResult | null = null;
  /** A solve (or a compare) is running or about to: from Run until its result is shown. */
  solving = false;
  /** The capacity (bytes) the shown result was minimised under: a "minimise" run leaves it out of
   * the request, so the page itself says whether the plan is within it. */
  minimisedUnder: string | null = null;
  noSummary: NoSummary | null = null;

  /** A new instance (or none): no result, nothing minimised, nothing to explain. */
  replaceInstance(inst: InstanceData | null, loaded: LoadRequest | null) {
    this.inst = inst;
    this.loaded = loaded;
    this.result = null;
    this.minimisedUnder = null;
    this.noSummary = null;
  }
}
