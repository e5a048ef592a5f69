#!/usr/bin/env python3
"""An LP relaxation of "does this instance pack within C units?". Run by hand, never
in CI (it needs `pip install --user highspy numpy`):

    python3 scripts/bounds/lp_bound.py INSTANCE.csv [--capacity UNITS] [--search] [--certify]
        [--chained] [--solver simplex|ipm] [--no-crossover] [--ipm-tolerance 1e-6]
        [--check-plan PLAN.csv] [--min-load UNITS] [--cutting]
    python3 scripts/bounds/lp_bound.py --random 200 --memplan target/release/memplan
    python3 scripts/bounds/lp_bound.py --self-test

On D and J (scripts/bounds/README.md) use `--chained --solver ipm --no-crossover`: HiGHS's dual
simplex does not finish on them.

What it proves. Units: u = the gcd of the sizes, w_i = size_i / u. A plan can be pushed down
(every buffer to the lowest offset its neighbours below allow) without raising its peak, and
then every offset is a sum of sizes, so a whole number of units: if any plan peaks at or under
C units, an integral one does. Each buffer i gets an offset distribution x[i,a] >= 0,
a = 0..C-w_i, summing to 1 (the same at every time it is alive), and for every maximal clique K
(the buffers alive in a section whose alive set no other section's contains; the other
sections' rows are implied) and every cell c < C: sum_{i in K} cover_i(c) <= 1, where
cover_i(c) = x[i,c-w_i+1] + ... + x[i,c] is the chance that i covers cell c. An integral plan
within C sets x[i, offset_i] = 1 and meets every row (no two buffers of a clique share a cell),
so an infeasible LP at C proves that no plan peaks at or under C units: the bound is C + 1.

The rows are written with cumulative variables y[i,a] = x[i,0] + ... + x[i,a] for
a = 0..C-w_i-1 (y[i,C-w_i] = 1 is a constant): cover_i(c) = y[i,c] - y[i,c-w_i] (y = 0 before
0, 1 from C-w_i on), two nonzeros per buffer a row, plus y[i,a] <= y[i,a+1] and 0 <= y <= 1.

Certificate (`--certify`). HiGHS's floating-point answer is not a proof. When it says
infeasible, its dual ray r is scaled to whole numbers, negative entries dropped (every row is
`<=`, so any r >= 0 is a valid combination), and checked in exact integer arithmetic: every
variable lies in [0, 1], so r^T A y >= sum_j min(0, (A^T r)_j) for every y in the box, and
r^T A y <= r^T b for every y meeting the rows; if the first exceeds the second, no y meets
both, whatever rounding the ray went through. Only a passed check is reported as a bound.

`--search` finds the smallest C from the max load L up at which the LP is feasible: the LP
bound (the instance needs at least that many units). `--check-plan PLAN.csv` (a plan with an
`offset` column) checks that the plan's own point meets every row at C (by default the plan's
peak): the construction's sanity check. `--min-load K` keeps only the cliques loaded to at least
K units (dropping rows keeps a relaxation, so an infeasible answer is still a proof).
`--random N` compares, on N small random instances in units, the max load L, the LP bound and
the optimum of memplan's exact MiniMalloc (`--memplan BINARY`), and counts the instances where
the optimum exceeds L and where the LP bound does. `--self-test` checks the rows against a naive
cell-by-cell oracle on random integral placements (valid plans meet every row, overlapping ones
break one), the chained form against the plain one, and the certificate check both ways.
`--cutting` adds the cliques' rows a few at a time, as the solver's point breaks them (an
infeasible subset is a proof too); on D its first round (the 5 cliques at L) broke all 86 others.

A feasible answer is checked here, not taken from HiGHS: every row and bound at the solver's
point, within `--tolerance` (1e-6). It says only that this relaxation cannot refute C.
"""

import argparse
import csv
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import time

import numpy as np

