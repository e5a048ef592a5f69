# Set-up shared by the benchmark scripts (sourced, not run): reads `[OUT_DIR] [-- extra bench
# flags]` from the script's arguments into `out` and `extra`, builds the release CLI and names it
# `memplan`, and makes OUT_DIR/instances for generated inputs.
#   source scripts/bench-common.sh DEFAULT_OUT_DIR "$@"
default_out=$1
shift
out=${1:-$default_out}
shift || true
[ "${1:-}" = "--" ] && shift
extra=("$@")

cargo build --release --quiet --bin memplan
memplan=${CARGO_TARGET_DIR:-target}/release/memplan
mkdir -p "$out/instances"
