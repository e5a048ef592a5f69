// One solver worker for every <memplan-plan> on a page: the playground's Engine (web/src/engine.ts)
// and worker, started on the first element's first run. The worker holds one loaded instance at a
// time, so each element's parse and solve run together, one element after another.
import { Engine } from '../src/engine';
import type { InstanceData, SolveResult, Source } from '../src/protocol';
import type { SolveRequest } from '../src/generated/core';

let started: Promise<Engine> | null = null;
let queue: Promise<unknown> = Promise.resolve();

function engine(): Promise<Engine> {
  started ??= (async () => {
    const e = new Engine(1);
    await e.start(1);
    return e;
  })();
  // A worker that failed to start is tried again by the next run.
  started.catch(() => (started = null));
  return started;
}

/** Parses `source` (the format told by its content) and solves it with `request`. */
export function parseAndSolve(source: Source, request: SolveRequest): Promise<{ inst: InstanceData; result: SolveResult }> {
  const run = queue.then(async () => {
    const e = await engine();
    const inst = await e.parse(source, '', 'half-open');
    const result = await e.solve(request);
    return { inst, result };
  });
  queue = run.catch(() => undefined);
  return run;
}
