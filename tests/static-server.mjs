// A minimal static file server for the browser tests: serves a folder on 127.0.0.1 WITHOUT the
// cross-origin isolation headers, as a documentation site embedding the playground would (with
// `isolated`, WITH them, as `vite preview` does: scripts/bench-page.mjs runs the threaded build).
// `mounts` serves other folders under a path prefix, e.g. `{ '/embed/': 'dist-embed' }`.
import { createServer } from 'node:http';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';

const TYPES = {
  '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm',
  '.json': 'application/json', '.csv': 'text/csv', '.md': 'text/markdown', '.png': 'image/png', '.svg': 'image/svg+xml',
};

export async function startStaticServer(dir, { isolated = false, mounts = {} } = {}) {
  const isolation = isolated ? { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' } : {};
  const server = createServer(async (request, response) => {
    const path = normalize(decodeURIComponent(new URL(request.url, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
    const mount = Object.keys(mounts).find((prefix) => path.startsWith(prefix));
    const [folder, rest] = mount ? [mounts[mount], path.slice(mount.length - 1)] : [dir, path];
    const file = join(folder, rest.endsWith('/') ? `${rest}index.html` : rest);
    try {
      const body = await readFile(file);
      response.writeHead(200, { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream', ...isolation });
      response.end(body);
    } catch {
      response.writeHead(404);
      response.end('not found');
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }),
  };
}

// The page a benchmark drives: the URL given (a running page), or the built `dist/` under `root`
// served here, cross-origin isolated so that the threaded build runs. `server` is null for a URL.
export async function servedPage(root, url) {
  if (url) return { base: url.replace(/\/$/, ''), server: null };
  if (!existsSync(join(root, 'dist/index.html'))) throw new Error('no dist/: run `npm run build` first, or pass the URL of a running page');
  const server = await startStaticServer(join(root, 'dist'), { isolated: true });
  return { base: server.url.replace(/\/$/, ''), server };
}
