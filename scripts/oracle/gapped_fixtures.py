#!/usr/bin/env python3
"""Generates the gapped oracle fixtures (crate/tests/fixtures/oracle/) and records their optima
with OR-Tools CP-SAT, a solver independent of memplan, for crate/tests/oracle.rs.

Run by hand, never in CI (OR-Tools is not a dependency of the project):

    python3 -m venv /tmp/ortvenv && /tmp/ortvenv/bin/pip install ortools
    /tmp/ortvenv/bin/python scripts/oracle/gapped_fixtures.py [--seed 34] [--count 160]

The instances are small (8 to 20 buffers) and use every input feature memplan reads: plain gaps
(`s-e`: not alive in [s, e)), windowed gaps (`s-e@lo:hi`: only bytes [offset+lo, offset+hi)
alive then), buffers never alive (gaps over their whole lifetime), alignment, zero sizes, and
pinned offsets taken from a random valid plan placed piece by piece, so that pinned buffers often
overlap as hulls while their live pieces do not. Each instance is one CSV in memplan's format
(`id,lower,upper,size,alignment,offset,gaps`, lifetimes half-open).

The model: per buffer an offset o = alignment * k (or its pin), o + size <= M for every buffer
(never-alive and zero-size ones included, as memplan's makespan counts them), and per live piece a
rectangle [piece start, piece end) x [o + lo, o + hi) (lo, hi = 0, size outside gaps, the window
inside a windowed gap, nothing inside a plain gap); all rectangles in one 2-D no-overlap. CP-SAT
minimises M; an instance is kept only when CP-SAT proves the optimum within --time-limit seconds,
and a second model (M <= optimum - 1, no objective) records whether it proves that capacity
infeasible too.

It writes g000.csv ... and optima.csv (instance, buffers, optimum, below: `infeasible` when CP-SAT
proved optimum - 1 infeasible, else `unknown`; and the seconds the two solves took) and prints
the OR-Tools version, which the fixtures' README records with the seed.
"""

import argparse
import csv
import os
import random
import sys
import time

import ortools
from ortools.sat.python import cp_model

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FIXTURES = os.path.join(ROOT, "crate", "tests", "fixtures", "oracle")


class Buffer:
    def __init__(self, name, lower, upper, size, alignment, gaps):
        self.name = name
        self.lower = lower
        self.upper = upper
        self.size = size
        self.alignment = alignment
        # (start, end, window) with window None or (lo, hi), sorted and disjoint.
        self.gaps = gaps
        self.pinned = None

    def pieces(self):
        """The live pieces (start, end, lo, hi): what the buffer holds, relative to its offset."""
        out = []
        time = self.lower
        for start, end, window in self.gaps:
            if time < start and self.size > 0:
                out.append((time, start, 0, self.size))
            if window is not None:
                out.append((start, end, window[0], window[1]))
            time = end
        if time < self.upper and self.size > 0:
            out.append((time, self.upper, 0, self.size))
        return out

    def gaps_text(self):
        items = []
        for start, end, window in self.gaps:
            items.append(f"{start}-{end}" if window is None else f"{start}-{end}@{window[0]}:{window[1]}")
        return " ".join(items)


def meets(a, a_offset, b, b_offset):
    for (s1, e1, lo1, hi1) in a.pieces():
        for (s2, e2, lo2, hi2) in b.pieces():
            if s1 < e2 and s2 < e1 and a_offset + lo1 < b_offset + hi2 and b_offset + lo2 < a_offset + hi1:
                return True
    return False


def random_gaps(rng, lower, upper, size, windowed):
    """One or two gaps between random cut points of [lower, upper]."""
    cuts = sorted(set(rng.randint(lower, upper) for _ in range(rng.choice([2, 2, 3, 4]))))
    gaps = []
    for start, end in zip(cuts[0::2], cuts[1::2]):
        window = None
        if windowed and size > 0:
            lo = rng.randrange(size)
            window = (lo, rng.randint(lo + 1, size))
        gaps.append((start, end, window))
    return gaps


