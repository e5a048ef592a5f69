// Bring your own model: a model file (TFLite; the core tells the kind from its content) dropped,
// chosen or picked from the gallery is imported in the worker; its instance becomes the page's
// input, memplan's best plan (auto) is solved, and the Model tab shows the compiler's plan and
// memplan's side by side on the same axes, the bytes saved, the buffers that moved, and exports of
// memplan's plan keyed by the compiler's ids (tensor indices).
import type { ModelInfo, PlanDiff } from './generated/core';
import type { ImportedModel, InstanceData, ModelSource, SolveResult } from './protocol';
import type { SharedModel } from './share';
import { bytes, esc, grouped, percent } from './format';
import { drawable } from './verdict';
import { DiffView } from './view/diff';
import type { ColorBy } from './view/colors';
import { legendHtml } from './view/legend';
import { $ } from './dom';

/** What the page does for the panel. */
export interface ModelHost {
  /** Imports the model and loads its instance as the page's input; null when it was refused or a
   * newer load replaced it (the status says why). */
  load(source: ModelSource): Promise<ImportedModel | null>;
  /** memplan's best plan of the loaded instance (auto) from `warmStart` (the compiler's plan),
   * shown as the page's result; null when the run ended without one. */
  solve(warmStart: BigUint64Array | undefined): Promise<SolveResult | null>;
  diff(a: BigUint64Array, b: BigUint64Array): Promise<PlanDiff>;
  /** Offsets as a plan of the loaded instance, checked by the core (a link's compiler plan). */
  checkPlan(offsets: BigUint64Array): Promise<SolveResult>;
  exportPlan(offsets: BigUint64Array, format: 'csv' | 'json'): Promise<string>;
  download(name: string, blob: Blob): void;
  showTab(): void;
  /** Both plans are shown (a link can now carry the compiler's). */
  shown(): void;
}

/** A model file: told by its content (a TFLite FlatBuffer says `TFL3` at bytes 4..8, an
 * ExecuTorch program `ET12`) or its name (`.tflite`, `.pte`, or `.pb` for an XLA dump, which
 * carries no identifier). */
export async function isModelFile(file: File): Promise<boolean> {
  if (/\.(tflite|pte|pb)$/i.test(file.name)) return true;
  const head = new Uint8Array(await file.slice(0, 8).arrayBuffer());
  const id = head.length === 8 ? String.fromCharCode(...head.slice(4, 8)) : '';
  return id === 'TFL3' || id === 'ET12';
}

export class ModelPanel {
  private diffView = new DiffView($('model-grid'));
  private toggle = $<HTMLInputElement>('moved-toggle');
  private saving = $('model-saving');
  private shown: { info: ModelInfo; best: SolveResult; compiler: SolveResult; instance: InstanceData } | null = null;
  private colorBy: ColorBy = 'size';
  /** The newest import; an older one that returns later is dropped. */
  private serial = 0;

  constructor(private host: ModelHost) {
    this.toggle.addEventListener('change', () => this.diffView.highlightMoved(this.toggle.checked));
    const picker = $<HTMLInputElement>('model-input');
    picker.addEventListener('change', () => {
      const file = picker.files?.[0];
      if (file) void this.open({ kind: 'file', file });
      picker.value = '';
    });
    $('model-csv').addEventListener('click', () => void this.export('csv'));
    $('model-json').addEventListener('click', () => void this.export('json'));
  }

  /** Imports the model, solves it, and shows both plans. */
  async open(source: ModelSource) {
    const serial = ++this.serial;
    this.reset();
    this.host.showTab();
    this.saving.textContent = `importing ${source.kind === 'url' ? source.name : source.file.name}…`;
    const model = await this.host.load(source);
    if (!model || serial !== this.serial) {
      if (serial === this.serial) this.saving.textContent = 'not imported (the status bar says why)';
      return;
    }
    await this.compare(serial, model);
  }

  /** Opens the Model tab on a model a share link carried: its instance is the page's (loaded from
   * the link), its compiler's plan came with it. */
  async reopen(model: SharedModel, instance: InstanceData) {
    const serial = ++this.serial;
    this.reset();
    this.host.showTab();
    if (model.offsets.length !== instance.n) {
      this.saving.textContent = `${model.name}: the link's plan has ${model.offsets.length} offsets for ${instance.n} buffers; not shown`;
      return;
    }
    this.saving.textContent = `${model.name}: checking ${model.compiler}'s plan from the link…`;
    const compiler = await this.host.checkPlan(BigUint64Array.from(model.offsets, (o) => BigInt(o)));
    if (serial !== this.serial) return;
    const info: ModelInfo = { kind: model.kind, name: model.name, compiler: model.compiler, buffers: instance.n, operators: model.operators };
    await this.compare(serial, { instance, info, compiler });
  }

