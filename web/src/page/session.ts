// The run lifecycle: loading an input (or importing a model) in the worker, solving it, cancelling,
// and the rules that keep them consistent: a load that finds a newer one on its return is dropped,
// a run whose instance is no longer shown drops its result, and Run solves exactly what the editor
// holds when it is pressed. What the page then shows is the hooks' business.
import { EngineError, type Engine } from '../engine';
import type { InputPanel, LoadRequest } from '../input';
import type { Controls } from '../controls';
import type { ImportedModel, InstanceData, ModelSource, SolveResult } from '../protocol';
import { ProgressTrace, progressLine } from '../progress';
import { duration, grouped } from '../format';
import { toneOf } from '../verdict';
import { setStatus } from './status';
import { showSummary } from './results';
import type { Shown } from './state';

export interface SessionHooks {
  /** The instance changed: loaded (`loaded`), or none after a failed load. */
  instanceChanged(loaded: boolean): void;
  /** The result changed: `fit`, a new plan the view fits its addresses to; `sync`, a run's (the
   * address says the page ran). */
  resultChanged(fit: boolean, sync: boolean): void;
  /** A run started or ended, or the input changed: Run, Cancel and Compare's Run are enabled as
   * `shown.solving` and the input allow. */
  updateButtons(): void;
  /** A run's progress line and trace, four times a second. */
  running(line: string, trace: ProgressTrace): void;
  /** A run ended (with a result or without): the verdict is the run's, or the last result's. */
  runEnded(): void;
}

/** How a run of the page's instance is asked for, beyond the controls. */
export interface RunOptions {
  /** Leave the capacity out, so that a solver that would stop at the first plan within it
   * minimises instead. */
  minimise?: boolean;
  /** A plan to start from (a compiler's): the core keeps it where beating it costs moves only. */
  warmStart?: BigUint64Array;
}

export class Session {
  /** The newest load asked for; a load that finds a newer one on its return is dropped. */
  private loadSerial = 0;
  /** The load that `shown.inst` came from: a run whose instance is no longer shown drops its result. */
  private instSerial = 0;
  /** The newest load; it settles once that load has been applied, dropped or refused. */
  private pendingLoad: Promise<boolean> = Promise.resolve(false);

  constructor(
    private shown: Shown,
    private engine: Engine,
    private input: InputPanel,
    private controls: Controls,
    private hooks: SessionHooks,
  ) {}

  /** Starts a load (the input panel's request); `settle` waits for it. */
  request(request: LoadRequest) {
    this.pendingLoad = this.load(request);
  }

  setBusy(busy: boolean) {
    this.shown.solving = busy;
    this.hooks.updateButtons();
  }

  /** Loads an edit still waiting for its pause, then waits until every load asked for so far has
   * been applied (or refused): a run solves exactly what the editor holds when Run is pressed. */
  async settle(): Promise<InstanceData | null> {
    this.input.flush();
    for (let seen: Promise<boolean> | null = null; seen !== this.pendingLoad; ) {
      seen = this.pendingLoad;
      await seen;
    }
    return this.shown.inst;
  }

  private async load(request: LoadRequest): Promise<boolean> {
    const serial = ++this.loadSerial;
    if (this.shown.solving) await this.engine.cancel();
    setStatus(`parsing ${request.example?.name ?? (request.source.kind === 'generate' ? `a ${grouped(request.source.buffers)}-buffer trace` : 'input')}…`, 'busy');
    this.input.showErrors([]);
    const began = performance.now();
    try {
      const parsed = await this.engine.parse(request.source, this.input.format, this.input.semantics);
      if (serial !== this.loadSerial) return false;
      this.showLoaded(parsed, request, serial, began, request.example?.capacity ?? null);
      if (parsed.n > 0 && parsed.summary.pinned === parsed.n) await this.showInputPlan();
      return true;
    } catch (error) {
      if (serial !== this.loadSerial) return false;
      this.showLoadFailure(error, serial, request.text);
      return false;
    } finally {
      this.hooks.updateButtons();
    }
  }

