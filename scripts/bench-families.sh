#!/usr/bin/env bash
# Perfect packings from every family of `memplan generate` (optimum = L = 1 MiB by
# construction), solved by `auto`: one `memplan bench` table of families x sizes x seeds, the
# makespan, fragmentation above L and time of each. Figures only, no thresholds.
#
#   scripts/bench-families.sh [OUT_DIR] [-- extra bench flags]
#
# Defaults: sizes 600 1000 2000, seeds 101 102 (never tuned on), `--effort high --time-limit 60`,
# 2 threads. SIZES and SEEDS in the environment override the lists, e.g.
#   SIZES="600" SEEDS="1" scripts/bench-families.sh target/families -- --effort high --time-limit 10
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/bench-common.sh target/bench-families "$@"
[ ${#extra[@]} -eq 0 ] && extra=(--effort high --time-limit 60 --threads 2)
sizes=(${SIZES:-600 1000 2000})
seeds=(${SEEDS:-101 102})
families=(perfect guillotine pinwheel staircase equal-sizes power-of-two towers)

files=()
for family in "${families[@]}"; do
  for buffers in "${sizes[@]}"; do
    for seed in "${seeds[@]}"; do
      file=$out/instances/$family-$buffers-$seed.csv
      "$memplan" generate --shape "$family" --buffers "$buffers" --seed "$seed" --out "$file" 2>/dev/null
      files+=("$file")
    done
  done
done
"$memplan" bench "${files[@]}" --solvers auto "${extra[@]}" | tee "$out/families.md"