  /** What a link needs to open this model again: its compiler's plan (the instance travels as the
   * page's input), or null when the Model tab shows none of `inst`. */
  linkState(inst: InstanceData | null): SharedModel | null {
    const shown = this.shown;
    if (!shown || shown.instance !== inst) return null;
    const { kind, name, compiler, operators } = shown.info;
    return { kind, name, compiler, operators, offsets: Array.from(shown.compiler.offsets, String) };
  }

  /** Solves the model's instance (memplan's best) and shows it beside the compiler's plan. */
  private async compare(serial: number, model: ImportedModel) {
    const { instance, info, compiler } = model;
    this.saving.textContent = `${info.name}: ${grouped(info.buffers)} buffers from ${grouped(info.operators)} operators; solving with auto…`;
    // From the compiler's plan: the core keeps it where memplan saves nothing, and after a saving
    // puts back every buffer that moved for nothing, so the moves shown are the ones that pay.
    const best = await this.host.solve(drawable(compiler) ? compiler.offsets : undefined);
    if (serial !== this.serial) return;
    if (!best || !drawable(best) || !drawable(compiler)) {
      this.saving.textContent = `${info.name}: memplan's run ended without a valid plan; nothing to compare`;
      return;
    }
    // memplan's plan only where it saves bytes: a plan at the same peak would move buffers for
    // nothing, so then the compiler's own plan is memplan's answer and nothing moves.
    const kept = BigInt(best.summary.makespan ?? 0) >= BigInt(compiler.summary.makespan ?? 0);
    const ours = kept ? compiler : best;
    const diff = await this.host.diff(compiler.offsets, ours.offsets);
    if (serial !== this.serial) return;
    const moved = Uint32Array.from(diff.moved_buffers.map((m) => m.index));
    // Titles short enough for one line on a phone: the compiler without its parenthesis (the
    // saving line above names it whole), memplan's winning solver.
    const compilerName = info.compiler.replace(/\s*\(.*\)$/, '');
    const oursTitle = kept
      ? `memplan: the same plan (kept), ${bytes(diff.peak_b)}`
      : `memplan (${best.summary.winner ?? 'auto'}): ${bytes(diff.peak_b)}`;
    this.diffView.show(instance, { title: `${compilerName}: ${bytes(diff.peak_a)}`, result: compiler }, { title: oursTitle, result: ours }, moved);
    this.shown = { info, best: ours, compiler, instance };
    this.render(info, diff);
    this.showLegend();
    this.host.shown();
  }

  private render(info: ModelInfo, diff: PlanDiff) {
    const saved = BigInt(diff.saved_bytes);
    const words = saved > 0n
      ? `memplan saves <b>${grouped(saved)} bytes</b> (${bytes(saved)}, ${percent(diff.saved_pct)}) on ${esc(info.compiler)}`
      : saved === 0n
        ? BigInt(diff.peak_a) <= BigInt(diff.max_load)
          ? `${esc(info.compiler)} is already optimal (at the max load L): memplan keeps it and moves nothing`
          : `memplan finds no plan lower than ${esc(info.compiler)}'s: it keeps it and moves nothing`
        : `memplan's plan needs ${grouped(-saved)} bytes more than ${esc(info.compiler)}`;
    this.saving.innerHTML = `<b>${esc(info.name)}</b>: ${words} · peaks ${grouped(diff.peak_a)} → ${grouped(diff.peak_b)} (max load ${grouped(diff.max_load)})`;
    this.saving.dataset.saved = String(diff.saved_bytes);
    $('moved-count').textContent = `${grouped(diff.moved)} of ${grouped(diff.buffers)}`;
    this.toggle.disabled = diff.moved === 0;
    for (const id of ['model-csv', 'model-json']) $<HTMLButtonElement>(id).disabled = false;
    $('model-empty').hidden = true;
  }

  private reset() {
    this.shown = null;
    this.showLegend();
    this.diffView.clear();
    this.toggle.checked = false;
    this.toggle.disabled = true;
    $('moved-count').textContent = '0';
    delete this.saving.dataset.saved;
    for (const id of ['model-csv', 'model-json']) $<HTMLButtonElement>(id).disabled = true;
  }

  /** memplan's plan, one row per buffer with the compiler's id (the tensor index) and its offset. */
  private async export(format: 'csv' | 'json') {
    if (!this.shown) return;
    const text = await this.host.exportPlan(this.shown.best.offsets, format);
    const base = this.shown.info.name.replace(/\.[^.]*$/, '').replace(/[^\w.-]+/g, '_');
    this.host.download(`${base}.memplan.${format}`, new Blob([text], { type: format === 'csv' ? 'text/csv' : 'application/json' }));
  }

  /** Colours both plans as the plan tab does (an imported model opens coloured by category). */
  setColorBy(mode: ColorBy) {
    this.colorBy = mode;
    this.diffView.setColorBy(mode);
    this.showLegend();
  }

  private showLegend() {
    $('model-legend').innerHTML = this.shown ? legendHtml(this.colorBy, this.shown.instance) : '';
  }

  /** Draws again (the tab became visible). */
  draw() {
    this.diffView.draw();
  }
}