# The reader of the instances the subset probes read (the script beside this one).
from subset_probe import read_instance


def read_offsets(path):
    """id -> offset (bytes) of a plan CSV with an `offset` column."""
    with open(path, newline="") as f:
        return {r["id"]: int(r["offset"]) for r in csv.DictReader(f)}


def maximal_cliques(buffers):
    """The alive sets (lists of buffer indices) of the sections that no other section's alive set
    contains. Lifetimes are half-open [lower, upper). A section's set is contained in the next
    one's unless a buffer ends where it ends, and in the previous one's unless a buffer starts where
    it starts; if neither holds for its neighbours, no farther section holds all of it either (a
    buffer that ends at its end is alive in no later section, one that starts at its start in no
    earlier one)."""
    starts = {b[1] for b in buffers}
    ends = {b[2] for b in buffers}
    times = sorted(starts | ends)
    cliques = []
    for t0, t1 in zip(times, times[1:]):
        if t0 in starts and t1 in ends:
            alive = [i for i, b in enumerate(buffers) if b[1] <= t0 < b[2]]
            if alive:
                cliques.append(alive)
    return cliques


def max_load_units(widths, cliques):
    return max((sum(widths[i] for i in k) for k in cliques), default=0)


class Relaxation:
    """The rows lo <= A v <= hi of the relaxation at capacity C, every variable in [0, 1].

    Plain (`chained=False`): v = y, one row `sum_{i in K} cover_i(c) <= 1` per clique and cell,
    2|K| nonzeros each. Chained: consecutive maximal cliques share most of their buffers, so v
    also holds z[K,c] = sum_{i in K} cover_i(c) in [0, 1] (a cover is never negative, so the
    bounds hold at every point of the plain LP too) and each clique's row is written from the
    previous one's: z[K,c] - z[K',c] - (covers of the buffers K adds) + (covers of those it
    drops) = 0. The same LP, with about a tenth of the nonzeros on D (each buffer enters and
    leaves the chain once)."""

    def __init__(self, widths, cliques, capacity, all_columns=False, chained=False):
        self.widths = widths
        self.capacity = C = capacity
        self.chained = chained
        self.cliques = cliques
        self.trivially_infeasible = any(w > C for w in widths)
        # A buffer in no clique kept has no row but its own monotone ones: it gets no variables.
        used = set(range(len(widths))) if all_columns else {i for k in cliques for i in k}
        counts = [max(C - w, 0) if i in used else 0 for i, w in enumerate(widths)]
        self.base = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        self.ny = int(self.base[-1])
        self.ncols = self.ny + (len(cliques) * C if chained else 0)
        rows, cols, vals, his, los = [], [], [], [], []
        nrows = 0
        cells = np.arange(C, dtype=np.int64)

        def add_cover(i, sign, const):
            """sign * cover_i(c) on rows nrows + c; its constant part (y = 1 from C - w_i on)
            goes into const (as it stands on the left-hand side)."""
            w = widths[i]
            const[C - w :] += sign
            c_pos = cells[: C - w]
            rows.append(nrows + c_pos)
            cols.append(self.base[i] + c_pos)
            vals.append(np.full(len(c_pos), sign, dtype=np.int64))
            c_neg = cells[w:]
            rows.append(nrows + c_neg)
            cols.append(self.base[i] + c_neg - w)
            vals.append(np.full(len(c_neg), -sign, dtype=np.int64))

        previous = []
        for j, k in enumerate(cliques):
            const = np.zeros(C, dtype=np.int64)
            if not chained:
                for i in k:
                    if widths[i] <= C:
                        add_cover(i, 1, const)
                his.append(1 - const)
                los.append(None)
            else:
                kset, pset = set(k), set(previous)
                z = self.ny + j * C + cells
                rows.append(nrows + cells)
                cols.append(z)
                vals.append(np.ones(C, dtype=np.int64))
                if j > 0:
                    rows.append(nrows + cells)
                    cols.append(z - C)
                    vals.append(-np.ones(C, dtype=np.int64))
                for i in sorted(kset - pset):
                    if widths[i] <= C:
                        add_cover(i, -1, const)
                for i in sorted(pset - kset):
                    if widths[i] <= C:
                        add_cover(i, 1, const)
                his.append(-const)
                los.append(-const)
                previous = k
            nrows += C
        self.clique_rows = nrows
        # Monotone: y[i,a] - y[i,a+1] <= 0.
        for i, n in enumerate(counts):
            if n >= 2:
                a = np.arange(n - 1, dtype=np.int64)
                r = nrows + a
                rows += [r, r]
                cols += [self.base[i] + a, self.base[i] + a + 1]
                vals += [np.ones(n - 1, dtype=np.int64), -np.ones(n - 1, dtype=np.int64)]
                his.append(np.zeros(n - 1, dtype=np.int64))
                los.append(None)
                nrows += n - 1
        self.nrows = nrows
        row = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
        col = np.concatenate(cols) if cols else np.zeros(0, dtype=np.int64)
        val = np.concatenate(vals) if vals else np.zeros(0, dtype=np.int64)
        self.b = np.concatenate(his) if his else np.zeros(0, dtype=np.int64)
        # Lower bounds: equal to hi on the chained rows, none (-inf) elsewhere.
        self.has_lo = np.concatenate(
            [np.full(len(h), lo is not None) for h, lo in zip(his, los)]
        ) if his else np.zeros(0, bool)
        self.lo = np.concatenate(
            [h if lo is None else lo for h, lo in zip(his, los)]) if his else np.zeros(0, np.int64)
        order = np.argsort(row, kind="stable")
        self.row, self.col, self.val = row[order], col[order], val[order]
        self.start = np.concatenate([[0], np.cumsum(np.bincount(self.row, minlength=nrows))])
        # A row with no variable and a negative rhs (more than one buffer at a cell whatever the
        # offsets) is infeasible by itself.
        empty = np.diff(self.start) == 0
        if np.any(empty & ((self.b < 0) | (self.has_lo & (self.lo > 0)))):
            self.trivially_infeasible = True

    @property
    def nnz(self):
        return len(self.val)

    def lhs(self, y):
        """A y, exactly for integer y."""
        out = np.zeros(self.nrows, dtype=np.int64)
        np.add.at(out, self.row, self.val * y[self.col])
        return out

    def excess(self, v):
        """How far a real point (a solver's) breaks each row, on either side (<= 0: met)."""
        lhs = np.bincount(self.row, weights=self.val * v[self.col], minlength=self.nrows)
        below = np.where(self.has_lo, self.lo - lhs, -np.inf)
        return np.maximum(lhs - self.b, below)

    def meets(self, v):
        """An integral point meets every row and every bound [0, 1]."""
        lhs = self.lhs(v)
        rows_ok = np.all(lhs <= self.b) and np.all(~self.has_lo | (lhs >= self.lo))
        return bool(rows_ok and np.all((v >= 0) & (v <= 1)))

    def point_of_offsets(self, offsets_units):
        """The integral y of a placement: y[i,a] = 1 from a = offset_i on."""
        y = np.zeros(self.ncols, dtype=np.int64)
        for i, off in enumerate(offsets_units):
            n = int(self.base[i + 1] - self.base[i])
            y[self.base[i] + min(off, n) : self.base[i + 1]] = 1
        if self.chained:
            # z[K,c]: how many buffers of K cover cell c (more than 1 breaks z's bound).
            C = self.capacity
            for j, k in enumerate(self.cliques):
                z = np.zeros(C, dtype=np.int64)
                for i in k:
                    lo, hi = offsets_units[i], offsets_units[i] + self.widths[i]
                    z[max(lo, 0) : min(hi, C)] += 1
                y[self.ny + j * C : self.ny + (j + 1) * C] = z
        return y

    def solve(self, solver="simplex", threads=1, time_limit=None, verbose=False, crossover=True,
              ipm_tolerance=None):
        """(status string, highs) of the feasibility LP (zero objective)."""
        import highspy

        h = highspy.Highs()
        h.setOptionValue("output_flag", verbose)
        if not crossover:
            h.setOptionValue("run_crossover", "off")
        if ipm_tolerance:
            h.setOptionValue("ipm_optimality_tolerance", ipm_tolerance)
        h.setOptionValue("solver", solver)
        h.setOptionValue("threads", threads)
        if time_limit:
            h.setOptionValue("time_limit", float(time_limit))
        if self.trivially_infeasible:
            return "infeasible (trivially)", None
        if self.ncols:
            h.addVars(self.ncols, np.zeros(self.ncols), np.ones(self.ncols))
        if self.nrows:
            h.addRows(
                self.nrows,
                np.where(self.has_lo, self.lo.astype(np.float64), -highspy.kHighsInf),
                self.b.astype(np.float64),
                self.nnz,
                self.start[:-1].astype(np.int32),
                self.col.astype(np.int32),
                self.val.astype(np.float64),
            )
        h.run()
        status = h.modelStatusToString(h.getModelStatus())
        return status, h

    def certify(self, ray, scale_bits=30):
        """Exact check that the ray r (rounded to integers; entries of the wrong sign on the `<=`
        rows dropped, which keeps it a valid combination) proves the rows infeasible in the box
        [0,1]^n: every point meeting the rows has r^T A v <= sum_k (r_k > 0 ? r_k hi_k : r_k lo_k),
        and every point of the box has r^T A v >= sum_j min(0, (A^T r)_j); if the second bound
        exceeds the first, no point does both. Returns (passed, margin / scale)."""
        best = (False, None)
        for sign in (1.0, -1.0):
            r = sign * np.asarray(ray, dtype=np.float64)
            r = np.where(self.has_lo, r, np.maximum(r, 0.0))
            top = np.abs(r).max() if len(r) else 0.0
            if top <= 0:
                continue
            r_int = np.rint(r / top * (1 << scale_bits)).astype(np.int64)
            d = np.zeros(self.ncols, dtype=np.int64)
            np.add.at(d, self.col, self.val * r_int[self.row])
            box_min = sum(int(v) for v in d[d < 0])
            nz = np.nonzero(r_int)[0]
            bound = sum(
                int(r_int[k]) * int(self.b[k] if r_int[k] > 0 else self.lo[k]) for k in nz
            )
            if box_min > bound:
                return True, (box_min - bound) / (1 << scale_bits)
            best = (False, (box_min - bound) / (1 << scale_bits))
        return best


