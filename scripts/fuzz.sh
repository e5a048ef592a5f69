#!/usr/bin/env bash
# Fuzzes memplan's readers with cargo-fuzz (libFuzzer) on the pinned nightly: the CSV and JSON
# readers, format sniffing (`format::read`), the size parser, the TFLite importer (`tflite`:
# models imported, planned, written back with an offline plan and read again), the ExecuTorch
# importer (`pte`: programs imported, written back with another plan and read again) and the XLA importer
# (`xla`: dumps imported, XLA's offsets validated, the xla preset run). Each target checks that nothing
# panics and that what reads writes back to the same problem (crate/fuzz/src/lib.rs).
#   scripts/fuzz.sh                  every target for 60 s
#   scripts/fuzz.sh 300 csv json     the named targets for 300 s each
# Crashes land in crate/fuzz/artifacts/<target>/; the corpus grows in crate/fuzz/corpus/<target>/.
# A crash found here is fixed and kept as a regular test (crate/tests/formats.rs, or
# crate/tests/import_tflite.rs or import_xla.rs for the importers), not only as a file.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/versions.sh

seconds="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(csv json read size tflite pte xla)

if ! rustup run "$NIGHTLY" rustc --version >/dev/null 2>&1; then
  echo "== fuzz: installing $NIGHTLY"
  rustup toolchain install "$NIGHTLY" --profile minimal
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "== fuzz: installing cargo-fuzz"
  cargo install cargo-fuzz
fi

cd crate
for target in "${targets[@]}"; do
  case "$target" in
    csv | json | size) seeds=(fuzz/seeds/"$target"); dict=fuzz/dicts/"$target".dict ;;
    read) seeds=(fuzz/seeds/csv fuzz/seeds/json); dict=fuzz/dicts/json.dict ;;
    tflite) seeds=(fuzz/seeds/tflite); dict=fuzz/dicts/tflite.dict ;;
    xla) seeds=(fuzz/seeds/xla); dict=fuzz/dicts/xla.dict ;;
    *) echo "unknown target '$target' (csv, json, read, size, tflite, xla)" >&2; exit 2 ;;
  esac
  mkdir -p fuzz/corpus/"$target"
  echo "== fuzz: $target for $seconds s"
  # One job; inputs up to 64 KiB so that slow (say quadratic) paths show; any input taking over
  # 10 s is reported as a hang.
  cargo "+$NIGHTLY" fuzz run "$target" fuzz/corpus/"$target" "${seeds[@]}" -- \
    -max_total_time="$seconds" -max_len=65536 -timeout=10 -dict="$dict" -print_final_stats=1
done
