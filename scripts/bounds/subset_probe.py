#!/usr/bin/env python3
"""Probes subset relaxations of one instance with memplan's exact decider: is there a
subset of the buffers that cannot be packed within a capacity? Run by hand, never in CI:

    cargo build --release
    python3 scripts/bounds/subset_probe.py public/examples/minimalloc/challenging/D.1048576.csv \
        --memplan target/release/memplan [--capacity BYTES] [--time-limit 10] \
        [--probe size:16 --probe long:190 ...] [--keep DIR]

Why a subset is a bound: any plan of the whole instance, kept to some of its buffers (with their
full lifetimes), is a plan of the subset no higher. So a subset that the decider refutes at a
capacity C proves that no plan of the whole fits C either. Sizes that share a unit (the greatest
common divisor of the sizes, 1 KiB on MiniMalloc's challenging instances) make every pushed-down
plan's makespan a multiple of it, so refuting C = k units proves k + 1 units.

A time window with full lifetimes has exactly the conflicts of the same window with cut lifetimes
(two intervals that meet each other and the window meet inside it), so the `window` family is the
instance of crate/src/solvers/minimalloc/windows.rs; here it is probed at the whole instance's
capacity rather than at its own max load. The families (`--probe FAMILY:K`, repeatable; without
one, the default list below):

  size:K       the buffers of at least K units
  long:K       the K longest-lived buffers
  area:K       the K buffers of the largest size x lifetime
  heavy:K      the buffers alive at the K most loaded sections (a union of cliques)
  peak-size:K  every buffer alive at a section loaded to the capacity, plus those of >= K units
  window:A-B   the buffers alive in sections A to B - 1 (numbered from 0 in time order): the
               window bound's instance, here probed at the whole instance's capacity

Each probe runs `memplan solve SUBSET --solver minimalloc --capacity C --time-limit T --threads 1`
and prints a row: the family, its buffers, its own max load (units), the capacity (units), why the
run stopped (`fits`/`lower_bound`: a plan, so no bound from it; `infeasible`: a refutation, a
bound; `time_limit`: unknown), the search nodes, and the CPU seconds of the child. `--keep DIR`
writes every subset's CSV there (with the capacity and the answer in its name), and beside it the
plan of every subset that fits (`*.plan.csv`, for `memplan check`), so that a refutation can be
re-run and kept as a fixture and a plan checked.
"""

import argparse
import csv
import json
import math
import os
import resource
import subprocess
import sys
import tempfile

DEFAULT_PROBES = [
    "size:8",
    "size:16",
    "long:180",
    "long:190",
    "area:170",
    "area:190",
    "heavy:10",
    "heavy:30",
    "peak-size:32",
    "peak-size:16",
]


def read_instance(path):
    """Rows (id, lower, upper, size) of a memplan CSV with `id,lower,upper,size` columns."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    missing = {"id", "lower", "upper", "size"} - set(rows[0] if rows else {})
    if missing:
        sys.exit(f"{path}: missing columns {sorted(missing)}")
    return [(r["id"], int(r["lower"]), int(r["upper"]), int(r["size"])) for r in rows]


def section_loads(buffers):
    """(start time, bytes alive) of every section between consecutive distinct times."""
    times = sorted({b[1] for b in buffers} | {b[2] for b in buffers})
    return [(t, sum(b[3] for b in buffers if b[1] <= t < b[2])) for t in times[:-1]]


def max_load(buffers):
    return max((load for _, load in section_loads(buffers)), default=0)


def alive_at(buffers, times):
    return [b for b in buffers if any(b[1] <= t < b[2] for t in times)]


def subset(buffers, family, k, unit, capacity):
    """The buffers of one family (see the module doc), in the instance's order."""
    if family == "size":
        return [b for b in buffers if b[3] >= k * unit]
    if family == "long":
        chosen = sorted(buffers, key=lambda b: -(b[2] - b[1]))[:k]
    elif family == "area":
        chosen = sorted(buffers, key=lambda b: -(b[2] - b[1]) * b[3])[:k]
    elif family == "heavy":
        heaviest = sorted(section_loads(buffers), key=lambda s: -s[1])[:k]
        chosen = alive_at(buffers, [t for t, _ in heaviest])
    elif family == "peak-size":
        full = [t for t, load in section_loads(buffers) if load >= capacity]
        peak = {b[0] for b in alive_at(buffers, full)}
        chosen = [b for b in buffers if b[0] in peak or b[3] >= k * unit]
    elif family == "window":
        starts = [t for t, _ in section_loads(buffers)] + [max(b[2] for b in buffers)]
        first, last = k
        if not 0 <= first < last < len(starts):
            sys.exit(f"window:{first}-{last}: sections are numbered 0 to {len(starts) - 2}")
        # Cut to the window: the same conflicts (see the module doc), and more buffers span it.
        chosen = [(b[0], max(b[1], starts[first]), min(b[2], starts[last]), b[3])
                  for b in buffers if b[1] < starts[last] and starts[first] < b[2]]
        return chosen
    else:
        sys.exit(f"unknown family {family!r} (size, long, area, heavy, peak-size, window)")
    ids = {b[0] for b in chosen}
    return [b for b in buffers if b[0] in ids]


