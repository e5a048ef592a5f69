"""The Python package and the CLI are two faces of one core: on the same file with the same seed
they give the same plan."""

from __future__ import annotations

import csv
import json
import subprocess

import numpy as np
import pytest

import memplan
from conftest import CHALLENGING, EXAMPLES, checked

CASES = [
    (EXAMPLES / "handmade" / "small.csv", "auto", 0, None),
    (EXAMPLES / "minimalloc" / "examples" / "input.12.csv", "auto", 3, None),
    (CHALLENGING / "A.1048576.csv", "auto", 0, "1MiB"),
    (CHALLENGING / "E.1048576.csv", "telamalloc", 11, None),
    (CHALLENGING / "G.1048576.csv", "greedy-size-first", 2, None),
]


def cli_solve(cli, path, solver, seed, capacity, out):
    command = [str(cli), "solve", str(path), "--solver", solver, "--seed", str(seed), "--out", str(out)]
    if capacity:
        command += ["--capacity", capacity]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("path,solver,seed,capacity", CASES, ids=[f"{c[0].name}-{c[1]}" for c in CASES])
def test_same_file_same_seed_same_plan(cli, tmp_path, path, solver, seed, capacity):
    out = tmp_path / "plan.csv"
    line = cli_solve(cli, path, solver, seed, capacity, out)
    problem = memplan.Problem.from_csv(path)
    result = checked(problem, memplan.solve(problem, solver=solver, seed=seed, capacity=capacity))
    assert result.makespan == line["makespan"]
    assert result.lower_bound == line["lower_bound"]
    assert result.stopped.value == line["stopped"]
    assert result.winner == line["winner"]
    with open(out, newline="") as plan_file:
        rows = list(csv.DictReader(plan_file))
    assert [row["id"] for row in rows] == problem.ids
    cli_offsets = np.array([int(row["offset"]) for row in rows], dtype=np.uint64)
    assert np.array_equal(result.offsets, cli_offsets)
    # The CLI's plan file reads back as a plan the Python validator accepts.
    plan = memplan.Problem.from_csv(out)
    assert np.array_equal(plan.offsets, cli_offsets)
    assert memplan.validate(problem, plan.offsets).valid


def test_a_plan_written_by_python_passes_the_cli_check(cli, tmp_path):
    problem = memplan.Problem.from_csv(CHALLENGING / "B.1048576.csv")
    result = checked(problem, memplan.solve(problem, effort="low"))
    out = tmp_path / "plan.csv"
    out.write_text(problem.to_csv(result.offsets))
    done = subprocess.run([str(cli), "check", str(out)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["makespan"] == result.makespan
