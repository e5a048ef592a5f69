// The input panel: the editor (paste), drag and drop anywhere, the file picker, the example
// gallery, the generator, and the format and lifetime selectors. It only says what to load; the
// page parses it in the worker and hands back either the instance or its errors to show here.
import type { InputError } from './generated/core';
import type { ModelSource, Source } from './protocol';
import { isModelFile } from './import';
import { bytes, esc, grouped } from './format';
import { $ } from './dom';

export interface Example {
  id: string;
  name: string;
  group: string;
  path: string;
  semantics: string;
  capacity: string | null;
  buffers: number;
  /** The most bytes alive at once (L), a decimal string (scripts/examples-index.mjs fills it). */
  max_load: string;
  bytes: number;
  /** `model`: a model file (TFLite) to import and compare, not a buffer list. */
  kind?: 'model';
}

/** An example as the gallery lists it: its name and what its memory is (the max load L, and the
 * buffers when the name does not say), not its file's size. */
export function galleryLabel(e: Example): string {
  return `${e.name} · L ${bytes(e.max_load)}`;
}

/** What the gallery's label leaves out (for its tooltip); the summary shows it all once loaded.
 * The label is short enough for the select's width: cut, it read "MiniMalloc challenging C (203 buff". */
function galleryTitle(e: Example): string {
  const what = e.kind === 'model' ? 'a model: its compiler\'s plan beside memplan\'s, in the Model tab; ' : '';
  return `${e.group}: ${what}${grouped(e.buffers)} buffers, max load L ${bytes(e.max_load)}`;
}

/** Files up to this size are read here and shown in the editor; larger ones go to the worker as they are. */
export const EDITOR_LIMIT = 512 * 1024;
const LINE_HEIGHT = 16;
const PAD_TOP = 4;

/** What was loaded and from where, so that a share link can name it again: a gallery example, a
 * generated trace, pasted text, or an instance at an address (`url`, e.g. an embed's). */
export type LoadRequest = { source: Source; example?: Example; text?: string; gen?: { buffers: number; seed: string }; url?: string };

export class InputPanel {
  examples: Example[] = [];
  readonly editor = $<HTMLTextAreaElement>('instance-input');
  private marks = $<HTMLDivElement>('editor-marks');
  private gutter = $<HTMLDivElement>('editor-gutter');
  /** Lines of the editor's text, for the gutter. */
  private lineCount = 1;
  /** The message of each line with an error (the first one), shown on its number's hover. */
  private lineErrors = new Map<number, string>();
  private large = $<HTMLDivElement>('editor-large');
  private errorList = $<HTMLUListElement>('errors');
  readonly exampleSelect = $<HTMLSelectElement>('example-select');
  readonly formatSelect = $<HTMLSelectElement>('format-select');
  readonly semanticsSelect = $<HTMLSelectElement>('semantics-select');
  readonly genBuffers = $<HTMLInputElement>('gen-buffers');
  readonly genSeed = $<HTMLInputElement>('gen-seed');
  /** The format shown was picked by the user, not set by the page for what it loaded (a file's
   * extension, a generated trace, an imported model). Only the user's choice outlives an edit. */
  private formatChosen = false;
  /** The debounce timer of an edit not loaded yet. */
  private typing: number | undefined;
  /** The last load, so that a change of format or semantics can read it again. */
  last: LoadRequest | null = null;
  /** Called on every edit (the editor now holds text that Run would load first). */
  onEdit: () => void = () => {};
  /** Called for a model file (dropped, chosen, or a gallery model) instead of parsing it. */
  onModel: (source: ModelSource) => void = () => {};

  constructor(semantics: string[], private onLoad: (request: LoadRequest) => void) {
    // Short enough for the select's half of the panel; the title says which times are alive.
    const spans: Record<string, [string, string]> = {
      'half-open': ['half-open [a, b)', 'alive from start up to, not at, end'],
      inclusive: ['inclusive [a, b]', 'alive from start up to and at end'],
      exclusive: ['exclusive (a, b)', 'alive strictly between start and end'],
    };
    this.semanticsSelect.innerHTML = semantics.map((s) => `<option value="${s}" title="${spans[s]?.[1] ?? s}">${spans[s]?.[0] ?? s}</option>`).join('');
    // Typing loads after a pause; Run does not wait for it (see `flush`).
    this.editor.addEventListener('input', () => {
      // Text typed or pasted is read by its content again (a JSON file loaded before must not make
      // a pasted CSV fail), unless the user picked the format.
      if (!this.formatChosen) this.formatSelect.value = '';
      this.countLines();
      clearTimeout(this.typing);
      this.typing = window.setTimeout(() => this.flush(), 450);
      this.onEdit();
    });
    this.editor.addEventListener('scroll', () => {
      this.marks.style.transform = `translateY(${-this.editor.scrollTop}px)`;
      this.renderGutter();
    });
    new ResizeObserver(() => this.renderGutter()).observe(this.editor);
    this.exampleSelect.addEventListener('change', () => {
      const example = this.examples.find((e) => e.id === this.exampleSelect.value);
      if (example) this.loadExample(example);
    });
    $('gen-button').addEventListener('click', () => this.generate());
    const reload = () => this.last && this.onLoad(this.last);
    this.formatSelect.addEventListener('change', () => {
      this.formatChosen = this.formatSelect.value !== '';
      reload();
    });
    this.semanticsSelect.addEventListener('change', reload);
    this.attachDrop();
  }

