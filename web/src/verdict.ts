// Why a run stopped, as the page shows it next to a result: the core's own words
// (`summary.verdict`, `summary.detail`) with a visual cue chosen by `summary.stopped`. The page
// proves nothing itself; it only picks a colour and a mark for each reason.
import { STOP_GROUPS, type StopGroup, type Stopped, type Summary } from './generated/core';
import type { SolveResult } from './protocol';
import { esc } from './format';

/** How a reason reads at a glance: the core's group of it (`Stopped::group`): proven (optimal, or
 * fits the capacity as asked), a heuristic's plan (no proof either way), interrupted before a proof
 * (budget, time, cancel), or infeasible. */
export type Tone = StopGroup;

/** Every reason the core has, with its group, generated from the core. */
const TONES: Record<Stopped, Tone> = STOP_GROUPS;

const MARKS: Record<Tone, string> = { proven: '✓', heuristic: '≈', interrupted: '◼', infeasible: '✗' };

export const toneOf = (stopped: Stopped): Tone => TONES[stopped];

/** A result's tone: its reason's, except for a plan that came with the input, whose checks say
 * what it is (optimal when valid at the bound; wrong, and proving nothing, when invalid). */
export function summaryTone(summary: Summary): Tone {
  if (summary.stopped !== 'given') return toneOf(summary.stopped);
  return !summary.valid ? 'infeasible' : summary.optimal ? 'proven' : 'heuristic';
}

/** The order the compare table sorts reasons in: proofs first, infeasible last. */
export const toneRank = (stopped: Stopped): number => ['proven', 'heuristic', 'interrupted', 'infeasible'].indexOf(TONES[stopped]);

/** The run returned a plan the validator accepted: the one thing a plan view may draw. */
export function drawable(result: SolveResult | null): boolean {
  return result !== null && result.summary.makespan !== null && result.summary.valid;
}

/** The verdict as a mark and the core's words, e.g. "✓ optimal, proven by search". */
export function verdictText(summary: Summary): string {
  return `${MARKS[summaryTone(summary)]} ${summary.verdict}`;
}

/** The verdict as HTML for a badge: mark, words and, as its tooltip, the core's detail. */
export function verdictBadge(summary: Summary): string {
  const title = summary.detail ? ` title="${esc(summary.detail)}"` : '';
  return `<span class="verdict ${summaryTone(summary)}" data-stopped="${summary.stopped}"${title}>${esc(verdictText(summary))}</span>`;
}