  /** Imports a model file in the worker and loads its instance (as CSV text, ids = the compiler's)
   * like any input; null when it was refused or a newer load replaced it. */
  async loadModel(source: ModelSource): Promise<ImportedModel | null> {
    const serial = ++this.loadSerial;
    let settled!: (ok: boolean) => void;
    this.pendingLoad = new Promise((resolve) => (settled = resolve));
    if (this.shown.solving) await this.engine.cancel();
    setStatus(`importing ${source.kind === 'url' ? source.name : source.file.name}…`, 'busy');
    this.input.showErrors([]);
    const began = performance.now();
    try {
      const model = await this.engine.importModel(source);
      if (serial !== this.loadSerial) return null;
      const text = model.instance.text ?? '';
      this.input.exampleSelect.value = source.kind === 'url' ? this.input.exampleSelect.value : '';
      this.input.setFormat('csv');
      this.input.semanticsSelect.value = 'half-open';
      // A gallery model is named by its example (a link imports it again), a dropped file by its
      // instance's text.
      const example = source.kind === 'url' ? this.input.examples.find((e) => e.id === this.input.exampleSelect.value && e.kind === 'model') : undefined;
      this.showLoaded(model.instance, { source: { kind: 'text', text, name: model.instance.name }, text, example }, serial, began, null);
      return model;
    } catch (error) {
      if (serial !== this.loadSerial) return null;
      this.showLoadFailure(error, serial, undefined);
      return null;
    } finally {
      settled(serial === this.loadSerial && this.shown.inst !== null);
      this.hooks.updateButtons();
    }
  }

  /** A load succeeded: `parsed` becomes the page's instance. */
  private showLoaded(parsed: InstanceData, request: LoadRequest, serial: number, began: number, capacity: string | null) {
    const { controls, input } = this;
    this.shown.replaceInstance(parsed, request);
    this.instSerial = serial;
    // A capacity the user typed stays; one that came with the previous instance gives way to
    // this instance's own (an example's, or the file's), or to none.
    if (controls.capacityFromInstance || !controls.capacityInput.value.trim()) {
      const own = String(capacity ?? parsed.summary.capacity ?? '');
      controls.setCapacity(own, own !== '');
    }
    // An edit made while this parsed is newer than it: the editor keeps it.
    if (!input.pendingEdit) input.showText(parsed.text, parsed.name, parsed.bytes);
    showSummary(parsed);
    this.hooks.instanceChanged(true);
    setStatus(`loaded ${parsed.name}: ${grouped(parsed.n)} buffers in ${duration(performance.now() - began)}`);
    document.getElementById('instance-input')!.dataset.loaded = String(parsed.n);
  }

  /** A load failed: no instance, and the errors where the input is. */
  private showLoadFailure(error: unknown, serial: number, text: string | undefined) {
    const { input } = this;
    this.shown.replaceInstance(null, null);
    this.instSerial = serial;
    showSummary(null);
    this.hooks.instanceChanged(false);
    document.getElementById('instance-input')!.dataset.loaded = '0';
    if (error instanceof EngineError) {
      if (text !== undefined && !input.pendingEdit) input.showText(text, 'input', text.length);
      input.showErrors(error.errors.length ? error.errors : [{ line: null, column: null, message: error.message }]);
      const first = error.errors.find((e) => e.line);
      setStatus(`not loaded: ${error.message}${first ? ` (first at line ${first.line})` : ''}`, 'error');
    } else {
      setStatus(`not loaded: ${error instanceof Error ? error.message : String(error)}`, 'error');
    }
  }

  /** Every buffer of the input has an offset: show that plan, checked by the core's validator. */
  private async showInputPlan() {
    const result = await this.engine.checkInputPlan(this.controls.capacityBytes);
    this.shown.result = result;
    this.hooks.resultChanged(true, false);
    const s = result.summary;
    if (s.valid) setStatus(`the input is a plan (every buffer has an offset): valid, makespan ${grouped(s.makespan ?? '—')}; Run re-plans it with the offsets pinned`);
    else setStatus(`the input's offsets are an INVALID plan (${s.violations.length} violation${s.violations.length === 1 ? '' : 's'}): not drawn`, 'error');
  }

