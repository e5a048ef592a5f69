// The result's panel: the instance's summary, the run's figures, and why it stopped (the core's
// verdict and detail, with a mark and a colour by reason), or the progress of the run going on.
import type { InstanceData } from '../protocol';
import { bytes, duration, grouped, percent, span } from '../format';
import { drawSparkline, type ProgressTrace } from '../progress';
import { drawable, toneOf, verdictText } from '../verdict';
import type { Shown } from './state';
import { $ } from '../dom';

/** The instance's summary rows (buffers, L, sizes, span, conflicts, notes). */
export function summaryRows(i: InstanceData): [string, string][] {
  const s = i.summary;
  return [
    ['buffers', grouped(s.buffers)],
    ['max load L', `${grouped(s.max_load)} (${bytes(s.max_load)})`],
    ...(String(s.lower_bound) !== String(s.max_load) ? [['lower bound', `${grouped(s.lower_bound)} (${bytes(s.lower_bound)})`] as [string, string]] : []),
    ['sizes', `${bytes(s.min_size)} … ${bytes(s.max_size)}`],
    ['total size', bytes(s.total_size)],
    ['time span', span(s.first_start, s.last_end)],
    ['conflicts', grouped(s.conflicts)],
    ['aligned / pinned', `${grouped(s.aligned)} / ${grouped(s.pinned)}`],
    ...(s.gapped > 0 ? [['with gaps', grouped(s.gapped)] as [string, string]] : []),
    ['format', `${s.format}, ${s.semantics}`],
    ...s.notes.map((note) => ['note', `${note.line !== null ? `line ${note.line}: ` : ''}${note.message}`] as [string, string]),
  ];
}

export function showSummary(inst: InstanceData | null) {
  $('summary').innerHTML = inst ? summaryRows(inst).map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('') : '';
}

/** The result's numbers, why the run stopped, the validator's violations, and the exports
 * enabled when there is a plan to export. */
export function showFigures(shown: Shown) {
  const { inst, result } = shown;
  const s = result?.summary;
  const set = (id: string, text: string, value = '', cls = '') => {
    const el = $(id);
    el.textContent = text;
    el.dataset.value = value;
    el.className = cls;
  };
  if (inst) set('max-load', `${grouped(inst.summary.max_load)}`, String(inst.summary.max_load));
  else set('max-load', '—');
  const plan = drawable(result) ? result : null;
  if (!s) {
    for (const id of ['makespan', 'fragmentation', 'elapsed', 'result-solver', 'result-valid']) set(id, '—');
  } else {
    // An invalid plan (a given one the validator rejects) has no makespan: it is no plan at all.
    if (!s.valid) set('makespan', 'invalid', '', 'bad');
    else if (s.makespan === null) set('makespan', 'no plan', '', 'bad');
    else set('makespan', grouped(s.makespan), String(s.makespan), '');
    set('fragmentation', plan && s.fragmentation !== null ? `${grouped(s.fragmentation)} (${percent(s.fragmentation_pct ?? 0)})` : '—', String(s.fragmentation ?? ''));
    set('elapsed', duration(s.elapsed_ms), String(s.elapsed_ms));
    set('result-solver', `${s.solver}${s.winner !== null ? ` → ${s.winner}` : ''}`);
    if (!s.valid) set('result-valid', 'INVALID', 'false', 'bad');
    else if (s.makespan === null) set('result-valid', '—');
    else set('result-valid', s.feasible ? 'valid' : 'valid, over capacity', 'true', s.feasible ? 'good' : 'bad');
  }
  showVerdict(shown);
  const violations = $('violations');
  violations.hidden = !s || s.valid;
  violations.textContent = s && !s.valid ? `The core's validator rejected this plan; it is not drawn.\n${s.violations.slice(0, 20).join('\n')}` : '';
  for (const id of ['export-csv', 'export-json', 'export-png']) ($(id) as HTMLButtonElement).disabled = !plan;
}

/** Why the run stopped, next to the result: the core's verdict and detail, with a mark and a
 * colour by reason (proven, a heuristic's plan, interrupted, infeasible). */
export function showVerdict(shown: Shown) {
  const box = $('verdict');
  const words = $('verdict-text');
  const detail = $('verdict-detail');
  const s = shown.result?.summary;
  const noSummary = shown.noSummary;
  // The line keeps its place when empty, so that the plan below does not move (and redraw) when a
  // run starts or ends.
  const minimise = $('minimise-button');
  const note = $('verdict-note');
  $('sparkline').replaceChildren();
  minimise.hidden = true;
  note.textContent = '';
  if (!s) {
    box.className = noSummary ? `verdict ${noSummary.tone}` : 'verdict empty';
    box.dataset.stopped = noSummary?.stopped ?? '';
    words.textContent = noSummary?.words ?? '';
    detail.textContent = noSummary?.detail ?? '';
    box.title = detail.textContent;
    return;
  }
  // Stopping at the first plan within the capacity proves it fits, not that it is low (the core's
  // words say so): offer the run that minimises, the same solver without the capacity.
  if (s.stopped === 'fits') {
    minimise.hidden = shown.solving;
  } else if (shown.minimisedUnder !== null && s.makespan !== null) {
    const within = BigInt(s.makespan) <= BigInt(shown.minimisedUnder);
    note.textContent = `minimised without the capacity: ${within ? 'within' : 'OVER'} ${bytes(shown.minimisedUnder)}`;
  }
  box.className = `verdict ${toneOf(s.stopped)}`;
  box.dataset.stopped = s.stopped;
  words.textContent = verdictText(s);
  const notes: string[] = [];
  if (s.detail) notes.push(s.detail);
  else if (!s.optimal && s.makespan !== null) notes.push(`no plan can be below ${grouped(s.lower_bound)} (the proven lower bound)`);
  detail.textContent = notes.join(' · ');
  box.title = `${words.textContent} ${detail.textContent}`;
}

/** While a run goes on, the verdict's place shows its progress, and the figures and plan below,
 * the last run's, are dimmed: they are not this run's. */
export function showRunning(line: string, trace: ProgressTrace) {
  const box = $('verdict');
  box.className = 'verdict running';
  box.dataset.stopped = '';
  box.title = line;
  $('verdict-text').textContent = '● solving';
  $('verdict-detail').textContent = line;
  $('minimise-button').hidden = true;
  $('verdict-note').textContent = '';
  drawSparkline($('sparkline'), trace);
  document.body.classList.add('stale-result');
}