def cutting(widths, cliques, capacity, args):
    """Row generation: solve with the most loaded cliques' rows only, then add the cliques whose
    rows the point breaks, until the point meets every row (the LP is feasible) or a subset is
    infeasible (a subset of the rows is a relaxation too, so its certificate is a proof)."""
    full = Relaxation(widths, cliques, capacity, all_columns=True)
    loads = [sum(widths[i] for i in k) for k in cliques]
    order = sorted(range(len(cliques)), key=lambda j: -loads[j])
    active = set(order[: args.start_cliques])
    for rnd in range(1000):
        t0 = time.time()
        sub = Relaxation(widths, [cliques[j] for j in sorted(active)], capacity, all_columns=True)
        status, h = sub.solve(args.solver, args.threads, args.lp_time_limit, args.verbose,
                              crossover=args.solver != "ipm")
        info = {"round": rnd, "cliques": len(active), "rows": sub.nrows, "nnz": sub.nnz,
                "status": status, "solve_s": round(time.time() - t0, 1)}
        if status != "Optimal":
            if status == "Infeasible" and args.certify:
                st, has_ray, ray = h.getDualRay()
                if not has_ray:
                    h.setOptionValue("presolve", "off")
                    h.setOptionValue("solver", "simplex")
                    h.clearSolver()
                    h.run()
                    st, has_ray, ray = h.getDualRay()
                info["certified"], info["certificate_margin"] = (
                    sub.certify(ray) if has_ray else (False, "no ray"))
            print(json.dumps(info), flush=True)
            return status
        y = np.asarray(h.getSolution().col_value)
        ex = full.excess(y)
        per_clique = ex[: full.clique_rows].reshape(len(cliques), capacity).max(axis=1)
        info["max_excess_all_rows"] = float(ex.max())
        monotone = ex[full.clique_rows:]
        info["max_excess_monotone"] = float(monotone.max()) if len(monotone) else 0.0
        broken = [j for j in np.argsort(-per_clique)
                  if per_clique[j] > args.tolerance and j not in active]
        info["cliques_broken"] = len(broken)
        print(json.dumps(info), flush=True)
        if not broken:
            return "Feasible (every row met within the tolerance)"
        active |= set(int(j) for j in broken[: args.add_cliques])


