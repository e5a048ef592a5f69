#!/usr/bin/env bash
# Starts memplan on an example: builds the command-line tool and plans MiniMalloc's challenging
# instance C with several planners. (The browser playground replaces this when it lands.)
set -euo pipefail
cd "$(dirname "$0")/.."

command -v cargo >/dev/null || { echo "memplan needs Rust's cargo (https://rustup.rs)" >&2; exit 2; }
cargo build --release --quiet
example=public/examples/minimalloc/challenging/C.1048576.csv
echo "\$ memplan stats $example"
./target/release/memplan stats "$example"
echo "\$ memplan solve $example --solver auto --capacity 1MiB"
./target/release/memplan solve "$example" --solver auto --capacity 1MiB || true
echo "\$ memplan bench $example --solvers slff,tflite,xla,tvm,first-fit-start,zant,auto"
./target/release/memplan bench "$example" --solvers slff,tflite,xla,tvm,first-fit-start,zant,auto
echo
echo "More: ./target/release/memplan --help"