  async loadIndex(): Promise<Example[]> {
    const response = await fetch(new URL('examples/index.json', document.baseURI));
    const index = (await response.json()) as { examples: Example[] };
    this.examples = index.examples;
    const groups = new Map<string, Example[]>();
    for (const e of this.examples) groups.set(e.group, [...(groups.get(e.group) ?? []), e]);
    for (const [group, list] of groups) {
      const g = document.createElement('optgroup');
      g.label = group;
      for (const e of list) {
        const option = new Option(galleryLabel(e), e.id);
        option.title = galleryTitle(e);
        g.append(option);
      }
      this.exampleSelect.append(g);
    }
    return this.examples;
  }

  /** The editor holds an edit that is not loaded yet (its pause has not passed). */
  get pendingEdit(): boolean {
    return this.typing !== undefined;
  }

  /** Loads a pending edit now instead of after its pause, so that a run starting at once solves
   * what the editor holds. Nothing happens without one. */
  flush() {
    if (this.typing === undefined) return;
    clearTimeout(this.typing);
    this.typing = undefined;
    this.loadText(this.editor.value, 'pasted text');
  }

  loadExample(example: Example) {
    this.exampleSelect.value = example.id;
    if (example.kind === 'model') {
      this.onModel({ kind: 'url', url: new URL(`examples/${example.path}`, document.baseURI).href, name: example.path.split('/').pop()! });
      return;
    }
    this.semanticsSelect.value = example.semantics;
    this.setFormat('');
    const url = new URL(`examples/${example.path}`, document.baseURI).href;
    this.request({ source: { kind: 'url', url, name: example.path.split('/').pop()! }, example });
  }

  /** An instance or a model (`.tflite`, `.pb`) at an address: an embed's `url` parameter. The
   * server must allow the page to read it (same origin, or CORS). */
  loadUrl(url: string) {
    this.exampleSelect.value = '';
    // The worker fetches it, and resolves a relative address against its own script: resolve
    // here, against the page.
    const absolute = new URL(url, document.baseURI);
    const name = absolute.pathname.split('/').pop() || url;
    if (/\.(tflite|pb)$/i.test(name)) {
      this.onModel({ kind: 'url', url: absolute.href, name });
      return;
    }
    this.setFormat('');
    this.request({ source: { kind: 'url', url: absolute.href, name }, url });
  }

  loadText(text: string, name: string) {
    this.exampleSelect.value = '';
    this.request({ source: { kind: 'text', text, name }, text });
  }

  async loadFile(file: File) {
    this.exampleSelect.value = '';
    if (await isModelFile(file)) {
      this.onModel({ kind: 'file', file });
      return;
    }
    if (/\.json$/i.test(file.name)) this.setFormat('json');
    else if (/\.csv$/i.test(file.name)) this.setFormat('csv');
    else this.setFormat('');
    if (file.size <= EDITOR_LIMIT) {
      const text = await file.text();
      this.request({ source: { kind: 'text', text, name: file.name }, text });
    } else {
      this.request({ source: { kind: 'file', file } });
    }
  }

  generate(buffers = Number(this.genBuffers.value), seed = this.genSeed.value.trim() || '0') {
    this.genBuffers.value = String(buffers);
    this.genSeed.value = seed;
    this.exampleSelect.value = '';
    this.semanticsSelect.value = 'half-open';
    this.setFormat('csv');
    this.request({ source: { kind: 'generate', buffers: Math.max(1, Math.min(2_000_000, Math.floor(buffers) || 1)), seed }, gen: { buffers, seed } });
  }

  private request(request: LoadRequest) {
    // This load replaces an edit still waiting for its pause.
    clearTimeout(this.typing);
    this.typing = undefined;
    this.last = request;
    this.onLoad(request);
  }

  /** Shows the format the page read an input as (not the user's choice: an edit resets it). */
  setFormat(value: string) {
    this.formatSelect.value = value;
    this.formatChosen = false;
  }

  get format(): string {
    return this.formatSelect.value;
  }

  get semantics(): string {
    return this.semanticsSelect.value;
  }