def units_of(buffers):
    u = 0
    for b in buffers:
        u = math.gcd(u, b[3])
    return max(u, 1)


def lp_feasible(widths, cliques, capacity, args, certify=False):
    """(feasible?, info dict) at `capacity` units."""
    t0 = time.time()
    rel = Relaxation(widths, cliques, capacity, chained=getattr(args, "chained", False))
    t_build = time.time() - t0
    status, h = rel.solve(args.solver, args.threads, args.lp_time_limit, args.verbose,
                          crossover=not getattr(args, "no_crossover", False),
                          ipm_tolerance=getattr(args, "ipm_tolerance", None))
    info = {
        "capacity": capacity,
        "rows": rel.nrows,
        "clique_rows": rel.clique_rows,
        "cols": rel.ncols,
        "nnz": rel.nnz,
        "status": status,
        "build_s": round(t_build, 2),
        "solve_s": round(time.time() - t0 - t_build, 2),
    }
    # "Empty": no variables, and no empty row had a negative rhs (checked when building).
    feasible = status in ("Optimal", "Empty")
    if h is not None and status not in ("Infeasible", "Empty") and h.getSolution().value_valid:
        # Checked here rather than taken from the solver's status: an interior point that HiGHS
        # calls imprecise ("Unknown") is still a feasible point if it meets every row and bound.
        v = np.asarray(h.getSolution().col_value)
        ex = rel.excess(v)
        info["max_row_excess"] = float(ex.max()) if len(ex) else 0.0
        info["max_bound_excess"] = float(max((-v).max(), (v - 1).max())) if len(v) else 0.0
        met = max(info["max_row_excess"], info["max_bound_excess"]) <= args.tolerance
        if status != "Optimal" and met:
            info["status"] = f"{status}; point meets every row within {args.tolerance:g}"
        feasible = met
    if status.startswith("infeasible (trivially)"):
        info["certified"] = True
        return False, info
    if not feasible and status != "Infeasible":
        info["undecided"] = True
    if certify and status == "Infeasible" and h is not None:
        st, has_ray, ray = h.getDualRay()
        if not has_ray:
            # Presolve may have found it without a ray: solve again without presolve.
            h.setOptionValue("presolve", "off")
            h.clearSolver()
            h.run()
            st, has_ray, ray = h.getDualRay()
        if has_ray:
            ok, margin = rel.certify(ray)
            info["certified"] = bool(ok)
            info["certificate_margin"] = margin
        else:
            info["certified"] = False
            info["certificate_margin"] = "no ray"
    return feasible, info


