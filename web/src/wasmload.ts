// Which wasm build the solver worker runs: the threaded one when the page is cross-origin isolated
// (SharedArrayBuffer available), else the single-threaded one. Its own module so that a build
// which only ships the single-threaded core (the docs element, web/embed/) can put its own
// loader in its place (web/embed/vite.config.ts) without bundling the threaded build.

export type Wasm = typeof import('./pkg-st/index.js');

const canThreads = () => self.crossOriginIsolated === true && typeof SharedArrayBuffer === 'function';

/** The started core, with a pool of `threads` threads in the threaded build. */
export async function loadWasm(threads: number): Promise<Wasm> {
  if (canThreads()) {
    try {
      // Both builds export the same API; only their low-level init signatures differ.
      const module = (await import('./pkg-threads/index.js')) as unknown as Wasm;
      await module.default();
      await module.initThreadPool(Math.max(1, threads));
      return module;
    } catch (error) {
      console.warn('memplan: the threaded build failed to start, using the single-threaded one', error);
    }
  }
  const module = (await import('./pkg-st/index.js')) as Wasm;
  await module.default();
  return module;
}
