"""Large inputs straight from NumPy: 10^5 buffers in, a validated plan out as a NumPy array."""

from __future__ import annotations

import numpy as np

import memplan
from conftest import checked

N = 100_000


def random_trace(n: int, seed: int):
    """A seeded trace shaped like a compiler's: short lifetimes along a long schedule."""
    rng = np.random.default_rng(seed)
    starts = rng.integers(0, n, size=n, dtype=np.int64)
    ends = starts + rng.integers(1, 64, size=n, dtype=np.int64)
    sizes = rng.integers(1, 1 << 16, size=n, dtype=np.int64) * 64
    return starts, ends, sizes


def test_a_hundred_thousand_buffers_from_numpy():
    starts, ends, sizes = random_trace(N, 1)
    problem = memplan.Problem.from_arrays(starts, ends, sizes, alignment=64)
    assert len(problem) == N
    assert np.array_equal(problem.sizes, sizes.astype(np.uint64))
    result = memplan.solve(problem, effort="low", seed=1)
    checked(problem, result)
    assert result.makespan >= problem.max_load
    # The plan indexes like the input: buffer i's memory is [offsets[i], offsets[i] + sizes[i]).
    assert result.offsets.shape == (N,)
    assert (result.offsets % 64 == 0).all()


def test_numpy_and_lists_build_the_same_problem():
    starts, ends, sizes = random_trace(2_000, 2)
    from_numpy = memplan.Problem.from_arrays(starts, ends, sizes)
    from_lists = memplan.Problem.from_arrays(starts.tolist(), ends.tolist(), sizes.tolist())
    assert from_numpy.max_load == from_lists.max_load
    one = memplan.solve(from_numpy, effort="low")
    two = memplan.solve(from_lists, effort="low")
    checked(from_numpy, one)
    assert np.array_equal(one.offsets, two.offsets)


def test_per_buffer_alignment_column():
    starts, ends, sizes = random_trace(300, 3)
    alignment = np.where(np.arange(300) % 2 == 0, 256, 16)
    problem = memplan.Problem.from_arrays(starts, ends, sizes, alignment=alignment)
    result = checked(problem, memplan.solve(problem))
    assert (result.offsets[::2] % 256 == 0).all()