def write_csv(buffers, path):
    with open(path, "w", newline="") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(["id", "lower", "upper", "size"])
        out.writerows(buffers)


def probe(memplan, path, capacity, time_limit, plan_path=None, no_stack=False):
    """One decider run: (stopped, nodes, buffers the solver stacked below its search, makespan of
    a plan within the capacity or None, CPU seconds of the child). With `plan_path`, memplan writes the plan it returns there."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    command = [memplan, "solve", path, "--solver", "minimalloc", "--capacity", str(capacity),
               "--time-limit", str(time_limit), "--threads", "1"]
    if plan_path:
        command += ["--out", plan_path]
    if no_stack:
        command += ["--param", "spanning=false"]
    run = subprocess.run(command, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    lines = [line for line in run.stdout.splitlines() if line.startswith("{")]
    if not lines:
        sys.exit(f"memplan failed on {path}: {run.stderr.strip()}")
    result = json.loads(lines[0])
    makespan = result.get("makespan") if result.get("feasible") else None
    return result["stopped"], result["stats"].get("nodes", 0), result["stats"].get("spanning_stacked", 0), makespan, cpu


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("instance")
    parser.add_argument("--memplan", default="target/release/memplan")
    parser.add_argument("--capacity", type=int, help="bytes (default: the instance's max load L)")
    parser.add_argument("--time-limit", type=float, default=10.0, help="seconds per probe")
    parser.add_argument("--probe", action="append", help="FAMILY:K (repeatable)")
    parser.add_argument("--keep", help="directory to write every subset's CSV to")
    parser.add_argument("--no-stack", action="store_true",
                        help="switch off the solver's stacking of the buffers that span the subset "
                             "(`--param spanning=false`)")
    args = parser.parse_args()

    buffers = read_instance(args.instance)
    unit = math.gcd(*(b[3] for b in buffers))
    capacity = args.capacity if args.capacity is not None else max_load(buffers)
    name = os.path.splitext(os.path.basename(args.instance))[0]
    print(f"{name}: {len(buffers)} buffers, L {max_load(buffers) // unit} units of {unit} bytes, "
          f"capacity {capacity} bytes ({capacity / unit:g} units), {args.time_limit:g} s per probe")
    print("| probe | buffers | spanning (stacked) | own L | capacity | answer | nodes | CPU s |")
    print("|---|---:|---:|---:|---:|---|---:|---:|")
    workdir = args.keep or tempfile.mkdtemp(prefix="subset-probe-")
    os.makedirs(workdir, exist_ok=True)
    for spec in args.probe or DEFAULT_PROBES:
        family, _, k = spec.partition(":")
        k = tuple(int(n) for n in k.split("-")) if family == "window" else int(k)
        chosen = subset(buffers, family, k, unit, capacity)
        k = spec.partition(":")[2]
        path = os.path.join(workdir, f"{name}.{family}-{k}.csv")
        write_csv(chosen, path)
        plan_path = path[:-len(".csv")] + ".plan.csv" if args.keep else None
        stopped, nodes, stacked, makespan, cpu = probe(args.memplan, path, capacity, args.time_limit, plan_path,
                                                       args.no_stack)
        spanning = str(stacked)
        answer = stopped if makespan is None else f"{stopped} (plan {makespan // unit})"
        if args.keep:
            kept = os.path.join(workdir, f"{name}.{family}-{k}.cap{capacity}.{stopped}")
            os.replace(path, kept + ".csv")
            if makespan is not None:  # a plan within the capacity, checked by `memplan check`
                os.replace(plan_path, kept + ".plan.csv")
            elif os.path.exists(plan_path):  # the fallback start plan: it does not fit
                os.remove(plan_path)
        print(f"| {spec} | {len(chosen)} | {spanning} | {max_load(chosen) // unit} | {capacity // unit} "
              f"| {answer} | {nodes} | {cpu:.1f} |", flush=True)


if __name__ == "__main__":
    main()
