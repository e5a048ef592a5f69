"""Shared fixtures: the repository's example instances and model fixtures, the CLI to compare
with, and `checked`, which puts every plan through memplan's validator and a plain Python
overlap check of its own."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

import memplan

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "public" / "examples"
CHALLENGING = EXAMPLES / "minimalloc" / "challenging"
FIXTURES = REPO / "crate" / "tests" / "fixtures"


def cli_path() -> Path:
    """The `memplan` binary the round trip compares with: $MEMPLAN_CLI, else the workspace's
    debug build (scripts/test-python.sh builds it)."""
    if "MEMPLAN_CLI" in os.environ:
        return Path(os.environ["MEMPLAN_CLI"])
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    return target / "debug" / "memplan"


@pytest.fixture(scope="session")
def cli() -> Path:
    path = cli_path()
    assert path.is_file(), f"{path}: build the CLI first (cargo build), or set MEMPLAN_CLI"
    return path


def overlaps(problem: memplan.Problem, offsets: np.ndarray) -> list:
    """Pairs of buffers alive together whose memory overlaps, by brute force (small instances):
    a check that does not share code with the core's validator."""
    starts, ends, sizes = problem.starts, problem.ends, problem.sizes
    lo = offsets.astype(object)
    hi = lo + sizes.astype(object)
    found = []
    for i in range(len(problem)):
        for j in range(i + 1, len(problem)):
            if starts[i] < ends[j] and starts[j] < ends[i] and lo[i] < hi[j] and lo[j] < hi[i]:
                found.append((i, j))
    return found


def checked(problem: memplan.Problem, result: memplan.SolveResult) -> memplan.SolveResult:
    """Asserts that the result is what it claims: valid, its plan accepted by `memplan.validate`
    (and, on small instances, by a brute-force overlap check), its makespan measured from the
    offsets, never below the lower bound."""
    assert result.valid, result.violations
    assert result.buffers == len(problem)
    if result.offsets is None:
        assert result.makespan is None
        return result
    offsets = result.offsets
    assert offsets.dtype == np.uint64 and offsets.shape == (len(problem),)
    again = memplan.validate(problem, offsets)
    assert again.valid, again.violations
    tops = offsets.astype(object) + problem.sizes.astype(object)
    assert result.makespan == (max(tops) if len(problem) else 0)
    assert result.lower_bound <= result.makespan
    assert all(int(o) % int(a) == 0 for o, a in zip(offsets, problem.alignments))
    if len(problem) <= 400:
        assert overlaps(problem, offsets) == []
    if result.capacity is not None and result.feasible:
        assert result.makespan <= result.capacity
    return result
