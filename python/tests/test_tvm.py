"""memplan as TVM's memory planner (memplan.tvm): the instances TVM's own planner left in two
torchvision models, read from fixtures (CI has no TVM), and, where apache-tvm is installed, the
pass itself on a small Relax module compiled and run in TVM's VM."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

import memplan
import memplan.tvm
from conftest import FIXTURES, checked

RELAX = FIXTURES / "tvm" / "relax"
MODELS = ("resnet18", "mobilenet_v2")


def figures():
    with open(RELAX / "figures.jsonl") as file:
        return {line["model"]: line for line in map(json.loads, file)}


def fixture(model):
    """The instance and TVM's plan of it (the `offset` column, left out of the problem)."""
    with open(RELAX / f"{model}.relax.csv", newline="") as file:
        rows = list(csv.DictReader(file))
    problem = memplan.Problem.from_arrays(
        [int(r["lower"]) for r in rows],
        [int(r["upper"]) for r in rows],
        [int(r["size"]) for r in rows],
        alignment=[int(r["alignment"]) for r in rows],
    )
    return problem, [int(r["offset"]) for r in rows]


def test_importing_the_module_needs_no_tvm():
    assert {"plan_memory", "pipeline", "instances"} <= set(memplan.tvm.__all__)


@pytest.mark.parametrize("model", MODELS)
def test_tvms_plan_is_a_plan_of_the_instance(model):
    """The lifetimes the pass gives TVM's tensors admit TVM's own block reuse: its storages laid
    one after another are a valid plan of the instance, of TVM's total size (each storage rounded
    up to 64 bytes)."""
    problem, tvm_offsets = fixture(model)
    figure = figures()[model]
    result = memplan.validate(problem, np.array(tvm_offsets, dtype=np.uint64))
    assert result.valid, result.violations
    assert figure["tvm_bytes"] <= result.makespan < figure["tvm_bytes"] + 64 * figure["storages"]
    assert problem.max_load == figure["max_load"] and len(problem) == figure["tensors"]


@pytest.mark.parametrize("model", MODELS)
def test_memplan_needs_less_than_tvm_and_reaches_the_max_load(model):
    """memplan's plan of the instance, warm-started from TVM's, meets the max load: less memory
    than StaticPlanBlockMemory's storages (resnet18 6,422,528 bytes against 7,428,096;
    mobilenet_v2 9,633,792 against 11,984,640), as the compiled program recorded."""
    problem, tvm_offsets = fixture(model)
    figure = figures()[model]
    result = checked(problem, memplan.solve(problem, warm=tvm_offsets))
    assert result.makespan == problem.max_load == figure["memplan_bytes"] < figure["tvm_bytes"]
    assert figure["outputs_identical"] is True


def small_module():
    """A Relax module where StaticPlanBlockMemory's reuse of whole storages costs memory: two
    4 KiB tensors die, then an 8 KiB one grows one of their storages instead of using both."""
    tvm = pytest.importorskip("tvm", reason="apache-tvm is not installed (pip install apache-tvm)")
    from tvm.script import relax as R

    @tvm.script.ir_module
    class Module:
        @R.function
        def main(
            x: R.Tensor((4, 64), "float32"),
            w1: R.Tensor((64, 256), "float32"),
            w2: R.Tensor((256, 64), "float32"),
            w3: R.Tensor((64, 512), "float32"),
            w4: R.Tensor((512, 64), "float32"),
        ) -> R.Tensor((4, 64), "float32"):
            with R.dataflow():
                a = R.matmul(x, w1)
                b = R.matmul(R.nn.relu(x), w1)
                c = R.matmul(a, w2)
                d = R.matmul(b, w2)
                f = R.matmul(c, w3)
                g = R.matmul(f, w4)
                h = R.matmul(d, w3)
                k = R.matmul(h, w4)
                y = R.add(g, k)
                R.output(y)
            return y

    return Module


def test_the_pass_plans_offsets_and_the_program_computes_the_same():
    module = small_module()
    import tvm
    from tvm import relax

    plan = memplan.tvm.plan_memory(solver="auto")
    ours = tvm.compile(module, target="llvm", relax_pipeline=memplan.tvm.pipeline("llvm", plan))
    theirs = tvm.compile(module, target="llvm")
    rng = np.random.default_rng(0)
    shapes = [(4, 64), (64, 256), (256, 64), (64, 512), (512, 64)]
    args = [rng.standard_normal(s).astype("float32") for s in shapes]

    def run(executable):
        vm = relax.VirtualMachine(executable, tvm.cpu())
        return vm["main"](*[tvm.runtime.tensor(a) for a in args]).numpy()

    assert np.array_equal(run(ours), run(theirs))
    (report,) = plan.reports
    assert report.applied and report.tensors == 8
    assert report.max_load == report.memplan_bytes < report.tvm_bytes


def test_instances_read_tvms_plan_of_a_function():
    module = small_module()
    import tvm
    from tvm import relax
    from tvm.relax.backend.cpu_generic import pipeline as cpu

    target = tvm.target.Target("llvm")
    with target:
        passes = cpu.library_dispatch_passes(target) + cpu.legalize_passes(target) + cpu.dataflow_lower_passes(target)
        lowered = relax.transform.StaticPlanBlockMemory()(tvm.transform.Sequential(passes)(module))
    (instance,) = memplan.tvm.instances(lowered["main"])
    problem = instance.problem()
    tvm_plan = memplan.validate(problem, np.array([t.tvm_offset for t in instance.tensors], dtype=np.uint64))
    assert tvm_plan.valid, tvm_plan.violations
    assert instance.tvm_bytes == tvm_plan.makespan > problem.max_load
    assert instance.to_csv().splitlines()[0] == "id,lower,upper,size,alignment,offset"


def test_a_misspelt_option_is_refused_at_once():
    pytest.importorskip("tvm", reason="apache-tvm is not installed (pip install apache-tvm)")
    with pytest.raises(memplan.UnknownSolverError):
        memplan.tvm.plan_memory(solver="no-such-solver")
