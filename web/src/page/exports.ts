// The plan's exports: CSV and JSON written by the core (the worker), and the PNG of the plan view
// with its title strip and legend (view/exportimage.ts).
import type { Engine } from '../engine';
import { drawable } from '../verdict';
import { exportImage } from '../view/exportimage';
import type { PlanView } from '../view/planview';
import type { Shown } from './state';
import { $ } from '../dom';

/** Saves `blob` as a file named `name` (the browser's download). */
export function download(name: string, blob: Blob) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
}

/** Wires the plan toolbar's export buttons. */
export function attachExports(shown: Shown, engine: Engine, view: PlanView) {
  const baseName = () => (shown.inst?.name ?? 'plan').replace(/\.(csv|json)$/i, '').replace(/[^\w.-]+/g, '_');
  async function exportPlan(format: 'csv' | 'json') {
    const result = shown.result;
    if (!result || !drawable(result) || shown.solving) return;
    const text = await engine.exportPlan(result.offsets, format);
    download(`${baseName()}.${result.summary.solver.replace(/[^\w.-]+/g, '_')}.${format}`, new Blob([text], { type: format === 'csv' ? 'text/csv' : 'application/json' }));
  }
  $('export-csv').addEventListener('click', () => void exportPlan('csv'));
  $('export-json').addEventListener('click', () => void exportPlan('json'));
  $('export-png').addEventListener('click', () => {
    view.renderNow();
    exportImage(view).toBlob((blob) => blob && download(`${baseName()}.png`, blob), 'image/png');
  });
}
