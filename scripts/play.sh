#!/usr/bin/env bash
# Starts the memplan playground: installs what is missing (scripts/setup.sh), builds both wasm
# variants and the page, and serves it with the cross-origin isolation headers (threads need them)
# on http://127.0.0.1:5173 with an example loaded. Ctrl-C stops it.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
bash scripts/build-wasm.sh
npm run build
echo
echo "memplan playground: http://127.0.0.1:5173/?ex=minimalloc/challenging/C&run=1"
echo
exec npx vite preview --port 5173 --strictPort
