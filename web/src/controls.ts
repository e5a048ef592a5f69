// The solve controls: solver (every solver the core lists, its description and its declared
// parameters), the generic greedy combinations, capacity, time limit, seed, effort and threads;
// Run, Cancel and Ctrl/Cmd+Enter. Nothing about solvers is written here: it all comes from
// `listSolvers()`, so solvers added to the core appear by themselves.
import type { Catalogue, Parameter, SolveRequest, SolverInfo } from './generated/core';
import { esc } from './format';
import { $ } from './dom';

/** The select's value for "choose a greedy order and fit". */
const COMBINATION = 'greedy-…';

/** The largest u64: a parameter defaulting to it (a budget, a limit) has no limit by default. */
const U64_MAX = '18446744073709551615';

/** A parameter's default as a placeholder short enough for the sidebar: u64::MAX is "unlimited". */
export function shownDefault(value: string): string {
  return value === U64_MAX ? 'unlimited' : value;
}

export interface ControlState {
  solver: string;
  params: Record<string, string>;
  capacity: string;
  timeLimit: string;
  seed: string;
  effort: string;
  threads: number;
}

export class Controls {
  readonly solverSelect = $<HTMLSelectElement>('solver-select');
  private description = $<HTMLParagraphElement>('solver-description');
  private comboRow = $<HTMLDivElement>('combo-row');
  private orderSelect = $<HTMLSelectElement>('order-select');
  private fitSelect = $<HTMLSelectElement>('fit-select');
  private paramsBox = $<HTMLDivElement>('params');
  readonly capacityInput = $<HTMLInputElement>('capacity-input');
  readonly timeLimitInput = $<HTMLInputElement>('time-limit');
  readonly seedInput = $<HTMLInputElement>('seed-input');
  readonly effortSelect = $<HTMLSelectElement>('effort-select');
  readonly threadsSelect = $<HTMLSelectElement>('threads-select');
  readonly runButton = $<HTMLButtonElement>('run-button');
  readonly cancelButton = $<HTMLButtonElement>('cancel-button');
  private catalogue!: Catalogue;
  private capacityCheck: number | undefined;
  onRun: () => void = () => {};
  onCancel: () => void = () => {};
  onThreads: (threads: number) => void = () => {};
  /** The capacity as a decimal byte count, when the input holds a valid size. */
  capacityBytes: string | null = null;
  /** The capacity shown came with the instance (an example's or the file's own), not from the
   * user: loading another instance replaces it instead of carrying it over. */
  capacityFromInstance = false;
  onCapacity: () => void = () => {};

