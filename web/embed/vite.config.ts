/// <reference types="node" />
// The docs element's build (`npm run build:embed`): web/embed/memplan-plan.ts in library mode, as
// one ES module, with the playground's worker and the single-threaded wasm core next to it, into
// dist-embed/ (with README.md, the snippet to paste). The worker is the playground's own
// (web/src/worker.ts); only its wasm loader is swapped for ./wasmload.ts, so the threaded build
// is not bundled.
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';

const here = dirname(fileURLToPath(import.meta.url));
const out = resolve(here, '../../dist-embed');

/** Resolves web/src/wasmload.ts (imported by the worker) to this folder's single-threaded one. */
function singleThreaded(): Plugin {
  const playground = resolve(here, '../src/wasmload.ts');
  const embed = resolve(here, 'wasmload.ts');
  return {
    name: 'memplan-embed-single-threaded',
    enforce: 'pre',
    async resolveId(source, importer, options) {
      if (!importer || !/wasmload(\.ts)?$/.test(source)) return null;
      const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
      return resolved?.id === playground ? embed : null;
    },
  };
}

/** Keeps the wasm core a file of its own: library mode inlines every asset (base64, a third
 * larger, parsed as JavaScript); `?no-inline` on wasm-bindgen's default address opts out. */
function wasmAsFile(): Plugin {
  return {
    name: 'memplan-embed-wasm-file',
    transform(code, id) {
      if (!/pkg-st[\\/]index\.js$/.test(id)) return null;
      const out = code.replace("new URL('index_bg.wasm', import.meta.url)", "new URL('index_bg.wasm?no-inline', import.meta.url)");
      if (out === code) this.error('the wasm-bindgen glue no longer names index_bg.wasm as expected');
      return { code: out, map: null };
    },
  };
}

/** Copies the README snippet into the output. */
function readme(): Plugin {
  return {
    name: 'memplan-embed-readme',
    closeBundle() {
      mkdirSync(out, { recursive: true });
      copyFileSync(resolve(here, 'README.md'), resolve(out, 'README.md'));
    },
  };
}

export default defineConfig({
  root: here,
  // Addresses relative to the script, wherever the docs site puts the folder.
  base: './',
  publicDir: false,
  plugins: [singleThreaded(), readme()],
  worker: { format: 'es', plugins: () => [singleThreaded(), wasmAsFile()] },
  build: {
    target: 'es2022',
    outDir: out,
    emptyOutDir: true,
    chunkSizeWarningLimit: 2048,
    lib: { entry: resolve(here, 'memplan-plan.ts'), formats: ['es'], fileName: () => 'memplan-plan.js' },
  },
});
