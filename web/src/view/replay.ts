// Placement replay: shows the plan as the solver built it, buffer by buffer in its placement
// order, with play/pause, single steps, a position slider and a speed in buffers per second.
import { grouped } from '../format';
import type { PlanView } from './planview';
import { $ } from '../dom';

export class Replay {
  private play = $<HTMLButtonElement>('replay-play');
  private back = $<HTMLButtonElement>('replay-back');
  private step = $<HTMLButtonElement>('replay-step');
  private slider = $<HTMLInputElement>('replay-slider');
  private label = $<HTMLSpanElement>('replay-label');
  private speed = $<HTMLSelectElement>('replay-speed');
  private total = 0;
  /** Buffers shown; `total` means the whole plan (replay off). */
  private count = 0;
  private playing = false;
  private lastFrame = 0;
  private carry = 0;

  constructor(private view: PlanView) {
    this.play.addEventListener('click', () => (this.playing ? this.pause() : this.start()));
    this.step.addEventListener('click', () => this.show(this.count >= this.total ? 1 : this.count + 1));
    this.back.addEventListener('click', () => this.show(Math.max(0, this.count - 1)));
    this.slider.addEventListener('input', () => {
      this.pause();
      this.show(Number(this.slider.value));
    });
  }

  /** A new plan: replay off, enabled when the solver reported its placement order. */
  reset() {
    this.pause();
    this.total = this.view.placementSteps;
    this.count = this.total;
    for (const control of [this.play, this.back, this.step, this.slider]) control.disabled = this.total === 0;
    this.slider.max = String(this.total);
    this.slider.value = String(this.total);
    this.label.textContent = this.total ? `${grouped(this.total)} / ${grouped(this.total)}` : 'no placement order';
    this.view.setReplay(null);
  }

  show(count: number) {
    this.count = Math.max(0, Math.min(this.total, count));
    this.slider.value = String(this.count);
    this.label.textContent = `${grouped(this.count)} / ${grouped(this.total)}`;
    this.view.setReplay(this.count >= this.total ? null : this.count);
  }

  /** How many times a replay has started (from the play button or an embed's `autoplay`). */
  plays = 0;

  start() {
    if (this.total === 0) return;
    if (this.count >= this.total) this.show(0);
    this.plays++;
    this.playing = true;
    this.play.textContent = 'pause';
    this.lastFrame = performance.now();
    this.carry = 0;
    requestAnimationFrame((t) => this.frame(t));
  }

  pause() {
    this.playing = false;
    this.play.textContent = '▶ play';
  }

  private frame(now: number) {
    if (!this.playing) return;
    this.carry += ((now - this.lastFrame) / 1000) * Number(this.speed.value);
    this.lastFrame = now;
    const steps = Math.floor(this.carry);
    if (steps > 0) {
      this.carry -= steps;
      this.show(this.count + steps);
    }
    if (this.count >= this.total) {
      this.pause();
      return;
    }
    requestAnimationFrame((t) => this.frame(t));
  }
}
