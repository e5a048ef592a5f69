#!/usr/bin/env bash
# Builds the two wasm packages of the core for the playground (recipe: shared toolchain notes):
#   web/src/pkg-threads  nightly, atomics + shared memory, rayon threads (wasm-bindgen-rayon)
#   web/src/pkg-st       stable, single-threaded fallback for pages that are not cross-origin isolated
# and checks that the threaded one really uses shared memory.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/versions.sh

# Since nightly-2025-10-03, +atomics no longer implies shared memory: the link args are required.
THREAD_FLAGS="-C target-feature=+atomics,+bulk-memory \
 -C link-arg=--shared-memory -C link-arg=--import-memory -C link-arg=--max-memory=4294967296 \
 -C link-arg=--export=__wasm_init_tls -C link-arg=--export=__tls_size \
 -C link-arg=--export=__tls_align -C link-arg=--export=__tls_base"

echo "== wasm: threaded build ($NIGHTLY)"
RUSTFLAGS="$THREAD_FLAGS" cargo "+$NIGHTLY" build --quiet --release -p memplan --lib --no-default-features \
  --target wasm32-unknown-unknown -Z build-std=panic_abort,std --target-dir target/wasm-threads
wasm-bindgen --target web --out-name index --out-dir web/src/pkg-threads \
  target/wasm-threads/wasm32-unknown-unknown/release/memplan.wasm

echo "== wasm: single-threaded build (stable)"
RUSTFLAGS="" cargo +stable build --quiet --release -p memplan --lib --no-default-features \
  --target wasm32-unknown-unknown --target-dir target/wasm-st
wasm-bindgen --target web --out-name index --out-dir web/src/pkg-st \
  target/wasm-st/wasm32-unknown-unknown/release/memplan.wasm

if ! grep -q 'shared:true\|shared: true' web/src/pkg-threads/index.js; then
  echo "the threaded build has no shared memory: check THREAD_FLAGS" >&2
  exit 1
fi
echo "== wasm: both builds ready (threaded build uses shared memory)"