def search(widths, cliques, args, certify=False, hi=None):
    """The smallest C >= L at which the LP is feasible, and the infos of every probe."""
    c = max(max_load_units(widths, cliques), max(widths, default=0))
    infos = []
    while True:
        feasible, info = lp_feasible(widths, cliques, c, args, certify)
        infos.append(info)
        if args.verbose_search:
            print(json.dumps(info), flush=True)
        if feasible or info.get("undecided") or (hi is not None and c >= hi):
            return c, infos
        c += 1


def memplan_optimum(memplan, buffers, time_limit):
    """(makespan, proved optimal?) of memplan's MiniMalloc without capacity on the buffers."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "i.csv")
        with open(path, "w") as f:
            f.write("id,lower,upper,size\n")
            for b in buffers:
                f.write(f"{b[0]},{b[1]},{b[2]},{b[3]}\n")
        out = subprocess.run(
            [memplan, "solve", path, "--solver", "minimalloc", "--threads", "1",
             "--time-limit", str(time_limit)],
            capture_output=True, text=True, check=True,
        )
        res = json.loads(out.stdout.strip().splitlines()[-1])
        return int(res["makespan"]), bool(res["optimal"])


def random_instance(rng):
    """Small instance in units loaded to exactly C at every step: C in 6..16, 5 to 14 steps; at
    each step every alive buffer ends with chance 0.4 and new buffers of random sizes refill the
    freed units. Loose random instances (and memplan's `generate`) almost never need more than L
    (none in about 90,000 tried); these do about once in a hundred, which is the case the
    comparison is about."""
    cap = rng.randint(6, 16)
    steps = rng.randint(5, 14)
    alive, out, nid = [], [], 0
    for t in range(steps):
        kept = []
        for i, start, w in alive:
            if t > 0 and rng.random() < 0.4:
                out.append((str(i), start, t, w))
            else:
                kept.append((i, start, w))
        alive = kept
        free = cap - sum(w for _, _, w in alive)
        while free > 0:
            w = rng.randint(1, free)
            alive.append((nid, t, w))
            nid += 1
            free -= w
    out += [(str(i), start, steps, w) for i, start, w in alive]
    return out


def first_fit(buffers):
    """Offsets (units) of a valid plan: each buffer, in order of start, at the lowest offset free
    of the buffers it meets that are already placed."""
    offs = [None] * len(buffers)
    for i in sorted(range(len(buffers)), key=lambda i: buffers[i][1]):
        taken = sorted(
            (offs[j], offs[j] + buffers[j][3])
            for j in range(len(buffers))
            if offs[j] is not None
            and buffers[i][1] < buffers[j][2]
            and buffers[j][1] < buffers[i][2]
        )
        o = 0
        for lo, hi in taken:
            if o + buffers[i][3] <= lo:
                break
            o = max(o, hi)
        offs[i] = o
    return offs


def run_random(args):
    rng = random.Random(args.seed)
    total = gap = lp_above = lp_hits_opt = undecided = 0
    rows = []
    tried = 0
    while gap < args.random and tried < args.random * 1000:
        tried += 1
        buffers = random_instance(rng)
        widths = [b[3] for b in buffers]
        cliques = maximal_cliques(buffers)
        L = max_load_units(widths, cliques)
        opt, optimal = memplan_optimum(args.memplan, buffers, 10)
        total += 1
        if not optimal:
            undecided += 1
            continue
        if opt == L:
            continue
        gap += 1
        lp, infos = search(widths, cliques, args, hi=opt)
        if any(i.get("undecided") for i in infos):
            undecided += 1
        if lp > L:
            lp_above += 1
        if lp >= opt:
            lp_hits_opt += 1
        if lp > opt:
            sys.exit(f"LP bound {lp} above the optimum {opt}: the relaxation is wrong: {buffers}")
        rows.append((len(buffers), L, lp, opt))
        if args.verbose_search or lp > L:
            shown = buffers if lp > L else ""
            print(f"n={len(buffers)} L={L} LP={lp} OPT={opt} {shown}", flush=True)
    print(json.dumps({
        "instances_generated": total,
        "opt_above_L": gap,
        "lp_above_L": lp_above,
        "lp_equals_opt": lp_hits_opt,
        "undecided": undecided,
        "seed": args.seed,
    }))


def self_test(args):
    """Rows against a naive oracle: a placement meets every row iff no two buffers of a clique
    share a cell (checked cell by cell)."""
    rng = random.Random(args.seed)
    clashes = 0
    for _ in range(300):
        buffers = random_instance(rng)
        widths = [b[3] for b in buffers]
        cliques = maximal_cliques(buffers)
        if rng.random() < 0.5:
            offs = first_fit(buffers)
            C = max(o + w for o, w in zip(offs, widths)) + rng.randint(0, 2)
        else:
            C = max_load_units(widths, cliques) + rng.randint(0, 4)
            offs = [rng.randint(0, C - w) if w <= C else 0 for w in widths]
        clash = False
        for i in range(len(buffers)):
            for j in range(i):
                bi, bj = buffers[i], buffers[j]
                if bi[1] < bj[2] and bj[1] < bi[2]:
                    if offs[i] < offs[j] + widths[j] and offs[j] < offs[i] + widths[i]:
                        clash = True
        clashes += clash
        for chained in (False, True):
            rel = Relaxation(widths, cliques, C, chained=chained)
            meets = rel.meets(rel.point_of_offsets(offs))
            if meets == clash:
                sys.exit(f"self-test failed: chained={chained} clash={clash} meets={meets} C={C} "
                         f"{buffers} {offs}")
        # The certificate check is sound: no ray proves a system that has a point infeasible.
        if meets:
            ray = np.array([rng.random() if rng.random() < 0.3 else 0.0 for _ in range(rel.nrows)])
            if rel.certify(ray)[0]:
                sys.exit(f"self-test failed: a ray 'certified' a feasible system: {buffers}")
    # The chained LP is the plain one written differently: same answer, at L - 1 (infeasible: the
    # peak's covers sum to L over L - 1 cells), L and L + 1.
    args.solver, args.threads, args.lp_time_limit, args.verbose = "simplex", 1, None, False
    infeasible_seen = 0
    for _ in range(60):
        buffers = random_instance(rng)
        widths = [b[3] for b in buffers]
        cliques = maximal_cliques(buffers)
        L = max_load_units(widths, cliques)
        for C in (L - 1, L, L + 1):
            answers = []
            for chained in (False, True):
                args.chained = chained
                answers.append(lp_feasible(widths, cliques, C, args, certify=True))
            if answers[0][0] != answers[1][0]:
                sys.exit(f"self-test failed: plain and chained LPs disagree at {C}: {buffers}")
            for feasible, info in answers:
                if not feasible and not info.get("certified"):
                    sys.exit(f"self-test failed: an infeasible LP without a checked certificate "
                             f"({info}): {buffers}")
            infeasible_seen += not answers[0][0]
    args.chained = False
    # A fixed instance from `--random` (L 8, optimum 9) whose LP is infeasible at 8 and feasible
    # at 9: the whole path (rows, HiGHS, ray, exact check) must say so.
    fixed = [(0, 2, 5), (2, 3, 4), (0, 4, 2), (0, 4, 1), (3, 4, 2), (2, 5, 1), (4, 5, 5), (5, 6, 3),
             (5, 7, 3), (3, 10, 1), (6, 10, 1), (3, 11, 1), (6, 11, 1), (6, 11, 1), (7, 11, 2),
             (7, 11, 1), (10, 11, 1), (10, 11, 1)]
    buffers = [(str(i), a, e, w) for i, (a, e, w) in enumerate(fixed)]
    widths = [b[3] for b in buffers]
    cliques = maximal_cliques(buffers)
    at8 = lp_feasible(widths, cliques, 8, args, certify=True)
    at9 = lp_feasible(widths, cliques, 9, args)
    if at8[0] or not at8[1].get("certified") or not at9[0]:
        sys.exit(f"self-test failed on the fixed instance: {at8} {at9}")
    print(f"self-test passed (300 placements, {clashes} of them overlapping; plain and chained "
          f"LPs agree on 180 (instance, C), {infeasible_seen} infeasible with checked "
          "certificates; fixed instance refuted at 8, feasible at 9)")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("instance", nargs="?")
    p.add_argument("--capacity", type=int, help="capacity in units (default: the max load L)")
    p.add_argument("--search", action="store_true")
    p.add_argument("--certify", action="store_true")
    p.add_argument("--check-plan")
    p.add_argument("--min-load", type=int, default=0)
    p.add_argument("--solver", default="simplex", choices=["simplex", "ipm", "pdlp", "choose"])
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--lp-time-limit", type=float)
    p.add_argument("--verbose", action="store_true", help="HiGHS's log")
    p.add_argument("--verbose-search", action="store_true")
    p.add_argument("--random", type=int)
    p.add_argument("--memplan", default="memplan")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--self-test", action="store_true")
    p.add_argument("--cutting", action="store_true",
                   help="row generation over the cliques (start with the most loaded)")
    p.add_argument("--start-cliques", type=int, default=5)
    p.add_argument("--add-cliques", type=int, default=8)
    p.add_argument("--tolerance", type=float, default=1e-6)
    p.add_argument("--chained", action="store_true",
                   help="each clique's rows from the previous clique's (same LP, fewer nonzeros)")
    p.add_argument("--ipm-tolerance", type=float,
                   help="IPM optimality tolerance (HiGHS's default 1e-8 can stall at the end on D)")
    p.add_argument("--no-crossover", action="store_true",
                   help="IPM: stop at the interior point (a feasible one is checked row by row)")
    args = p.parse_args()

    if args.self_test:
        return self_test(args)
    if args.random:
        return run_random(args)
    if not args.instance:
        p.error("an instance is needed")

    buffers = read_instance(args.instance)
    u = units_of(buffers)
    widths = [b[3] // u for b in buffers]
    cliques = maximal_cliques(buffers)
    L = max_load_units(widths, cliques)
    kept = [k for k in cliques if sum(widths[i] for i in k) >= args.min_load]
    print(json.dumps({"buffers": len(buffers), "unit": u, "max_load": L,
                      "maximal_cliques": len(cliques), "kept_cliques": len(kept)}))

    if args.check_plan:
        offsets = read_offsets(args.check_plan)
        offs = [offsets[b[0]] for b in buffers]
        if any(o % u for o in offs):
            sys.exit("plan offsets are not whole units: push it down first")
        offs = [o // u for o in offs]
        peak = max(o + w for o, w in zip(offs, widths))
        C = args.capacity or peak
        rel = Relaxation(widths, kept, C, chained=args.chained)
        v = rel.point_of_offsets(offs)
        excess = rel.excess(v.astype(np.float64))
        print(json.dumps({"plan_peak": peak, "capacity": C, "rows": rel.nrows,
                          "meets_rows_and_bounds": rel.meets(v),
                          "rows_violated": int(np.sum(excess > 0)),
                          "columns_out_of_bounds": int(np.sum((v < 0) | (v > 1)))}))
        return

    if args.cutting:
        print(json.dumps({"answer": cutting(widths, kept, args.capacity or L, args)}))
        return

    if args.search:
        c, infos = search(widths, kept, args, certify=args.certify)
        for info in infos:
            print(json.dumps(info))
        print(json.dumps({"lp_bound_units": c, "max_load": L,
                          "lp_bound_bytes": c * u}))
        return

    C = args.capacity or L
    feasible, info = lp_feasible(widths, kept, C, args, certify=args.certify)
    undecided = info.get("undecided")
    info["answer"] = "feasible" if feasible else ("unknown" if undecided else "infeasible")
    print(json.dumps(info))


if __name__ == "__main__":
    main()
