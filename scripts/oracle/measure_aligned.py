#!/usr/bin/env python3
"""Times memplan on the aligned set against the optima CP-SAT recorded
(crate/tests/fixtures/aligned/optima.csv): one run per instance and solver, elapsed time as
memplan reports it, nodes, and whether the run proved the recorded optimum. Run by hand:

    cargo build --release
    python3 scripts/oracle/measure_aligned.py --memplan target/release/memplan [--solvers stacking,minimalloc,auto]
"""

import argparse
import csv
import json
import os
import statistics
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(os.path.dirname(os.path.dirname(HERE)), "crate", "tests", "fixtures", "aligned")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--memplan", required=True)
    parser.add_argument("--generator", help="the memplan binary that generates the set (default: --memplan)")
    parser.add_argument("--solvers", default="stacking,minimalloc,auto")
    parser.add_argument("--extra", default="", help="more arguments for `memplan solve`")
    args = parser.parse_args()
    with open(os.path.join(FIXTURES, "optima.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    with tempfile.TemporaryDirectory() as tmp:
        for solver in args.solvers.split(","):
            times, nodes, proven, lines = [], [], 0, []
            for row in rows:
                if row["seed"]:
                    path = os.path.join(tmp, f"a{row['seed']}.csv")
                    subprocess.run([args.generator or args.memplan, "generate", "--shape", "aligned", "--buffers", row["buffers"],
                                    "--seed", row["seed"], "--out", path], check=True)
                else:
                    path = os.path.join(FIXTURES, row["instance"])
                run = subprocess.run([args.memplan, "solve", path, "--solver", solver] + args.extra.split(),
                                     capture_output=True, text=True)
                if not run.stdout.strip():
                    raise SystemExit(f"{path}: {run.stderr}")
                out = json.loads(run.stdout.strip().splitlines()[-1])
                ms = float(out["elapsed_ms"])
                stats = out.get("stats", {})
                n = int(stats.get("nodes", 0) or 0)
                ok = out["optimal"] and row["status"] == "OPTIMAL" and int(out["makespan"]) == int(row["makespan"])
                proven += ok
                name = row["instance"] if not row["seed"] else f"seed {row['seed']}"
                lines.append(f"  {name:>10} n={row['buffers']} makespan={out['makespan']} cpsat={row['makespan']} "
                             f"stopped={out['stopped']} {ms:.1f} ms nodes={n}")
                if row["seed"]:
                    times.append(ms)
                    nodes.append(n)
                else:
                    issue = (ms, n, ok, out["stopped"], out["makespan"])
            print(f"{solver}:")
            print("\n".join(lines))
            print(f"{solver}: issue20 {issue[0]:.1f} ms, {issue[1]} nodes, proven optimum {issue[2]} ({issue[3]}, {issue[4]})")
            print(f"{solver}: set of {len(times)}: median {statistics.median(times):.1f} ms, max {max(times):.1f} ms, "
                  f"median nodes {statistics.median(nodes):.0f}, max nodes {max(nodes)}, "
                  f"proven optimum {proven - issue[2]}/{len(times)}")


if __name__ == "__main__":
    main()
