"""The importers from Python: a model's instance and its compiler's plan, both checked, and
memplan's plan never above the compiler's when started from it."""

from __future__ import annotations

import json

import pytest

import memplan
from conftest import FIXTURES, checked

TFLITE = FIXTURES / "tflite" / "face_detection_short_range.tflite"


def test_tflite_instance_and_litert_plan():
    model = memplan.import_tflite(TFLITE)
    problem = model.problem
    assert len(problem) > 0
    assert model.summary["operators"] > 0
    # LiteRT's arena for this model, as the fixture recorded it from the runtime (README: 1,769,472).
    recorded = json.loads((FIXTURES / "tflite" / "face_detection_short_range.litert.json").read_text())
    compiler = memplan.validate(problem, model.compiler_plan)
    assert compiler.valid, compiler.violations
    assert compiler.makespan == recorded["subgraphs"][0]["arena_size"]
    better = checked(problem, memplan.solve(problem, warm=model.compiler_plan))
    assert better.makespan <= compiler.makespan
    assert (better.offsets % 64 == 0).all()


def test_pte_instance_and_executorch_plan():
    model = memplan.import_pte(FIXTURES / "executorch" / "mlp_with_view.pte")
    problem = model.problem
    assert model.summary["tensors"] == len(problem) + 1  # a view shares its base's buffer
    compiler = memplan.validate(problem, model.compiler_plan)
    assert compiler.valid, compiler.violations
    assert compiler.makespan == model.summary["compiler_arena"]
    better = checked(problem, memplan.solve(problem, warm=model.compiler_plan))
    assert better.makespan <= compiler.makespan
    assert (better.offsets % 16 == 0).all()
    with pytest.raises(memplan.ModelError, match="no planned memory 2"):
        memplan.import_pte(FIXTURES / "executorch" / "mlp_with_view.pte", memory_id=2)


def test_tflite_micro_has_no_compiler_plan():
    model = memplan.import_tflite(TFLITE, runtime="micro")
    assert model.compiler_plan is None
    checked(model.problem, memplan.solve(model.problem, effort="low"))


@pytest.mark.parametrize("name", ["mlp", "convnet"])
def test_xla_instance_and_buffer_assignment(name):
    model = memplan.import_xla(FIXTURES / "xla" / f"{name}.hlo.pb")
    problem = model.problem
    assert len(problem) > 0 and model.summary["traces"] >= 1
    assert model.compiler_plan is not None
    compiler = memplan.validate(problem, model.compiler_plan)
    assert compiler.valid, compiler.violations
    assert compiler.makespan == model.summary["compiler_makespan"]
    ours = checked(problem, memplan.solve(problem, warm=model.compiler_plan))
    assert ours.makespan <= compiler.makespan
