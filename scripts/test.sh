#!/usr/bin/env bash
# Runs every test of the project on a fresh machine: the Rust core's unit, property and CLI tests.
# It installs what it needs first (only the Rust toolchain is assumed to be on the machine).
set -euo pipefail
cd "$(dirname "$0")/.."

command -v cargo >/dev/null || { echo "memplan needs Rust's cargo (https://rustup.rs)" >&2; exit 2; }

if cargo clippy --version >/dev/null 2>&1; then
  echo "== Rust core: lints"
  cargo clippy --workspace --all-targets --quiet -- -D warnings
else
  echo "== clippy is not installed: lints skipped"
fi

echo "== Rust core: unit, property and command-line tests"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# --lib --bins --tests: every test target except doc-tests (the crate has none, and an empty run
# would be the last line printed).
cargo test --workspace --lib --bins --tests 2>&1 | tee "$log"

# One closing line for the whole run.
awk '/^test result:/ { for (i = 1; i < NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } }
     END { printf "%d passed, %d failed\n", p, f }' "$log"
