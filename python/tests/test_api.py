"""The API as a Python user meets it: reading, building, solving, checking, listing."""

from __future__ import annotations

import inspect
import pickle
import pydoc

import numpy as np
import pytest

import memplan
from conftest import CHALLENGING, EXAMPLES, checked

SMALL = EXAMPLES / "handmade" / "small.csv"


def test_reads_csv_and_solves_it_optimally():
    problem = memplan.Problem.from_csv(SMALL)
    assert len(problem) > 0
    assert problem.ids[0] == "input"
    result = checked(problem, memplan.solve(problem))
    assert isinstance(result.stopped, memplan.Stopped)
    assert result.stopped in (memplan.Stopped.LOWER_BOUND, memplan.Stopped.OPTIMAL)
    assert result.optimal and result.feasible
    assert result.max_load == problem.max_load
    assert isinstance(result.stats, dict)
    assert result.solver == "auto" and result.winner
    summary = result.to_dict()
    assert summary["stopped"] == result.stopped.value and summary["makespan"] == result.makespan


def test_json_and_text_read_the_same_instance_as_csv():
    csv = memplan.Problem.from_csv(SMALL)
    json_text = csv.to_json()
    from_text = memplan.Problem.from_text(json_text)
    assert from_text.ids == csv.ids
    assert np.array_equal(from_text.sizes, csv.sizes) and np.array_equal(from_text.starts, csv.starts)
    assert memplan.Problem.from_text(csv.to_csv(), format="csv").max_load == csv.max_load


def test_from_json_reads_a_file(tmp_path):
    csv = memplan.Problem.from_csv(SMALL)
    path = tmp_path / "small.json"
    path.write_text(csv.to_json())
    problem = memplan.Problem.from_json(str(path))
    assert problem.ids == csv.ids and problem.max_load == csv.max_load


def test_from_arrays_takes_lists_and_numpy_of_any_integer_dtype():
    starts, ends, sizes = [0, 1, 2], [2, 3, 4], [10, 20, 30]
    problem = memplan.Problem.from_arrays(starts, ends, sizes, alignment=8)
    assert problem.max_load == 50 and problem.ids == ["0", "1", "2"]
    assert list(problem.alignments) == [8, 8, 8]
    for dtype in (np.int32, np.int64, np.uint32, np.uint64, np.uint16):
        same = memplan.Problem.from_arrays(
            np.array(starts, dtype=dtype), np.array(ends, dtype=dtype), np.array(sizes, dtype=dtype)
        )
        assert same.max_load == 50, dtype
    # Non-contiguous views read right too.
    wide = np.array([[0, 9], [1, 9], [2, 9]], dtype=np.int64)
    assert memplan.Problem.from_arrays(wide[:, 0], ends, sizes).max_load == 50
    result = checked(problem, memplan.solve(problem))
    assert result.makespan >= problem.lower_bound


def test_sizes_beyond_int64_are_exact():
    huge = 2**63 + 4096
    problem = memplan.Problem.from_arrays([0, 5], [1, 6], [huge, 8])
    result = checked(problem, memplan.solve(problem))
    assert result.makespan == huge and result.max_load == huge


def test_a_capacity_that_is_too_small_is_proven_infeasible_not_raised():
    problem = memplan.Problem.from_csv(SMALL)
    result = checked(problem, memplan.solve(problem, capacity=problem.max_load - 1))
    assert result.stopped is memplan.Stopped.INFEASIBLE
    assert not result.feasible and result.detail


def test_capacity_as_a_size_string_and_fits():
    problem = memplan.Problem.from_csv(CHALLENGING / "A.1048576.csv")
    result = checked(problem, memplan.solve(problem, capacity="1MiB", seed=1))
    assert result.capacity == 1 << 20
    assert result.feasible and result.makespan <= 1 << 20


def test_validate_finds_overlaps_and_accepts_a_solved_plan():
    problem = memplan.Problem.from_arrays([0, 0], [4, 4], [16, 16])
    bad = memplan.validate(problem, [0, 8])
    assert not bad.valid and bad.violations
    good = memplan.validate(problem, np.array([0, 16], dtype=np.uint64))
    assert good.valid and good.makespan == 32 and good.stopped in (memplan.Stopped.GIVEN, memplan.Stopped.LOWER_BOUND)
    over = memplan.validate(problem, [0, 16], capacity=31)
    assert not over.valid
    wrong_length = memplan.validate(problem, [0])
    assert not wrong_length.valid


