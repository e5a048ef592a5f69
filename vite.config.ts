import { defineConfig } from 'vite';

// Threads in wasm need SharedArrayBuffer, which browsers only give a cross-origin isolated page.
const isolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

export default defineConfig({
  root: 'web',
  publicDir: '../public', // the example gallery (public/examples) is shared with the Rust tests
  server: { headers: isolation, host: '127.0.0.1', port: 5173, strictPort: true },
  preview: { headers: isolation, host: '127.0.0.1', port: 4173, strictPort: true },
  worker: { format: 'es' },
  build: { target: 'es2022', outDir: '../dist', emptyOutDir: true, chunkSizeWarningLimit: 2048 },
});