  constructor(private checkSize: (text: string) => Promise<string>) {
    this.solverSelect.addEventListener('change', () => this.showSolver());
    this.orderSelect.addEventListener('change', () => this.showSolver());
    this.fitSelect.addEventListener('change', () => this.showSolver());
    this.runButton.addEventListener('click', () => this.onRun());
    this.cancelButton.addEventListener('click', () => this.onCancel());
    this.threadsSelect.addEventListener('change', () => this.onThreads(Number(this.threadsSelect.value)));
    this.capacityInput.addEventListener('input', () => {
      this.capacityFromInstance = false;
      clearTimeout(this.capacityCheck);
      this.capacityCheck = window.setTimeout(() => void this.validateCapacity(), 250);
    });
    document.addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) {
        ev.preventDefault();
        if (!this.runButton.disabled) this.onRun();
      }
    });
  }

  /** Fills the selects from the core's catalogue. */
  setCatalogue(catalogue: Catalogue, build: 'threads' | 'single', threads: number, maxThreads: number) {
    const keep = this.solverSelect.value;
    this.catalogue = catalogue;
    this.solverSelect.innerHTML = '';
    for (const s of catalogue.solvers) {
      const option = new Option(s.name, s.name);
      option.title = s.description;
      this.solverSelect.append(option);
    }
    const combo = new Option('greedy-<order>-<fit> …', COMBINATION);
    combo.title = catalogue.combinations;
    this.solverSelect.append(combo);
    this.orderSelect.innerHTML = catalogue.orders.map((o) => `<option value="${esc(o.name)}" title="${esc(o.description)}">${esc(o.name)}</option>`).join('');
    this.fitSelect.innerHTML = catalogue.fits.map((f) => `<option value="${esc(f.name)}" title="${esc(f.description)}">${esc(f.name)}</option>`).join('');
    this.effortSelect.innerHTML = catalogue.efforts.map((e) => `<option ${e === 'normal' ? 'selected' : ''}>${e}</option>`).join('');
    this.threadsSelect.innerHTML = '';
    const top = build === 'threads' ? Math.max(1, maxThreads) : 1;
    for (let n = 1; n <= top; n++) this.threadsSelect.append(new Option(String(n), String(n), false, n === threads));
    this.threadsSelect.disabled = build !== 'threads';
    this.threadsSelect.title = build === 'threads' ? 'threads in the wasm pool (restarts the worker)' : 'the single-threaded build runs one thread (the page is not cross-origin isolated)';
    if (keep) this.setSolver(keep);
    this.showSolver();
  }

  get solvers(): SolverInfo[] {
    return this.catalogue.solvers;
  }

  /** The solver name to run: a listed solver or a `greedy-<order>-<fit>` combination. */
  get solver(): string {
    const value = this.solverSelect.value;
    return value === COMBINATION ? `greedy-${this.orderSelect.value}-${this.fitSelect.value}` : value;
  }

  setSolver(name: string) {
    // A combination is `greedy-<order>-<fit>` with an order and a fit the catalogue lists.
    const combo = this.catalogue.orders
      .flatMap((o) => this.catalogue.fits.map((f) => [o.name, f.name]))
      .find(([order, fit]) => name === `greedy-${order}-${fit}`);
    if (this.catalogue.solvers.some((s) => s.name === name)) this.solverSelect.value = name;
    else if (combo) {
      this.solverSelect.value = COMBINATION;
      this.orderSelect.value = combo[0];
      this.fitSelect.value = combo[1];
    }
    this.showSolver();
  }

  private info(): SolverInfo | undefined {
    return this.catalogue.solvers.find((s) => s.name === this.solverSelect.value);
  }

  private showSolver() {
    const info = this.info();
    const combo = this.solverSelect.value === COMBINATION;
    this.comboRow.hidden = !combo;
    if (combo) {
      const order = this.catalogue.orders.find((o) => o.name === this.orderSelect.value)?.description ?? '';
      const fit = this.catalogue.fits.find((f) => f.name === this.fitSelect.value)?.description ?? '';
      this.description.textContent = `${order}; ${fit}`;
    } else {
      this.description.textContent = info?.description ?? '';
    }
    this.renderParams(info?.parameters ?? []);
  }

  private renderParams(parameters: Parameter[]) {
    this.paramsBox.innerHTML = '';
    for (const p of parameters) {
      const label = document.createElement('label');
      label.className = 'param';
      label.title = `${p.description} (default ${shownDefault(p.default)}${p.range ? `, ${p.range.text}` : ''})`;
      const caption = document.createElement('span');
      caption.textContent = p.name;
      const input = document.createElement('input');
      input.dataset.param = p.name;
      input.dataset.kind = p.kind;
      input.dataset.default = p.default;
      if (p.kind === 'bool') {
        input.type = 'checkbox';
        input.checked = p.default === 'true';
      } else {
        input.type = p.kind === 'int' || p.kind === 'float' ? 'number' : 'text';
        if (p.kind === 'float') input.step = 'any';
        if (p.range) {
          input.min = p.range.min;
          if (p.range.max !== null) input.max = p.range.max;
        }
        input.placeholder = shownDefault(p.default);
      }
      label.append(caption, input);
      this.paramsBox.append(label);
    }
  }

  /** The declared parameters the user changed, as text (unchanged ones are left to the solver). */
  get params(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const input of this.paramsBox.querySelectorAll<HTMLInputElement>('input[data-param]')) {
      const value = input.type === 'checkbox' ? String(input.checked) : input.value.trim();
      if (value !== '' && value !== input.dataset.default) out[input.dataset.param!] = value;
    }
    return out;
  }

  setParams(params: Record<string, string>) {
    for (const input of this.paramsBox.querySelectorAll<HTMLInputElement>('input[data-param]')) {
      const value = params[input.dataset.param!];
      if (value === undefined) continue;
      if (input.type === 'checkbox') input.checked = value === 'true';
      else input.value = value;
    }
  }

  private async validateCapacity() {
    const text = this.capacityInput.value.trim();
    if (!text) {
      this.capacityInput.classList.remove('invalid');
      this.capacityInput.title = '';
      this.capacityBytes = null;
    } else {
      try {
        this.capacityBytes = await this.checkSize(text);
        this.capacityInput.classList.remove('invalid');
        this.capacityInput.title = `${this.capacityBytes} bytes`;
      } catch (error) {
        this.capacityBytes = null;
        this.capacityInput.classList.add('invalid');
        this.capacityInput.title = error instanceof Error ? error.message : String(error);
      }
    }
    this.onCapacity();
  }

  setCapacity(text: string, fromInstance = false) {
    this.capacityFromInstance = fromInstance;
    this.capacityInput.value = text;
    void this.validateCapacity();
  }

  /** What to ask the worker for, with `solver` overriding the selected one (compare mode). An
   * empty time limit is none; any other value goes to the core, which checks it (0 has passed at
   * once, a negative one is refused). */
  options(solver = this.solver): SolveRequest {
    const timeLimit = this.timeLimitInput.value.trim();
    return {
      solver,
      capacity: this.capacityInput.value.trim() || undefined,
      timeLimit: timeLimit === '' ? undefined : Number(timeLimit),
      seed: this.seedInput.value.trim() || '0',
      effort: this.catalogue.efforts.find((e) => e === this.effortSelect.value),
      params: solver === this.solver ? this.params : {},
    };
  }

  state(): ControlState {
    return {
      solver: this.solver,
      params: this.params,
      capacity: this.capacityInput.value.trim(),
      timeLimit: this.timeLimitInput.value.trim(),
      seed: this.seedInput.value.trim(),
      effort: this.effortSelect.value,
      threads: Number(this.threadsSelect.value),
    };
  }

  apply(state: Partial<ControlState>) {
    if (state.solver) this.setSolver(state.solver);
    if (state.params) this.setParams(state.params);
    if (state.capacity !== undefined) this.setCapacity(state.capacity);
    if (state.timeLimit !== undefined) this.timeLimitInput.value = state.timeLimit;
    if (state.seed !== undefined) this.seedInput.value = state.seed;
    if (state.effort) this.effortSelect.value = state.effort;
  }

  setBusy(busy: boolean, canRun: boolean) {
    this.runButton.disabled = busy || !canRun;
    this.cancelButton.disabled = !busy;
  }
}
