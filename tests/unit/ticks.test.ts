import { describe, expect, it } from 'vitest';
import { binaryTicks, byteLabel, timeLabeller, timeStep, timeTicks } from '../../web/src/view/ticks';

const KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;

const labels = (ticks: { label: string }[]) => ticks.map((t) => t.label);
const unique = (xs: string[]) => new Set(xs).size === xs.length;

describe('byteLabel', () => {
  it('names addresses in the largest unit that keeps them exact', () => {
    expect(byteLabel(0)).toBe('0');
    expect(byteLabel(512)).toBe('512 B');
    expect(byteLabel(256 * KiB)).toBe('256 KiB');
    expect(byteLabel(MiB)).toBe('1 MiB');
    expect(byteLabel(1.25 * MiB)).toBe('1.25 MiB');
    expect(byteLabel(3 * MiB + 4 * KiB)).toBe('3076 KiB');
    expect(byteLabel(3 * GiB)).toBe('3 GiB');
    expect(byteLabel(1000)).toBe('1000 B');
  });
});

describe('binaryTicks', () => {
  it('steps by 256 KiB over a MiB: 0, 256 KiB, 512 KiB, 768 KiB, 1 MiB', () => {
    expect(labels(binaryTicks(0, MiB, 4))).toEqual(['0', '256 KiB', '512 KiB', '768 KiB', '1 MiB']);
  });

  it('steps by a power of two bytes, with between count/2 and count intervals, at many ranges', () => {
    for (let top = 3; top < 2 ** 62; top = Math.floor(top * 1.7) + 1) {
      for (const count of [2, 5, 8, 15]) {
        for (const bottom of [0, Math.floor(top / 3)]) {
          const ticks = binaryTicks(bottom, top, count);
          const step = ticks.length > 1 ? ticks[1].value - ticks[0].value : 0;
          if (ticks.length > 1) {
            expect(Number.isInteger(Math.log2(step)), `step ${step}`).toBe(true);
            expect((top - bottom) / step).toBeLessThanOrEqual(count);
            if (step > 1) expect((top - bottom) / step).toBeGreaterThan(count / 2 - 1);
          }
          for (const t of ticks) {
            expect(t.value).toBeGreaterThanOrEqual(bottom);
            expect(t.value).toBeLessThanOrEqual(top);
          }
          expect(unique(labels(ticks)), labels(ticks).join(' | ')).toBe(true);
        }
      }
    }
  });

  it('never repeats a label zoomed into a large address range', () => {
    const ticks = binaryTicks(3 * GiB + 5, 3 * GiB + 5 + 40 * KiB, 8);
    expect(ticks.length).toBeGreaterThan(3);
    expect(unique(labels(ticks))).toBe(true);
  });

  it('gives whole bytes at most one apart below a few bytes', () => {
    expect(binaryTicks(10, 10.5, 8).map((t) => t.value)).toEqual([10]);
    expect(binaryTicks(10, 14, 8).map((t) => t.value)).toEqual([10, 11, 12, 13, 14]);
  });

  it('gives nothing for an empty or broken range', () => {
    expect(binaryTicks(5, 5, 4)).toEqual([]);
    expect(binaryTicks(0, NaN, 4)).toEqual([]);
  });
});

describe('time ticks', () => {
  it('uses 1, 2 or 5 × 10^k steps and never less than one step', () => {
    expect(timeStep(100, 10)).toBe(10);
    expect(timeStep(100, 4)).toBe(50);
    expect(timeStep(1_000_000, 6)).toBe(200_000);
    expect(timeStep(3, 10)).toBe(1);
    expect(timeStep(0.4, 10)).toBe(1);
  });

  it('are integers, inside the window and labelled uniquely at every zoom', () => {
    for (let span = 0.5; span < 1e15; span *= 3.1) {
      for (const start of [0, 138_240, 1_234_567_891, 7e12]) {
        const ticks = timeTicks(start, start + span, 8);
        for (const t of ticks) {
          expect(Number.isInteger(t.value), `${t.value}`).toBe(true);
          expect(t.value).toBeGreaterThanOrEqual(start);
          expect(t.value).toBeLessThanOrEqual(start + span);
        }
        expect(ticks.length).toBeLessThanOrEqual(Math.max(9, Math.floor(span) + 1));
        expect(unique(labels(ticks)), `${start} + ${span}: ${labels(ticks).join(' | ')}`).toBe(true);
      }
    }
  });

  it('zoomed in below one step per tick, ticks every step', () => {
    expect(timeTicks(99.5, 103.2, 20).map((t) => t.value)).toEqual([100, 101, 102, 103]);
    expect(labels(timeTicks(1_234_560, 1_234_564, 20))).toEqual(['1.23456M', '1.234561M', '1.234562M', '1.234563M', '1.234564M']);
  });

  it('labels plain numbers below 10,000 and suffixed ones above', () => {
    expect(labels(timeTicks(0, 5000, 5))).toEqual(['0', '1000', '2000', '3000', '4000', '5000']);
    expect(labels(timeTicks(0, 500_000, 5))).toEqual(['0', '100k', '200k', '300k', '400k', '500k']);
    expect(timeLabeller(50_000, 2.5e6)(2_350_000)).toBe('2.35M');
    expect(labels(timeTicks(0, 1_000_000, 5))).toEqual(['0', '200k', '400k', '600k', '800k', '1M']);
    expect(labels(timeTicks(999_800, 1_000_200, 4))).toEqual(['999.8k', '999.9k', '1M', '1.0001M', '1.0002M']);
  });
});
