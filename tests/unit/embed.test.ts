import { describe, expect, it } from 'vitest';
import { dedent, LINK_TEXT_LIMIT, playgroundLink } from '../../web/embed/link';
import { MAX_INLINE, decode } from '../../web/src/share';
import { rng } from './rng';
import { readFileSync } from 'node:fs';
import { hostCss } from '../../web/embed/styles';

const PAGE = 'https://docs.example.org/guide/planning.html';

/** The link's query as the playground reads it. */
const opened = (link: string) => decode(new URL(link).search);

describe('the docs element', () => {
  it("reads an inline instance indented with the page's HTML", () => {
    const html = '\n    id,lower,upper,size\n    a,0,3,4\n\t\tb,1,4,4  \n  ';
    expect(dedent(html)).toBe('id,lower,upper,size\na,0,3,4\nb,1,4,4');
    expect(dedent('  \n \n')).toBe('');
  });

  it('links to the playground with the same address, solver and settings, solved on load', () => {
    const link = playgroundLink({ base: '../play/', url: 'https://docs.example.org/plans/m.csv', solver: 'slff', capacity: '1MiB', seed: '7', timeLimit: '2' }, PAGE)!;
    expect(link.startsWith('https://docs.example.org/play/?')).toBe(true);
    const state = opened(link);
    expect(state.url).toBe('https://docs.example.org/plans/m.csv');
    expect(state.controls).toMatchObject({ solver: 'slff', capacity: '1MiB', seed: '7', timeLimit: '2' });
    expect(state.run).toBe(true);
    expect(state.minimise).toBe(false);
    expect(state.embed).toBe(false);
  });

  it('carries an inline instance in the link, and gives none when it is too large for one', () => {
    const text = 'id,lower,upper,size\na,0,3,4\nb,1,4,4';
    const state = opened(playgroundLink({ base: 'https://memplan.example.org/', text, solver: 'auto' }, PAGE)!);
    expect(state.text).toBe(text);
    expect(state.url).toBeUndefined();
    expect(state.controls.capacity).toBeUndefined();
    // Random sizes do not compress: well past MAX_INLINE characters once packed.
    const random = rng(5);
    const rows = Array.from({ length: MAX_INLINE / 4 }, (_, i) => `b${i},${i},${i + 1 + Math.floor(random() * 1e6)},${Math.floor(random() * 1e9)}`);
    expect(playgroundLink({ base: 'https://memplan.example.org/', text: ['id,lower,upper,size', ...rows].join('\n'), solver: 'auto' }, PAGE)).toBeNull();
    // Past LINK_TEXT_LIMIT the text is not even compressed; below it, a text that packs well
    // still travels.
    const repetitive = `id,lower,upper,size\n${'a,0,3,4\n'.repeat(LINK_TEXT_LIMIT / 8 - 10)}`;
    expect(repetitive.length).toBeLessThan(LINK_TEXT_LIMIT);
    expect(opened(playgroundLink({ base: 'https://memplan.example.org/', text: repetitive, solver: 'auto' }, PAGE)!).text).toBe(repetitive);
    expect(playgroundLink({ base: 'https://memplan.example.org/', text: repetitive + repetitive, solver: 'auto' }, PAGE)).toBeNull();
  });

  it("themes its shadow root from the playground's palette: dark by attribute or by the system", () => {
    const source = readFileSync(new URL('../../web/src/style.css', import.meta.url), 'utf8');
    // As written, and as the build minifies it (no quotes around the attribute's value).
    for (const css of [hostCss(source), hostCss(source.replace('[data-theme="dark"]', '[data-theme=dark]'))]) {
      expect(css).not.toMatch(/:root/);
      const dark = /:host\(\[theme="dark"\]\)\s*\{([^}]*)\}/.exec(css)?.[1] ?? '';
      expect(dark).toMatch(/--bg:\s*#0f1218/);
      expect(css).toMatch(/@media \(prefers-color-scheme: dark\) \{ :host\(:not\(\[theme="light"\]\)\)\s*\{[^}]*--bg:\s*#0f1218/);
      // The light palette is the host's own: a page's custom properties do not reach in.
      expect(css).toMatch(/:host\s*\{[^}]*--bg:\s*#f6f7f9/);
    }
  });
});
