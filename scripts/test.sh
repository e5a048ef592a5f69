#!/usr/bin/env bash
# Runs every test of the project on a fresh machine, installing what it needs first
# (scripts/setup.sh): the Rust core's lints and its unit, property and CLI tests, the Python
# package's tests (scripts/test-python.sh), both wasm builds
# (with a check that the threaded one really has shared memory), the page's type check, build and
# unit tests (Vitest),
# and the browser tests in Debian's Chromium against `vite preview`. Every stage runs even when an
# earlier one failed (the browser tests need the builds), and the run ends with one
# "N passed, M failed" line; the exit status is non-zero when anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh --browser || { echo "set-up failed"; echo "0 passed, 1 failed"; exit 1; }

log=$(mktemp)
preview_pid=""
cleanup() {
  if [ -n "$preview_pid" ]; then kill -- "-$preview_pid" 2>/dev/null || true; fi
  rm -f "$log"
}
trap cleanup EXIT

# A stage that is not a test runner counts as one test: "stage ok" or "stage FAILED".
stage_failures=0
stage_passes=0
stage() {
  local name=$1
  shift
  echo "== $name"
  if "$@"; then
    stage_passes=$((stage_passes + 1))
    return 0
  fi
  echo "== $name FAILED"
  stage_failures=$((stage_failures + 1))
  return 1
}

if cargo clippy --version >/dev/null 2>&1; then
  stage "Rust core: lints (native)" cargo clippy --workspace --all-targets --quiet -- -D warnings
  stage "Rust core: lints (the wasm facade)" cargo clippy -p memplan --lib --no-default-features \
    --target wasm32-unknown-unknown --target-dir target/wasm-st --quiet -- -D warnings
else
  echo "== clippy is not installed: lints skipped"
fi
# The API's documentation: every link resolves and none points at an internal (the docs of a
# public item are read by users who cannot follow it).
RUSTDOCFLAGS="-D warnings" stage "Rust core: API docs (links)" cargo doc -p memplan --no-deps --quiet

echo "== Rust core: unit, property and command-line tests"
# --lib --bins --tests: every test target; the doc-tests run next, for the core only (the Python
# crate's docs are Python's). --no-fail-fast: a failing test binary does not hide the results of
# the ones after it.
cargo test --workspace --no-fail-fast --lib --bins --tests 2>&1 | tee -a "$log"
cargo_status=${PIPESTATUS[0]}
if [ "$cargo_status" -ne 0 ] && ! grep -q '^test result: FAILED' "$log"; then
  stage_failures=$((stage_failures + 1))   # it did not even build
fi

echo "== Rust core: doc-tests (the examples of the public API)"
cargo test -p memplan --doc 2>&1 | tee -a "$log"
doc_status=${PIPESTATUS[0]}
if [ "$doc_status" -ne 0 ] && ! grep -q '^test result: FAILED' "$log"; then
  stage_failures=$((stage_failures + 1))   # they did not even build
fi

# The Python package (python/): a venv under target/ with maturin, NumPy and pytest from PyPI, the
# package built on the core `cargo test` just built, and its pytest suite.
stage "Python package: build and pytest (scripts/test-python.sh)" bash scripts/test-python.sh

browser=yes
stage "wasm builds (threaded with shared memory, and single-threaded)" bash scripts/build-wasm.sh || browser=no
stage "page: type check and build" npm run --silent build || browser=no
stage "page: unit tests (ticks, scales, label placement, alive list)" npm run --silent test:unit
# The docs element (dist-embed/): its browser tests load it on a sample docs page; a failed build
# fails those tests, not the others.
stage "docs element: build (dist-embed)" npm run --silent build:embed
# The browser tests compare the page with the CLI: the one `cargo test` just built (its CLI tests
# run it) serves, so no release build is needed here.
cli=target/debug/memplan
[ -x "$cli" ] || stage "CLI build (the browser tests compare with it)" cargo build --quiet || browser=no

# Scripts that measure are code: each runs once on a tiny input, so that a change of the API they
# call breaks a test, not the next person who measures.
if [ "$browser" = yes ]; then
  stage "measuring scripts: bench-wasm.mjs smoke run" env MEMPLAN_CLI="$cli" \
    node scripts/bench-wasm.mjs 1 slff,auto public/examples/handmade/small.csv
fi

if [ "$browser" = yes ]; then
  echo "== browser tests"
  setsid npx vite preview --strictPort >/dev/null 2>&1 &
  preview_pid=$!
  for _ in $(seq 1 120); do
    (exec 3<>/dev/tcp/127.0.0.1/4173) 2>/dev/null && break
    sleep 0.5
  done
  MEMPLAN_CLI="$cli" node tests/e2e.mjs http://127.0.0.1:4173 2>&1 | tee -a "$log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || grep -q '^[0-9]* passed, [1-9][0-9]* failed$' "$log" || stage_failures=$((stage_failures + 1))
else
  echo "== browser tests skipped: a build failed"
  stage_failures=$((stage_failures + 1))
fi

# One closing line for the whole run: cargo's "test result" lines, the browser tests' own line,
# and the stages above.
awk -v sp="$stage_passes" -v sf="$stage_failures" '
  /^test result:/ { for (i = 1; i < NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } }
  /^[0-9]+ passed, [0-9]+ failed$/ { p += $1; f += $3 }
  END { printf "%d passed, %d failed\n", p + sp, f + sf; exit (f + sf > 0) }' "$log"
