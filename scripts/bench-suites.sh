#!/usr/bin/env bash
# The headline benchmark figures, as `memplan bench` tables with the proven bound and the best
# published peer figure beside each row: MiniMalloc's challenging suite (minimising, and within
# its 1 MiB), idealloc's suite, generated perfect packings (optimum = L) in two sets, and random
# aligned instances. Figures only, no thresholds; it takes tens of minutes on two cores.
#
#   scripts/bench-suites.sh [OUT_DIR] [-- extra bench flags, e.g. --effort high --time-limit 60]
#
# Perfect packings: the "tuned" set (seeds 1-3) is the one solver changes were tried on; the
# "untuned" set (seeds 101-103) was never looked at while tuning, so it says whether a change
# generalises. Each table goes to OUT_DIR/<suite>.md (default target/bench-suites).
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/bench-common.sh target/bench-suites "$@"

peers=public/examples/peers.json
bench() { # bench NAME FILES... [-- flags]
  local name=$1
  shift
  echo "== $name"
  "$memplan" bench "$@" --peers "$peers" "${extra[@]}" | tee "$out/$name.md"
}

challenging=(public/examples/minimalloc/challenging/*.csv)
bench challenging-minimise "${challenging[@]}" --solvers auto
bench challenging-1MiB "${challenging[@]}" --solvers auto,telamalloc --capacity 1048576
bench idealloc public/examples/idealloc/*/*.csv --solvers auto,idealloc

perfect_set() { # perfect_set NAME SEED...
  local name=$1 files=()
  shift
  for buffers in 300 600 1000; do
    for seed in "$@"; do
      local file=$out/instances/perfect-$buffers-$seed.csv
      "$memplan" generate --shape perfect --buffers "$buffers" --seed "$seed" --out "$file"
      files+=("$file")
    done
  done
  bench "$name" "${files[@]}" --solvers auto
}
perfect_set perfect-tuned 1 2 3
perfect_set perfect-untuned 101 102 103

# The aligned set of crate/tests/fixtures/aligned/ (seed S has 20 + S % 11 buffers), with the
# optima CP-SAT recorded for it as the peer figure.
aligned=()
optima=crate/tests/fixtures/aligned/optima.csv
cpsat=$out/instances/cpsat.json
echo "[" > "$cpsat"
for seed in 1 2 3 4 5 6 7 8 9 10; do
  file=$out/instances/aligned-$seed.csv
  "$memplan" generate --shape aligned --buffers $((20 + seed % 11)) --seed "$seed" --out "$file"
  aligned+=("$file")
  awk -F, -v seed="$seed" '$1 == "generated" && $3 == seed {
      printf "%s{\"instance\": \"aligned-%s.csv\", \"peer\": \"CP-SAT (%s)\", \"makespan\": %s, \"time_ms\": %d, \"source\": \"crate/tests/fixtures/aligned/optima.csv\"}\n",
        (seed == 1 ? "" : ","), seed, tolower($4), $5, $7 * 1000 }' "$optima" >> "$cpsat"
done
awk -F, '$1 == "issue20.csv" {
    printf ",{\"instance\": \"issue20.csv\", \"peer\": \"CP-SAT (%s)\", \"makespan\": %s, \"time_ms\": %d, \"source\": \"crate/tests/fixtures/aligned/optima.csv\"}\n",
      tolower($4), $5, $7 * 1000 }' "$optima" >> "$cpsat"
aligned+=(crate/tests/fixtures/aligned/issue20.csv)
echo "]" >> "$cpsat"
bench aligned "${aligned[@]}" --solvers auto,minimalloc --peers "$cpsat"
echo "tables in $out/"