def instance(rng, n):
    horizon = rng.randint(6, 20)
    big = rng.choice([8, 16, 32, 64])
    buffers = []
    for i in range(n):
        lower = rng.randrange(horizon)
        upper = min(horizon, lower + rng.randint(1, max(1, horizon // 2))) if rng.random() < 0.8 else horizon
        upper = max(upper, lower + 1)
        size = 0 if rng.random() < 0.06 else rng.randint(1, big)
        alignment = rng.choice([1, 1, 1, 1, 2, 4, 8, 16])
        roll = rng.random()
        if roll < 0.30:
            gaps = random_gaps(rng, lower, upper, size, windowed=False)
        elif roll < 0.50:
            gaps = random_gaps(rng, lower, upper, size, windowed=True)
        elif roll < 0.60:
            # Never alive: plain gaps over the whole lifetime, split at an inner point sometimes.
            inner = rng.randint(lower, upper)
            gaps = [(lower, inner, None), (inner, upper, None)] if lower < inner < upper else [(lower, upper, None)]
        else:
            gaps = []
        buffers.append(Buffer(f"b{i}", lower, upper, size, alignment, gaps))
    # A valid plan, piece by piece, in a random order: each buffer at the lowest aligned offset
    # from a random start (mostly 0) where it meets nothing placed, so that buffers fill each
    # other's gaps and windows. Some buffers keep their offset as a pin, gapped ones more often.
    order = list(range(n))
    rng.shuffle(order)
    offsets = {}
    for i in order:
        b = buffers[i]
        offset = 0 if rng.random() < 0.7 else rng.randrange(2 * big)
        offset = -(-offset // b.alignment) * b.alignment
        while any(meets(buffers[j], offsets[j], b, offset) for j in offsets):
            offset += b.alignment
        offsets[i] = offset
    pin_share = rng.choice([0.0, 0.1, 0.25])
    for i, b in enumerate(buffers):
        if rng.random() < (2 * pin_share if b.gaps else pin_share):
            b.pinned = offsets[i]
    return buffers


def model_for(buffers, capacity=None):
    model = cp_model.CpModel()
    pinned_top = max([b.pinned + b.size for b in buffers if b.pinned is not None], default=0)
    horizon = pinned_top + sum(b.size + b.alignment - 1 for b in buffers if b.pinned is None)
    if capacity is not None:
        horizon = min(horizon, capacity)
    makespan = model.NewIntVar(0, horizon, "M")
    times, addresses = [], []
    for i, b in enumerate(buffers):
        if b.pinned is not None:
            offset = model.NewConstant(b.pinned)
        else:
            slot = model.NewIntVar(0, horizon // b.alignment, f"k{i}")
            offset = model.NewIntVar(0, horizon, f"o{i}")
            model.Add(offset == b.alignment * slot)
        model.Add(offset + b.size <= makespan)
        for p, (start, end, lo, hi) in enumerate(b.pieces()):
            times.append(model.NewFixedSizeIntervalVar(start, end - start, f"x{i}_{p}"))
            addresses.append(model.NewIntervalVar(offset + lo, hi - lo, offset + hi, f"y{i}_{p}"))
    model.AddNoOverlap2D(times, addresses)
    if capacity is None:
        model.Minimize(makespan)
    return model, makespan


def solve(model, time_limit, workers, seed):
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = time_limit
    solver.parameters.num_workers = workers
    solver.parameters.random_seed = seed
    started = time.time()
    status = solver.Solve(model)
    return solver, status, time.time() - started


def write_instance(path, buffers):
    with open(path, "w", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(["id", "lower", "upper", "size", "alignment", "offset", "gaps"])
        for b in buffers:
            writer.writerow([b.name, b.lower, b.upper, b.size, b.alignment,
                             "" if b.pinned is None else b.pinned, b.gaps_text()])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=34)
    parser.add_argument("--count", type=int, default=160, help="instances to keep")
    parser.add_argument("--min-buffers", type=int, default=8)
    parser.add_argument("--max-buffers", type=int, default=20)
    parser.add_argument("--time-limit", type=float, default=5.0, help="seconds per CP-SAT solve")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", default=FIXTURES)
    args = parser.parse_args()

    os.makedirs(args.out, exist_ok=True)
    rng = random.Random(args.seed)
    rows, tried, dropped = [], 0, 0
    while len(rows) < args.count:
        tried += 1
        n = rng.randint(args.min_buffers, args.max_buffers)
        buffers = instance(rng, n)
        model, makespan = model_for(buffers)
        solver, status, seconds = solve(model, args.time_limit, args.workers, args.seed)
        if status != cp_model.OPTIMAL:
            # The random plan is valid, so a plan exists: anything else is CP-SAT out of time.
            dropped += 1
            print(f"instance {tried}: {solver.StatusName(status)} after {seconds:.1f} s, dropped", file=sys.stderr)
            continue
        optimum = int(solver.Value(makespan))
        below, below_seconds = "unknown", 0.0
        if optimum > 0:
            check, _ = model_for(buffers, capacity=optimum - 1)
            _, below_status, below_seconds = solve(check, args.time_limit, args.workers, args.seed)
            if below_status == cp_model.INFEASIBLE:
                below = "infeasible"
            elif below_status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
                raise SystemExit(f"instance {tried}: a plan within {optimum - 1} after an optimum of {optimum}")
        else:
            below = "infeasible"  # no capacity below 0
        name = f"g{len(rows):03}.csv"
        write_instance(os.path.join(args.out, name), buffers)
        rows.append([name, n, optimum, below, f"{seconds + below_seconds:.2f}"])
        print(f"{name}: {n} buffers, optimum {optimum}, below {below}, {seconds:.2f} + {below_seconds:.2f} s",
              file=sys.stderr)
    with open(os.path.join(args.out, "optima.csv"), "w", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(["instance", "buffers", "optimum", "below", "seconds"])
        writer.writerows(rows)
    print(f"kept {len(rows)} of {tried} instances ({dropped} not proven within {args.time_limit} s); "
          f"seed {args.seed}, OR-Tools {ortools.__version__}")


if __name__ == "__main__":
    main()