def test_an_invalid_plan_proves_nothing():
    # b overlaps a at time 1: the plan's makespan 6 is below the max load 8, and it once read as
    # optimal at a bound of 6 (with a capacity of 3, as proven infeasible).
    problem = memplan.Problem.from_arrays([0, 1], [2, 3], [4, 4])
    for capacity in (None, 3, 100):
        bad = memplan.validate(problem, [0, 2], capacity=capacity)
        assert not bad.valid and bad.violations
        assert bad.stopped == memplan.Stopped.GIVEN
        assert not bad.optimal and not bad.feasible
        assert bad.lower_bound == bad.max_load == 8
        assert bad.makespan is None and bad.offsets is None
        assert "invalid" in bad.verdict and "invalid" in bad.detail
        assert not any("claims" in v for v in bad.violations)
    at_bound = memplan.validate(problem, [0, 4])
    assert at_bound.valid and at_bound.optimal and at_bound.stopped == memplan.Stopped.GIVEN
    above = memplan.validate(problem, [0, 5])
    assert above.valid and not above.optimal and above.makespan == 9 and above.lower_bound == 8


def test_pinned_offsets_are_kept_by_the_planner():
    problem = memplan.Problem.from_arrays([0, 0, 2], [4, 4, 6], [16, 16, 8], offsets=[32, 0, 16])
    assert list(problem.offsets) == [32, 0, 16]
    result = checked(problem, memplan.solve(problem))
    assert list(result.offsets) == [32, 0, 16]


def test_warm_start_is_never_beaten_by_a_worse_answer():
    problem = memplan.Problem.from_csv(CHALLENGING / "B.1048576.csv")
    # A plan that stacks every buffer: valid and poor.
    stacked = np.concatenate([[0], np.cumsum(problem.sizes)[:-1]]).astype(np.uint64)
    result = checked(problem, memplan.solve(problem, solver="greedy-size-first", warm=stacked))
    assert result.warm_start == int(stacked[-1] + problem.sizes[-1])
    assert result.makespan <= result.warm_start


def test_solve_many_matches_solve_one_by_one():
    problems = [memplan.Problem.from_csv(CHALLENGING / f"{name}.1048576.csv") for name in "ABC"]
    many = memplan.solve_many(problems, solver="auto", effort="low", seed=7)
    assert len(many) == 3
    for problem, result in zip(problems, many):
        checked(problem, result)
        one = memplan.solve(problem, solver="auto", effort="low", seed=7)
        assert one.makespan == result.makespan
        assert np.array_equal(one.offsets, result.offsets)


def test_solve_many_takes_a_warm_plan_per_problem():
    problems = [memplan.Problem.from_csv(CHALLENGING / f"{name}.1048576.csv") for name in "AB"]
    stacked = [np.concatenate([[0], np.cumsum(p.sizes)[:-1]]).astype(np.uint64) for p in problems]
    many = memplan.solve_many(problems, solver="greedy-size-first", warm=[stacked[0], None])
    checked(problems[0], many[0])
    checked(problems[1], many[1])
    assert many[0].warm_start == int(stacked[0][-1] + problems[0].sizes[-1])
    assert many[1].warm_start is None
    with pytest.raises(memplan.RequestError, match="warm has 1 entries for 2 problems"):
        memplan.solve_many(problems, warm=[None])
    with pytest.raises(memplan.InvalidWarmStartError):
        memplan.solve_many(problems, solver="greedy-size-first", warm=[None, np.zeros(len(problems[1]), np.uint64)])


def test_problems_and_results_pickle():
    # Pinned offsets, alignment, names, a capacity, inclusive semantics, sizes past 2^53.
    text = (
        '{"capacity": 18446744073709551615, "semantics": "inclusive", "buffers": ['
        '{"id": "x", "start": 0, "end": 3, "size": 9007199254740993, "name": "big", "alignment": 8},'
        '{"id": "y", "start": 2, "end": 5, "size": 24, "offset": 0},'
        '{"id": "z", "start": 4, "end": 6, "size": 7}]}'
    )
    problem = memplan.Problem.from_text(text, semantics="inclusive")
    back = pickle.loads(pickle.dumps(problem))
    assert back.to_json() == problem.to_json()
    assert back.ids == problem.ids and back.names == problem.names and back.capacity == problem.capacity
    for column in ("starts", "ends", "sizes", "alignments", "offsets"):
        assert np.array_equal(getattr(back, column), getattr(problem, column)), column
    for result in (memplan.solve(problem), memplan.solve(problem, capacity=24)):
        again = pickle.loads(pickle.dumps(result))
        assert again.to_dict() == result.to_dict() or _close(again.to_dict(), result.to_dict())
        assert again.stopped is result.stopped
        assert np.array_equal(again.offsets, result.offsets) if result.offsets is not None else again.offsets is None
        assert again.placement_order == result.placement_order
        checked(problem, again)