  /** Shows the loaded text, or a note when it is too large to edit comfortably. */
  showText(text: string | null, name: string, size: number) {
    if (text !== null) {
      if (this.editor.value !== text) this.editor.value = text;
      this.large.hidden = true;
      this.countLines();
      return;
    }
    this.editor.value = '';
    this.countLines();
    this.large.hidden = false;
    this.large.innerHTML = `<div><b>${esc(name)}</b></div><div>${bytes(size)} — too large for the editor; it is parsed and kept in the worker.</div>`;
    const edit = document.createElement('button');
    edit.textContent = 'Clear and paste instead';
    edit.addEventListener('click', () => {
      this.large.hidden = true;
      this.editor.focus();
    });
    this.large.append(edit);
  }

  /** Lists the errors with their lines, and marks the lines in the editor. */
  showErrors(errors: InputError[]) {
    this.errorList.hidden = errors.length === 0;
    this.errorList.innerHTML = '';
    this.marks.innerHTML = '';
    this.lineErrors.clear();
    const shown = errors.slice(0, 200);
    for (const error of shown) {
      const li = document.createElement('li');
      const where = error.line ? `line ${error.line}${error.column ? `, column ${error.column}` : ''}: ` : '';
      li.textContent = `${where}${error.message}`;
      if (error.line) {
        li.dataset.line = String(error.line);
        li.addEventListener('click', () => this.revealLine(error.line!));
        const mark = document.createElement('div');
        mark.style.top = `${PAD_TOP + (error.line - 1) * LINE_HEIGHT}px`;
        mark.title = li.textContent;
        this.marks.append(mark);
        if (!this.lineErrors.has(error.line)) this.lineErrors.set(error.line, li.textContent);
      }
      this.errorList.append(li);
    }
    if (errors.length > shown.length) {
      const li = document.createElement('li');
      li.textContent = `… and ${grouped(errors.length - shown.length)} more`;
      this.errorList.append(li);
    }
    const first = errors.find((e) => e.line);
    if (first?.line && this.large.hidden) this.revealLine(first.line, false);
    this.renderGutter();
  }

  private countLines() {
    let lines = 1;
    const text = this.editor.value;
    for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lines++;
    this.lineCount = lines;
    this.renderGutter();
  }

  /** The numbers of the lines in view (a 500 KiB text has tens of thousands of lines: only those
   * shown are drawn), following the editor's scroll. */
  private renderGutter() {
    const top = this.editor.scrollTop;
    const first = Math.max(1, Math.floor((top - PAD_TOP) / LINE_HEIGHT) + 1);
    const last = Math.min(this.lineCount, first + Math.ceil(this.editor.clientHeight / LINE_HEIGHT) + 1);
    let html = '';
    for (let line = first; line <= last; line++) {
      const error = this.lineErrors.get(line);
      const y = PAD_TOP + (line - 1) * LINE_HEIGHT - top;
      html += error === undefined
        ? `<div style="top:${y}px">${line}</div>`
        : `<div class="bad" style="top:${y}px" title="${esc(error)}" data-line="${line}">${line}</div>`;
    }
    this.gutter.innerHTML = html;
  }

  /** Scrolls the editor to a line and selects it. */
  revealLine(line: number, focus = true) {
    const text = this.editor.value;
    let start = 0;
    for (let l = 1; l < line && start !== -1; l++) start = text.indexOf('\n', start) + 1 || -1;
    if (start < 0) return;
    const end = text.indexOf('\n', start);
    this.editor.scrollTop = Math.max(0, (line - 3) * LINE_HEIGHT);
    if (focus) {
      this.editor.focus({ preventScroll: true });
      this.editor.setSelectionRange(start, end < 0 ? text.length : end);
      this.editor.scrollTop = Math.max(0, (line - 3) * LINE_HEIGHT);
    }
  }

  /** A file dropped anywhere on the page loads; the panel's drop zone and the picker do too. */
  private attachDrop() {
    const overlay = $('drop-overlay');
    const zone = $('file-drop');
    let depth = 0;
    const hasFiles = (ev: DragEvent) => Array.from(ev.dataTransfer?.types ?? []).includes('Files');
    document.addEventListener('dragenter', (ev) => {
      if (!hasFiles(ev)) return;
      depth++;
      overlay.hidden = false;
    });
    document.addEventListener('dragleave', () => {
      depth = Math.max(0, depth - 1);
      if (depth === 0) overlay.hidden = true;
    });
    document.addEventListener('dragover', (ev) => {
      if (hasFiles(ev)) ev.preventDefault();
    });
    document.addEventListener('drop', (ev) => {
      depth = 0;
      overlay.hidden = true;
      const file = ev.dataTransfer?.files?.[0];
      if (!file) return;
      ev.preventDefault();
      void this.loadFile(file);
    });
    zone.addEventListener('dragover', () => zone.classList.add('over'));
    zone.addEventListener('dragleave', () => zone.classList.remove('over'));
    zone.addEventListener('drop', () => zone.classList.remove('over'));
    const picker = $<HTMLInputElement>('file-input');
    picker.addEventListener('change', () => {
      const file = picker.files?.[0];
      if (file) void this.loadFile(file);
      picker.value = '';
    });
  }
}
