"""Bad input and bad requests: typed ValueError subclasses that say where (line and column),
never a crash, never a message to match."""

from __future__ import annotations

import numpy as np
import pytest

import memplan
from conftest import EXAMPLES, FIXTURES


def test_a_bad_csv_names_every_line_and_column(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("id,lower,upper,size\na,0,4,16\nb,0,x,16\nc,5,2,8\n")
    with pytest.raises(memplan.InputError) as caught:
        memplan.Problem.from_csv(path)
    error = caught.value
    assert isinstance(error, ValueError) and isinstance(error, memplan.MemplanError)
    assert error.file == str(path)
    assert error.line == 3 and error.column is not None
    lines = [located.line for located in error.errors]
    assert 3 in lines and 4 in lines
    assert all(isinstance(located, memplan.Located) for located in error.errors)
    assert str(path) in str(error)


def test_bad_json_says_line_and_column():
    text = '{\n  "buffers": [\n    {"id": "a", "start": 0, "end": 2, "size": -5}\n  ]\n}\n'
    with pytest.raises(memplan.InputError) as caught:
        memplan.Problem.from_text(text, format="json")
    assert caught.value.line == 3 and caught.value.column is not None
    assert caught.value.file is None


def test_malformed_json_is_an_input_error_with_a_place():
    with pytest.raises(memplan.InputError) as caught:
        memplan.Problem.from_text('{"buffers": [\n  {"id": "a",,}\n]}')
    assert caught.value.line == 2


def test_bad_arrays_name_the_column_and_index():
    with pytest.raises(memplan.InputError, match=r"sizes\[1\]"):
        memplan.Problem.from_arrays([0, 1], [2, 3], np.array([4, -1]))
    with pytest.raises(memplan.InputError, match="ends has 1 values"):
        memplan.Problem.from_arrays([0, 1], [2], [4, 4])
    with pytest.raises(memplan.InputError, match="integers"):
        memplan.Problem.from_arrays([0.5], [2.0], [4.0])
    with pytest.raises(memplan.InputError, match="one-dimensional"):
        memplan.Problem.from_arrays([[0]], [[2]], [[4]])
    with pytest.raises(memplan.InputError):
        memplan.Problem.from_arrays([3], [3], [4])  # empty lifetime
    with pytest.raises(memplan.InputError):
        memplan.Problem.from_arrays([0], [3], [4], alignment=0)  # no alignment is 0
    with pytest.raises(memplan.InputError, match=r"starts\[0\]"):
        memplan.Problem.from_arrays([2**64], [2], [4])


def test_missing_files_are_os_errors():
    with pytest.raises(FileNotFoundError) as caught:
        memplan.Problem.from_csv("/nonexistent/memplan.csv")
    assert caught.value.filename == "/nonexistent/memplan.csv"
    with pytest.raises(FileNotFoundError):
        memplan.import_tflite("/nonexistent/model.tflite")


def test_a_missing_file_says_why_and_where():
    with pytest.raises(FileNotFoundError) as caught:
        memplan.Problem.from_json("/nonexistent/memplan.json")
    text = str(caught.value)
    assert "/nonexistent/memplan.json" in text and "None" not in text and caught.value.errno is not None


def test_a_file_that_is_not_text_is_an_input_error_with_a_place(tmp_path):
    path = tmp_path / "latin1.csv"
    path.write_bytes(b"id,lower,upper,size\na\xe9,0,4,16\n")
    with pytest.raises(memplan.InputError) as caught:
        memplan.Problem.from_csv(path)
    assert (caught.value.line, caught.value.column) == (2, 2)
    assert "UTF-8" in str(caught.value) and str(path) in str(caught.value)
    model = tmp_path / "model.csv"
    model.write_bytes(b"\x1c\x00\x00\x00TFL3\x00\x00\xff\xfe")
    with pytest.raises(memplan.InputError, match="memplan.import_tflite"):
        memplan.Problem.from_csv(model)


def test_carriage_returns_alone_end_lines(tmp_path):
    path = tmp_path / "mac.csv"
    path.write_bytes(b"id,lower,upper,size\ra,0,4,16\rb,2,6,8\r")
    problem = memplan.Problem.from_csv(path)
    assert len(problem) == 2


def test_requests_the_core_refuses_are_typed():
    problem = memplan.Problem.from_csv(EXAMPLES / "handmade" / "small.csv")
    with pytest.raises(memplan.UnknownSolverError):
        memplan.solve(problem, solver="no-such-solver")
    with pytest.raises(memplan.RequestError, match="parameter"):
        memplan.solve(problem, solver="minimalloc", params={"no_such_param": 1})
    with pytest.raises(memplan.RequestError):
        memplan.solve(problem, time_limit=-1)
    with pytest.raises(memplan.RequestError):
        memplan.solve(problem, effort="extreme")
    with pytest.raises(memplan.RequestError):
        memplan.solve(problem, threads=0)
    with pytest.raises(memplan.RequestError, match="capacity"):
        memplan.solve(problem, capacity="lots")
    with pytest.raises(memplan.UnknownSolverError):
        memplan.solve_many([problem], solver="no-such-solver")
    assert issubclass(memplan.UnknownSolverError, memplan.RequestError)
    assert issubclass(memplan.RequestError, ValueError)


def test_a_warm_start_that_is_not_a_plan_is_refused():
    problem = memplan.Problem.from_arrays([0, 0], [4, 4], [16, 16])
    with pytest.raises(memplan.InvalidWarmStartError):
        memplan.solve(problem, warm=[0, 8])  # overlapping
    with pytest.raises(memplan.InvalidWarmStartError):
        memplan.solve(problem, warm=[0])  # too short


def test_bad_models_are_model_errors(tmp_path):
    junk = tmp_path / "junk.tflite"
    junk.write_bytes(b"\x00" * 64)
    with pytest.raises(memplan.ModelError) as caught:
        memplan.import_tflite(junk)
    assert caught.value.kind == "malformed" and caught.value.path == str(junk)
    with pytest.raises(memplan.ModelError) as caught:
        memplan.import_tflite(FIXTURES / "tflite" / "face_detection_short_range.tflite", subgraph=99)
    assert caught.value.kind == "request"
    pb = tmp_path / "junk.hlo.pb"
    pb.write_bytes(b"\xff\xff\xff")
    with pytest.raises(memplan.ModelError):
        memplan.import_xla(pb)
