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
cargo test --workspace
