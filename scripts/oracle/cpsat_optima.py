#!/usr/bin/env python3
"""Records the optimal makespans of the aligned test set with OR-Tools CP-SAT (an oracle
independent of memplan's search), for crate/tests/aligned.rs.

Run by hand, never in CI (OR-Tools is not a dependency of the project):

    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install ortools
    cargo build --release
    /tmp/venv/bin/python scripts/oracle/cpsat_optima.py --memplan target/release/memplan

The set is `memplan generate --shape aligned --buffers N --seed S` for seeds 1..50 with
N = 20 + S % 11 (20 to 30 buffers), plus a hand-picked 23-buffer instance
(crate/tests/fixtures/aligned/issue20.csv). It writes crate/tests/fixtures/aligned/optima.csv:
instance, buffers, seed, status (OPTIMAL when CP-SAT proved it, else FEASIBLE), the best
makespan CP-SAT found, its proven lower bound, and the seconds it took.

The model: an offset o_i = a_i * k_i (k_i integer) per buffer, o_i + size_i <= M, and a 2-D
no-overlap of the rectangles [lower_i, upper_i) x [o_i, o_i + size_i) (lifetimes are half-open,
as in memplan's CSV); minimise M.
"""

import argparse
import csv
import os
import subprocess
import sys
import tempfile
import time

from ortools.sat.python import cp_model

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FIXTURES = os.path.join(ROOT, "crate", "tests", "fixtures", "aligned")


def buffers_for(seed):
    return 20 + seed % 11


def read_instance(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    return [
        (int(r["lower"]), int(r["upper"]), int(r["size"]), int(r.get("alignment") or 1))
        for r in rows
    ]


def optimum(buffers, time_limit, workers):
    model = cp_model.CpModel()
    horizon = sum(size + alignment for _, _, size, alignment in buffers)
    makespan = model.NewIntVar(0, horizon, "M")
    times, addresses = [], []
    for i, (lower, upper, size, alignment) in enumerate(buffers):
        slot = model.NewIntVar(0, horizon // alignment, f"k{i}")
        offset = model.NewIntVar(0, horizon, f"o{i}")
        model.Add(offset == alignment * slot)
        model.Add(offset + size <= makespan)
        addresses.append(model.NewIntervalVar(offset, size, offset + size, f"y{i}"))
        times.append(model.NewFixedSizeIntervalVar(lower, upper - lower, f"x{i}"))
    model.AddNoOverlap2D(times, addresses)
    model.Minimize(makespan)
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = time_limit
    solver.parameters.num_workers = workers
    started = time.time()
    status = solver.Solve(model)
    elapsed = time.time() - started
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        raise SystemExit(f"CP-SAT found no plan ({solver.StatusName(status)})")
    return (
        solver.StatusName(status),
        int(solver.ObjectiveValue()),
        int(solver.BestObjectiveBound()),
        elapsed,
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--memplan", required=True, help="the memplan binary (for `generate`)")
    parser.add_argument("--seeds", type=int, default=50)
    parser.add_argument("--time-limit", type=float, default=120.0, help="seconds per instance")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", default=os.path.join(FIXTURES, "optima.csv"))
    args = parser.parse_args()

    jobs = [("issue20.csv", None, os.path.join(FIXTURES, "issue20.csv"))]
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(1, args.seeds + 1):
            n = buffers_for(seed)
            path = os.path.join(tmp, f"aligned-{n}-{seed}.csv")
            subprocess.run(
                [args.memplan, "generate", "--shape", "aligned", "--buffers", str(n),
                 "--seed", str(seed), "--out", path],
                check=True,
            )
            jobs.append(("generated", seed, path))
        rows = []
        for name, seed, path in jobs:
            buffers = read_instance(path)
            status, best, bound, elapsed = optimum(buffers, args.time_limit, args.workers)
            print(f"{name} seed={seed} n={len(buffers)}: {status} {best} (bound {bound}) {elapsed:.2f} s",
                  file=sys.stderr)
            rows.append([name, len(buffers), "" if seed is None else seed, status, best, bound,
                         f"{elapsed:.2f}"])
    with open(args.out, "w", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(["instance", "buffers", "seed", "status", "makespan", "bound", "seconds"])
        writer.writerows(rows)


if __name__ == "__main__":
    main()
