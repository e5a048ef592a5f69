#!/usr/bin/env bash
# Builds the two wasm packages of the core for the playground (recipe: shared toolchain notes):
#   web/src/pkg-threads  nightly, atomics + shared memory, rayon threads (wasm-bindgen-rayon)
#   web/src/pkg-st       stable, single-threaded fallback for pages that are not cross-origin isolated
# and checks that the threaded one really uses shared memory.
#   scripts/build-wasm.sh [threads|st|all] [--compile-only|--bindgen-only] [--progress]
# The compile and the wasm-bindgen step can run apart (scripts/play.sh compiles both variants side by
# side while wasm-bindgen-cli installs, then binds them); --progress shows cargo's lines.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/versions.sh

variants=all
compile=yes
bindgen=yes
quiet=--quiet
for arg in "$@"; do
  case $arg in
    threads | st | all) variants=$arg ;;
    --compile-only) bindgen=no ;;
    --bindgen-only) compile=no ;;
    --progress) quiet= ;;
    *) echo "build-wasm.sh: unknown argument $arg (usage: build-wasm.sh [threads|st|all] [--compile-only|--bindgen-only] [--progress])" >&2; exit 2 ;;
  esac
done

# No debug line tables in the wasm (the release profile keeps them for the native CLI's profiles):
# wasm-bindgen strips them anyway (the threaded module: 15.5 MB with them, 3.0 MB without, 2.4 MB
# bound either way), and compiling them costs time.
export CARGO_PROFILE_RELEASE_DEBUG=false

# Since nightly-2025-10-03, +atomics no longer implies shared memory: the link args are required.
# +simd128 as in the single-threaded build (see ST_FLAGS below): this is the page's default build.
THREAD_FLAGS="-C target-feature=+atomics,+bulk-memory,+simd128 \
 -C link-arg=--shared-memory -C link-arg=--import-memory -C link-arg=--max-memory=4294967296 \
 -C link-arg=--export=__wasm_init_tls -C link-arg=--export=__tls_size \
 -C link-arg=--export=__tls_align -C link-arg=--export=__tls_base"

compile_threads() {
  echo "== wasm: threaded build ($NIGHTLY)"
  RUSTFLAGS="$THREAD_FLAGS" cargo "+$NIGHTLY" build $quiet --release -p memplan --lib --no-default-features \
    --target wasm32-unknown-unknown -Z build-std=panic_abort,std --target-dir target/wasm-threads
}
# SIMD128 throughout the single-threaded build, not only in the one function that asks for it
# (MiniMalloc's lowering of 32-bit heights, which then inlines into its caller): MiniMalloc on C, G
# and K at 1 MiB 0.94-0.95 of the CPU time, SLFF and TVM 0.84-1.06, idealloc 0.95-1.03 (BENCHMARKS.md).
# The module held SIMD128 instructions before, so no engine that loaded it is refused now.
ST_FLAGS="-C target-feature=+simd128"

compile_st() {
  echo "== wasm: single-threaded build (stable)"
  RUSTFLAGS="$ST_FLAGS" cargo +stable build $quiet --release -p memplan --lib --no-default-features \
    --target wasm32-unknown-unknown --target-dir target/wasm-st
}

if [ $compile = yes ]; then
  case $variants in
    threads) compile_threads ;;
    st) compile_st ;;
    all)
      # Side by side: each ends on a long phase that keeps one core busy (LTO with one codegen
      # unit), which the other fills. Their target directories are apart, so nothing is shared.
      compile_st &
      st_pid=$!
      compile_threads || { wait "$st_pid" || true; exit 1; }
      wait "$st_pid"
      ;;
  esac
fi

if [ $bindgen = yes ] && [ "$variants" != st ]; then
  wasm-bindgen --target web --out-name index --out-dir web/src/pkg-threads \
    target/wasm-threads/wasm32-unknown-unknown/release/memplan.wasm
  if ! grep -q 'shared:true\|shared: true' web/src/pkg-threads/index.js; then
    echo "the threaded build has no shared memory: check THREAD_FLAGS" >&2
    exit 1
  fi
fi
if [ $bindgen = yes ] && [ "$variants" != threads ]; then
  wasm-bindgen --target web --out-name index --out-dir web/src/pkg-st \
    target/wasm-st/wasm32-unknown-unknown/release/memplan.wasm
fi
if [ $bindgen = yes ]; then
  echo "== wasm: $([ "$variants" = all ] && echo "both builds" || echo "the $variants build") ready$([ "$variants" = st ] || echo " (threaded build uses shared memory)")"
fi