def _close(a, b):
    """Equal dicts but for floats, which a pickled result keeps to six significant digits."""
    assert a.keys() == b.keys()
    for key in a:
        if isinstance(a[key], float):
            assert a[key] == pytest.approx(b[key], rel=1e-5), key
        elif isinstance(a[key], dict):
            _close(a[key], b[key])
        else:
            assert a[key] == b[key], key
    return True


def test_solvers_lists_every_solver_and_each_solves():
    listed = memplan.solvers()
    names = [s["name"] for s in listed]
    assert names[0] == "auto" and "minimalloc" in names and len(set(names)) == len(names)
    assert all(s["description"] for s in listed)
    problem = memplan.Problem.from_csv(SMALL)  # aligned buffers
    for solver in listed:
        name = solver["name"]
        if not solver["capabilities"]["alignment"]:
            # `peak` declines aligned inputs, as its capabilities say.
            with pytest.raises(memplan.RequestError, match="alignment"):
                memplan.solve(problem, solver=name, time_limit=10)
            continue
        checked(problem, memplan.solve(problem, solver=name, time_limit=10))


def test_params_and_effort_reach_the_solver():
    problem = memplan.Problem.from_csv(CHALLENGING / "A.1048576.csv")
    for effort in ("low", "normal", "high"):
        checked(problem, memplan.solve(problem, solver="greedy-size-first", effort=effort))
    result = memplan.solve(problem, solver="idealloc", params={"iterations": 3})
    checked(problem, result)


def test_seeds_are_reproducible():
    problem = memplan.Problem.from_csv(CHALLENGING / "C.1048576.csv")
    one = memplan.solve(problem, solver="telamalloc", seed=5, time_limit=30)
    two = memplan.solve(problem, solver="telamalloc", seed=5, time_limit=30)
    checked(problem, one)
    assert np.array_equal(one.offsets, two.offsets)


def test_help_reads_well():
    doc = memplan.solve.__doc__
    assert "capacity" in doc and "Stopped.CANCELLED" in doc
    signature = inspect.signature(memplan.solve)
    assert list(signature.parameters)[:4] == ["problem", "solver", "capacity", "time_limit"]
    assert signature.parameters["solver"].default == "auto" and signature.parameters["seed"].default == 0
    text = pydoc.render_doc(memplan.solve, renderer=pydoc.plaintext)
    assert "solve(problem, solver=" in text and "GIL is released" in text
    assert "from_arrays" in memplan.Problem.__doc__
    assert memplan.Stopped.TIME_LIMIT.value == "time_limit"
    assert str(memplan.Stopped.FITS) == "fits"
    assert memplan.Stopped.OPTIMAL.optimal and memplan.Stopped.CANCELLED.interrupted


def test_stop_groups_are_the_cores():
    groups = {s.value: s.group for s in memplan.Stopped}
    assert groups["fits"] == "proven" and groups["given"] == "heuristic" and groups["infeasible"] == "infeasible"
    assert {s for s in memplan.Stopped if s.interrupted} == {
        memplan.Stopped.BUDGET,
        memplan.Stopped.TIME_LIMIT,
        memplan.Stopped.CANCELLED,
    }
    assert {s for s in memplan.Stopped if s.optimal} == {memplan.Stopped.LOWER_BOUND, memplan.Stopped.OPTIMAL}


def test_stopped_is_the_cores_enum_and_pickles():
    assert sorted(s.value for s in memplan.Stopped) == sorted(memplan._memplan.STOPPED_NAMES)
    assert pickle.loads(pickle.dumps(memplan.Stopped.FITS)) is memplan.Stopped.FITS


def test_an_empty_problem_has_an_empty_plan():
    problem = memplan.Problem.from_arrays([], [], [])
    result = checked(problem, memplan.solve(problem))
    assert result.makespan == 0 and len(result.offsets) == 0
