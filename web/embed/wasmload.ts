// The docs element's wasm loader, put in place of web/src/wasmload.ts by this folder's Vite config:
// the single-threaded core only. A documentation page is seldom cross-origin isolated, and one
// build keeps dist-embed/ to one wasm file.
import * as core from '../src/pkg-st/index.js';
import type { Wasm } from '../src/wasmload';

export type { Wasm };

/** The started single-threaded core (`threads` is ignored: it has one). */
export async function loadWasm(_threads: number): Promise<Wasm> {
  await core.default();
  return core;
}