  /** Solves with `solver`; `show` gets a progress line (and the history of the best plan and the
   * bound, for the sparkline) four times a second, drawn by the timer only: the worker's reports
   * just update what it shows. */
  async solveWith(solver: string, show: (line: string, trace: ProgressTrace) => void, how: RunOptions = {}): Promise<SolveResult> {
    const began = performance.now();
    const trace = new ProgressTrace(this.shown.inst?.summary.lower_bound ?? null);
    const tick = () => show(progressLine(solver, trace, performance.now() - began), trace);
    tick();
    const timer = window.setInterval(tick, 250);
    const options = this.controls.options(solver);
    if (how.minimise) options.capacity = undefined;
    if (how.warmStart) options.warmStart = Array.from(how.warmStart, String);
    try {
      return await this.engine.solve(options, (p, elapsedMs) => trace.add(p, elapsedMs));
    } finally {
      clearInterval(timer);
    }
  }

  /** Runs `solver` on the page's instance and shows its result; the result, or null when the run
   * ended without one (or another run or load took its place). */
  async run(solver = this.controls.solver, how: RunOptions = {}): Promise<SolveResult | null> {
    const minimise = how.minimise === true;
    const shown = this.shown;
    if (shown.solving) return null;
    this.setBusy(true);
    try {
      // A pasted edit is loaded first (not after its pause), and the run waits for it.
      if (!(await this.settle())) return null;
      const serial = this.instSerial;
      setStatus(`${minimise ? 'minimising' : 'solving'} with ${solver}…`, 'busy');
      let solved: SolveResult | null = null;
      try {
        solved = await this.solveWith(solver, (line, trace) => this.hooks.running(line, trace), how);
      } catch (error) {
        if (this.instSerial !== serial) return null; // a new input replaced this one (and says so)
        // No summary came back: the previous result goes (it is not this run's), and the verdict's
        // place says why.
        shown.result = null;
        shown.minimisedUnder = null;
        const message = error instanceof Error ? error.message : String(error);
        if (error instanceof EngineError && error.kind === 'ended') {
          // The single-threaded build stops a solve by ending its worker: nothing comes back.
          shown.noSummary = { tone: 'interrupted', stopped: 'cancelled', words: '◼ cancelled: no plan kept', detail: 'the single-threaded build stops a solve by restarting its worker' };
          setStatus('cancelled: no plan kept (the single-threaded build stops a solve by restarting its worker)');
        } else {
          const refused = error instanceof EngineError && (error.kind === 'input' || error.kind === 'request');
          shown.noSummary = { tone: 'infeasible', stopped: '', words: refused ? '✗ not run: the request was refused' : '✗ the run failed', detail: message };
          setStatus(`${solver} ${refused ? 'refused' : 'failed'}: ${message}`, 'error');
        }
        this.hooks.resultChanged(false, false);
        return null;
      }
      if (this.instSerial !== serial) return null; // solved an instance no longer shown: the new one stays
      shown.result = solved;
      shown.minimisedUnder = minimise ? this.controls.capacityBytes : null;
      shown.noSummary = null;
      this.hooks.resultChanged(true, true);
      // One line: the verdict next to the result says why, with the core's detail.
      const s = solved.summary;
      if (!s.valid) setStatus(`${solver}: the plan is INVALID (${s.violations.length} violation${s.violations.length === 1 ? '' : 's'}); not drawn`, 'error');
      else if (s.makespan === null) setStatus(`${solver}: no plan (${s.verdict})`, toneOf(s.stopped) === 'infeasible' ? 'error' : 'ok');
      else {
        const ended = toneOf(s.stopped) === 'interrupted' ? 'stopped after' : 'done in';
        setStatus(`${solver}: ${ended} ${duration(s.elapsed_ms)}${s.feasible ? '' : ', over capacity'}`, s.feasible ? 'ok' : 'error');
      }
      return solved;
    } finally {
      document.body.classList.remove('stale-result');
      this.setBusy(false);
      this.hooks.runEnded();
    }
  }

  async cancel() {
    setStatus(this.engine.info?.build === 'threads' ? 'cancelling…' : 'cancelling: restarting the single-threaded worker…', 'busy');
    await this.engine.cancel();
  }
}
