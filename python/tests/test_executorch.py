"""memplan as ExecuTorch's planner (memplan.executorch): the translation of ExecuTorch's tensors
into memplan instances and back, tested with stand-ins for ExecuTorch's TensorSpec (CI has
neither torch nor executorch), and one real export when executorch is installed."""

from __future__ import annotations

import csv
import itertools
import json
import subprocess
import sys
import warnings
from types import SimpleNamespace

import pytest

import memplan
import memplan.executorch as et
from conftest import FIXTURES

EXECUTORCH_FIXTURES = FIXTURES / "executorch"


class Spec:
    """What ExecuTorch's planners read and write on a TensorSpec: a closed node interval, the
    bytes rounded up to the alignment `realign` sets, the placement fields, a storage base."""

    def __init__(self, first, last, nbytes, mem_id=None, storage_base=None, storage_base_offset=0):
        self.lifetime = [first, last]
        self.nbytes = nbytes
        self.alignment = 1
        self.mem_id = mem_id
        self.mem_offset = None
        self.mem_obj_id = None
        self.storage_base = storage_base
        self.storage_base_offset = storage_base_offset

    @property
    def allocated_memory(self):
        return -(-self.nbytes // self.alignment) * self.alignment

    def realign(self, alignment):
        self.alignment = alignment
        return self.allocated_memory


def graph(reserved=None):
    return SimpleNamespace(input_mem_buffer_sizes=reserved) if reserved is not None else SimpleNamespace()


def no_fallback(*args):
    raise AssertionError("memplan should have planned this without falling back")


def plan(specs, alignment=16, extra_padding=0, reserved=None, **options):
    algorithm = et.planner(fallback=no_fallback, **options)
    bufsizes = algorithm(alignment, specs, graph(reserved), None, extra_padding)
    return algorithm, bufsizes


def clashes(specs):
    """Pairs of specs alive at a common node (closed intervals) whose bytes meet, by brute force:
    ExecuTorch's own rule, independent of memplan's validator."""
    found = []
    for a, b in itertools.combinations(specs, 2):
        if a is b or a.storage_base is b or b.storage_base is a or a.mem_id != b.mem_id:
            continue
        alive = a.lifetime[0] <= b.lifetime[1] and b.lifetime[0] <= a.lifetime[1]
        meet = a.mem_offset < b.mem_offset + b.allocated_memory and b.mem_offset < a.mem_offset + a.allocated_memory
        if alive and meet:
            found.append((a.lifetime, b.lifetime))
    return found


def test_closed_lifetimes_that_share_a_node_do_not_share_bytes():
    a, b, c = Spec(0, 1, 64), Spec(1, 2, 64), Spec(2, 3, 64)
    _, bufsizes = plan([a, b, c])
    # a and c may share bytes (nodes 0-1 and 2-3), b touches both at one node: two slots.
    assert bufsizes == [0, 128]
    assert a.mem_offset != b.mem_offset and b.mem_offset != c.mem_offset
    assert clashes([a, b, c]) == []
    assert (a.mem_id, b.mem_id, c.mem_id) == (1, 1, 1)


def test_sizes_are_rounded_up_to_the_alignment_and_offsets_aligned():
    specs = [Spec(0, 2, 10), Spec(1, 3, 40), Spec(2, 4, 1)]
    _, bufsizes = plan(specs, alignment=32)
    assert [s.allocated_memory for s in specs] == [32, 64, 32]
    assert all(s.alignment == 32 for s in specs), "specs are realigned, as ExecuTorch's greedy does"
    assert all(s.mem_offset % 32 == 0 for s in specs)
    assert bufsizes[1] == 128  # L with the rounded sizes (nodes 2: all three alive)
    assert clashes(specs) == []


def test_extra_padding_is_added_once_to_each_memory():
    specs = [Spec(0, 1, 64), Spec(0, 1, 64, mem_id=2)]
    _, bufsizes = plan(specs, extra_padding=64)
    assert bufsizes == [0, 128, 128]


def test_a_spec_listed_twice_is_one_buffer():
    shared = Spec(0, 5, 256)
    other = Spec(6, 7, 256)
    algorithm, bufsizes = plan([shared, other, shared])
    assert bufsizes == [0, 256]
    assert algorithm.reports[0].buffers == 2


def test_each_memory_id_is_planned_apart_and_unassigned_specs_go_to_memory_1():
    one = [Spec(0, 3, 100), Spec(1, 2, 100)]
    three = [Spec(0, 3, 48, mem_id=3), Spec(1, 2, 48, mem_id=3)]
    algorithm, bufsizes = plan(one + three)
    assert bufsizes == [0, 224, 0, 96]
    assert all(s.mem_id == 1 for s in one) and all(s.mem_id == 3 for s in three)
    assert sorted(s.mem_offset for s in three) == [0, 48]
    assert [r.mem_id for r in algorithm.reports] == [1, 3]
    assert clashes(one + three) == []


def test_a_storage_backed_spec_lives_inside_its_base_which_covers_its_lifetime():
    base = Spec(0, 2, 128)
    view = Spec(4, 6, 64, storage_base=base, storage_base_offset=64)
    other = Spec(3, 5, 128)
    algorithm, bufsizes = plan([base, view, other])
    # The base is alive until node 6 through the view, so `other` cannot reuse its bytes.
    assert bufsizes == [0, 256]
    assert view.mem_offset == base.mem_offset + 64
    assert view.mem_id == base.mem_id and view.mem_obj_id == base.mem_obj_id
    assert algorithm.reports[0].buffers == 2 and algorithm.reports[0].tensors == 3
    assert clashes([base, other]) == [] and clashes([view, other]) == []


def test_memory_a_submodule_reserved_comes_first():
    specs = [Spec(0, 1, 64), Spec(1, 2, 64)]
    _, bufsizes = plan(specs, reserved=[0, 100])
    # 100 reserved bytes, rounded up to the alignment, then the plan.
    assert min(s.mem_offset for s in specs) == 112
    assert bufsizes == [0, 112 + 128]


def test_zero_size_tensors_are_planned_and_share_no_bytes():
    empty = Spec(0, 9, 0)
    full = Spec(0, 9, 64)
    _, bufsizes = plan([empty, full])
    assert bufsizes == [0, 64]
    assert empty.mem_offset is not None and empty.mem_id == 1 and empty.mem_obj_id is not None


def test_no_specs_gives_executorch_s_empty_sizes():
    _, bufsizes = plan([])
    assert bufsizes == [0, 0]


def test_shared_object_ids_group_tensors_whose_bytes_meet():
    # Two tensors one after the other in time share a slot; a third alive with both has its own.
    first, second, long = Spec(0, 1, 64), Spec(2, 3, 64), Spec(0, 3, 64)
    plan([first, second, long])
    assert first.mem_offset == second.mem_offset
    assert first.mem_obj_id == second.mem_obj_id != long.mem_obj_id


def test_a_plan_of_many_tensors_is_valid_by_executorch_s_rule():
    specs = []
    for i in range(60):
        first = (i * 7) % 40
        specs.append(Spec(first, first + 1 + (i * 13) % 9, 16 * (1 + (i * 31) % 17)))
    algorithm, bufsizes = plan(specs, seed=3)
    assert clashes(specs) == []
    assert bufsizes[1] == max(s.mem_offset + s.allocated_memory for s in specs)
    report = algorithm.reports[0]
    assert report.arena == bufsizes[1] and report.max_load <= report.makespan == bufsizes[1]


def test_options_reach_the_solver():
    specs = [Spec(0, 3, 100), Spec(1, 2, 100)]
    algorithm, _ = plan(specs, solver="greedy-size-best", seed=5)
    assert algorithm.options == {"solver": "greedy-size-best", "seed": 5}
    assert algorithm.reports[0].solver.startswith("greedy")


def test_as_a_suite_member_it_returns_the_plan_without_writing_it():
    specs = [Spec(0, 3, 100), Spec(1, 2, 100, mem_id=2)]
    algorithm = et.member(fallback=no_fallback)
    result = algorithm(16, specs, graph(), None, 0)
    assert algorithm.__name__ == "memplan", "the suite keys results by name: it must not be greedy's"
    assert result.bufsizes == [0, 112, 112]
    assert set(map(id, result.spec_dict)) == set(map(id, specs))
    chosen = result.spec_dict[specs[1]]
    assert (chosen.mem_id, chosen.mem_offset, chosen.mem_obj_id) == (2, 0, 0)
    assert all(s.mem_offset is None for s in specs), "the suite writes the winner, not the member"


def fake_greedy(calls):
    """A stand-in for ExecuTorch's greedy: stacks every spec, records that it was called."""

    def greedy(alignment, specs, graph_module, graph_signature, extra_padding):
        calls.append(len(specs))
        spec_dict, top = {}, 0
        for spec in specs:
            spec_dict[spec] = SimpleNamespace(mem_id=1, mem_obj_id=len(spec_dict), mem_offset=top)
            top += spec.realign(alignment)
        return SimpleNamespace(spec_dict=spec_dict, bufsizes=[0, top + extra_padding])

    return greedy


@pytest.mark.parametrize(
    "specs, options",
    [
        ([Spec(0, 1, 64), Spec(None, None, 64)], {}),  # a tensor without a lifetime
        ([Spec(0, 1, 64), Spec(3, 2, 64)], {}),  # a lifetime that ends before it starts
        ([Spec(0, 1, 64, mem_id=0)], {}),  # memory 0 holds constants
        ([Spec(0, 1, 64), Spec(0, 1, 64, storage_base=Spec(0, 1, 64))], {}),  # base not planned
        ([Spec(0, 1, 64)], {"solve": "fails"}),  # the solver raises
    ],
)
def test_any_failure_falls_back_to_executorch_s_plan_with_a_warning(specs, options, monkeypatch):
    calls = []
    algorithm = et.planner(fallback=fake_greedy(calls))
    if options:

        def failing_solve(*args, **kwargs):
            raise memplan.RequestError("the solver gave up")

        monkeypatch.setattr(memplan, "solve", failing_solve)
    with pytest.warns(RuntimeWarning, match="using ExecuTorch's greedy plan"):
        bufsizes = algorithm(16, specs, graph(), None, 0)
    assert calls == [len(specs)]
    assert bufsizes[1] == sum(s.allocated_memory for s in specs)
    assert [s.mem_offset for s in specs] == list(itertools.accumulate([0] + [s.allocated_memory for s in specs]))[:-1]
    assert algorithm.reports[-1].fallback


@pytest.mark.parametrize(
    "options, error",
    [
        ({"solver": "no-such-solver"}, memplan.UnknownSolverError),
        ({"effort": "max"}, memplan.RequestError),
        ({"solver": "minimalloc", "params": {"no-such-parameter": 1}}, memplan.RequestError),
    ],
)
def test_options_memplan_does_not_accept_are_refused_at_once(options, error):
    with pytest.raises(error):
        et.planner(**options)
    with pytest.raises(error):
        et.member(**options)


def test_a_failing_member_hands_the_suite_executorch_s_result():
    calls = []
    algorithm = et.member(fallback=fake_greedy(calls))
    specs = [Spec(None, None, 64)]  # no lifetime: the instance cannot be built
    with pytest.warns(RuntimeWarning):
        result = algorithm(16, specs, graph(), None, 0)
    assert calls == [1] and result.bufsizes == [0, 64]
    assert specs[0].mem_offset is None


def fixture_figures():
    lines = (EXECUTORCH_FIXTURES / "figures.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


@pytest.mark.parametrize("figures", fixture_figures(), ids=lambda f: f["model"])
def test_on_the_tensors_executorch_planned_memplan_reaches_the_recorded_arena(figures):
    """The captured models' tensors (lifetimes, sizes, ExecuTorch's order) planned again from
    their CSV: ExecuTorch's plan there is valid, and memplan's arena is the one it gave the real
    export, never above greedy's."""
    path = EXECUTORCH_FIXTURES / f"{figures['model']}.greedy.csv"
    with open(path, newline="") as file:
        rows = list(csv.DictReader(file))
    problem = memplan.Problem.from_csv(path)
    greedy_plan = memplan.validate(problem, problem.offsets)
    assert greedy_plan.valid and greedy_plan.makespan == figures["executorch_greedy"]
    specs = [Spec(int(r["lower"]), int(r["upper"]) - 1, int(r["size"])) for r in rows]
    algorithm, bufsizes = plan(specs, alignment=int(rows[0]["alignment"]))
    assert bufsizes == [0, figures["memplan"]]
    assert figures["max_load"] == problem.max_load <= bufsizes[1] <= figures["executorch_greedy"]
    assert clashes(specs) == []


def test_the_module_imports_without_torch_or_executorch():
    blocked = "import sys; sys.modules.update(torch=None, executorch=None); import memplan.executorch; print('ok')"
    out = subprocess.run([sys.executable, "-c", blocked], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "ok"


def test_a_real_export_runs_with_memplan_s_offsets(tmp_path, monkeypatch):
    exir = pytest.importorskip("executorch.exir", reason="executorch is not installed (pip install executorch)")
    torch = pytest.importorskip("torch")
    from executorch.exir.memory_planning import MemoryPlanningAlgorithmSuite, greedy
    from executorch.exir.passes import MemoryPlanningPass

    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(64, 256), torch.nn.ReLU(), torch.nn.Linear(256, 256), torch.nn.ReLU(), torch.nn.Linear(256, 8)
    ).eval()
    example = (torch.randn(4, 64),)

    def lower(algorithm):
        edge = exir.to_edge(torch.export.export(model, example))
        config = exir.ExecutorchBackendConfig(memory_planning_pass=MemoryPlanningPass(memory_planning_algo=algorithm))
        return edge.to_executorch(config)

    plan = et.planner()
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # no fallback
        program = lower(plan)
    sizes = list(program.executorch_program.execution_plan[0].non_const_buffer_sizes)
    report = plan.reports[0]
    assert sizes == [0, report.arena] and report.arena == report.max_load
    greedy_sizes = list(lower(MemoryPlanningAlgorithmSuite()).executorch_program.execution_plan[0].non_const_buffer_sizes)
    suite = lower(MemoryPlanningAlgorithmSuite(algo_list=[greedy, et.member()]))
    suite_sizes = list(suite.executorch_program.execution_plan[0].non_const_buffer_sizes)
    assert suite_sizes[1] <= greedy_sizes[1] and suite_sizes[1] >= report.max_load

    # When memplan fails, the program is ExecuTorch's greedy plan, written on the specs.
    fallback = et.planner()

    def failing_solve(*args, **kwargs):
        raise memplan.RequestError("the solver gave up")

    with monkeypatch.context() as patch:
        patch.setattr(memplan, "solve", failing_solve)
        with pytest.warns(RuntimeWarning, match="using ExecuTorch's greedy plan"):
            rescued = lower(fallback)
    assert list(rescued.executorch_program.execution_plan[0].non_const_buffer_sizes) == greedy_sizes
    assert fallback.reports[-1].fallback

    path = tmp_path / "mlp.pte"
    path.write_bytes(program.buffer)
    try:
        from executorch.runtime import Runtime
    except ImportError:  # pragma: no cover - executorch without its runtime bindings
        pytest.skip("executorch's runtime bindings are not installed")
    method = Runtime.get().load_program(path).load_method("forward")
    (output,) = method.execute(list(example))
    assert torch.allclose(output, model(*example), atol=1e-5)
    rescued_path = tmp_path / "mlp.greedy.pte"
    rescued_path.write_bytes(rescued.buffer)
    (output,) = Runtime.get().load_program(rescued_path).load_method("forward").execute(list(example))
    assert torch.allclose(output, model(*example), atol=1e-5)
