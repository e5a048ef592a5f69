"""memplan as ExecuTorch's memory planner.

ExecuTorch (PyTorch's on-device runtime) plans the activations of a program when it lowers it
(``to_executorch``): its ``MemoryPlanningPass`` collects the tensors to plan (``TensorSpec``s,
each alive over a closed interval of graph-node indices), calls a planning algorithm, and writes
the offsets it returns into the ``.pte``. This module puts memplan's solvers in that seat, two
ways:

- ``planner(...)`` replaces the algorithm: ``MemoryPlanningPass(memory_planning_algo=
  memplan.executorch.planner())``. It returns the arena sizes and sets ``mem_id``,
  ``mem_offset`` and ``mem_obj_id`` on every tensor, as the pass expects.
- ``member(...)`` joins ExecuTorch's own suite: ``MemoryPlanningAlgorithmSuite(algo_list=
  [greedy, memplan.executorch.member()])`` runs both and keeps the smaller total, so the
  program's arena is never larger than ExecuTorch's ``greedy`` makes it.

Either way, a failure (a solver error, a plan that does not validate, a tensor layout this module
does not know) falls back to ExecuTorch's ``greedy`` with a ``warnings.warn``: the program is
always planned. ``torch`` and ``executorch`` are imported only when a planner runs, so
``import memplan.executorch`` works without them.

A complete example (``pip install memplan executorch torchvision``)::

    import torch, torchvision
    from executorch.exir import ExecutorchBackendConfig, to_edge
    from executorch.exir.passes import MemoryPlanningPass
    from executorch.runtime import Runtime
    import memplan.executorch

    model = torchvision.models.mobilenet_v2(weights=None).eval()
    example = (torch.randn(1, 3, 224, 224),)
    edge = to_edge(torch.export.export(model, example))
    plan = memplan.executorch.planner(solver="auto", time_limit=10)
    program = edge.to_executorch(
        ExecutorchBackendConfig(memory_planning_pass=MemoryPlanningPass(memory_planning_algo=plan))
    )
    print(plan.reports[-1])               # tensors, max load L, arena bytes, solver, time
    with open("mobilenet_v2.pte", "wb") as file:
        program.write_to_file(file)

    method = Runtime.get().load_program("mobilenet_v2.pte").load_method("forward")
    print(method.execute(list(example))[0].shape)  # the program runs with memplan's offsets

    # Or keep the smaller of ExecuTorch's greedy and memplan (an edge program lowers once):
    from executorch.exir.memory_planning import MemoryPlanningAlgorithmSuite, greedy
    suite = MemoryPlanningAlgorithmSuite(algo_list=[greedy, memplan.executorch.member()])
    program = to_edge(torch.export.export(model, example)).to_executorch(
        ExecutorchBackendConfig(memory_planning_pass=MemoryPlanningPass(memory_planning_algo=suite))
    )
    print(program.executorch_program.execution_plan[0].non_const_buffer_sizes)  # [0, 9633792]

How ExecuTorch's tensors become a memplan instance (one per memory id):

- a tensor alive over nodes ``[first, last]`` (closed) is a buffer alive over ``[first, last + 1)``;
- its size is ``spec.allocated_memory`` after ``spec.realign(alignment)`` (the bytes rounded up
  to the alignment, as ``greedy`` does), and every offset is a multiple of the alignment;
- the same ``TensorSpec`` object listed twice is one buffer; a spec with a ``storage_base``
  (in-place results, views ExecuTorch chose to alias) gets no buffer of its own: it lives inside
  its base at ``storage_base_offset``, and the base's lifetime covers it;
- a spec whose ``mem_id`` is already set stays in that memory; the others go to memory 1;
- memory a control-flow submodule reserved (``graph_module.input_mem_buffer_sizes``) comes first
  in its memory, and ``extra_padding`` (64 bytes when an XNNPACK delegate is present) is added to
  each memory's size, both as ``greedy`` does.

``mem_obj_id`` (ExecuTorch's "shared object") is, per memory, a run of tensors whose byte ranges
chain into one another: two tensors that share any byte share the id, as ExecuTorch's verifier
requires.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence

from ._hook_options import solve_options

__all__ = ["MemplanPlanner", "PlanReport", "PlanningError", "member", "planner"]

_DEFAULT_MEMORY = 1
"""The memory id ExecuTorch's planners use for a tensor no pass assigned one (id 0 is reserved
for constants)."""


@dataclass(frozen=True)
class PlanReport:
    """What one planning call did for one memory id: the instance, memplan's answer, the arena."""

    mem_id: int
    tensors: int
    """Specs planned in this memory, storage-backed ones included."""
    buffers: int
    """Buffers in memplan's instance (specs that share storage count once)."""
    max_load: int
    """L: the most bytes alive at one node, a lower bound for any plan of this memory."""
    makespan: int
    """memplan's plan of the buffers (bytes), before the reserved prefix and the padding."""
    arena: int
    """The memory's size handed to ExecuTorch: reserved prefix + makespan + extra padding."""
    solver: str
    stopped: str
    elapsed_ms: float
    fallback: bool = False
    """True when this memory was planned by ExecuTorch's ``greedy`` after memplan failed."""


@dataclass
class _Placement:
    mem_id: int
    mem_obj_id: int
    mem_offset: int


@dataclass
class _Plan:
    bufsizes: List[int]
    placements: List[Any] = field(default_factory=list)
    """``(spec, _Placement)`` pairs, one per distinct spec."""
    reports: List[PlanReport] = field(default_factory=list)


class PlanningError(ValueError):
    """The specs cannot be planned as given (a missing lifetime, a storage base that is not
    planned, a memory id 0, a plan that does not validate)."""


def _align_up(value: int, alignment: int) -> int:
    return -(-value // alignment) * alignment


def _distinct(specs: Sequence[Any]) -> List[Any]:
    """The specs in order, each object once: ExecuTorch shares a spec between the nodes whose
    tensors share storage, and they must get one offset."""
    seen, out = set(), []
    for spec in specs:
        if id(spec) not in seen:
            seen.add(id(spec))
            out.append(spec)
    return out


def _lifetime(spec: Any) -> tuple:
    lifetime = getattr(spec, "lifetime", None)
    if lifetime is None or len(lifetime) != 2 or lifetime[0] is None or lifetime[1] is None:
        raise PlanningError(f"a tensor has no lifetime ({lifetime!r}): run ExecuTorch's lifetime pass first")
    first, last = int(lifetime[0]), int(lifetime[1])
    if first < 0 or last < first:
        raise PlanningError(f"a tensor has the lifetime [{first}, {last}]: first must be <= last, both >= 0")
    return first, last


def _root(spec: Any, planned: Dict[int, Any]) -> tuple:
    """The spec at the bottom of a storage-base chain and the byte offset of ``spec`` in it."""
    offset, seen, node = 0, {id(spec)}, spec
    while getattr(node, "storage_base", None) is not None:
        offset += int(getattr(node, "storage_base_offset", 0) or 0)
        node = node.storage_base
        if id(node) in seen:
            raise PlanningError("tensors back each other's storage in a circle")
        seen.add(id(node))
    if id(node) not in planned:
        raise PlanningError("a tensor's storage base is not among the tensors to plan")
    return node, offset


def _object_ids(offsets: Sequence[int], sizes: Sequence[int]) -> List[int]:
    """Numbers runs of buffers whose byte ranges chain into one another, in address order: two
    buffers that share a byte get the same number (a zero-size buffer shares none)."""
    order = sorted(range(len(offsets)), key=lambda i: (offsets[i], -sizes[i]))
    ids = [0] * len(offsets)
    current, top = -1, -1
    for i in order:
        if current < 0 or offsets[i] >= top:
            current += 1
            top = offsets[i] + sizes[i]
        else:
            top = max(top, offsets[i] + sizes[i])
        ids[i] = current
    return ids


def _plan(
    alignment: int,
    specs: Sequence[Any],
    reserved: Sequence[int],
    extra_padding: int,
    solve: Callable[[Any], Any],
) -> _Plan:
    """Plans ``specs`` with ``solve`` (a Problem -> SolveResult function) and returns the arena
    sizes and each spec's placement, writing nothing on the specs except their alignment."""
    import memplan

    if alignment < 1:
        raise PlanningError(f"alignment {alignment} must be at least 1")
    distinct = _distinct(specs)
    for spec in distinct:
        if hasattr(spec, "realign"):
            spec.realign(alignment)
    roots = [s for s in distinct if getattr(s, "storage_base", None) is None]
    planned = {id(s): s for s in roots}
    backed = [(s, *_root(s, planned)) for s in distinct if getattr(s, "storage_base", None) is not None]

    memories: Dict[int, List[Any]] = {}
    for spec in roots:
        mem_id = _DEFAULT_MEMORY if getattr(spec, "mem_id", None) is None else int(spec.mem_id)
        if mem_id < 1:
            raise PlanningError(f"a tensor is assigned memory id {mem_id}: id 0 holds constants")
        memories.setdefault(mem_id, []).append(spec)
    # A storage base lives as long as everything inside it.
    hull = {id(s): list(_lifetime(s)) for s in roots}
    for spec, root, _ in backed:
        first, last = _lifetime(spec)
        span = hull[id(root)]
        span[0], span[1] = min(span[0], first), max(span[1], last)

    if not memories:
        return _Plan(bufsizes=[0, 0])
    bufsizes = [0] * (max(memories) + 1)
    placement: Dict[int, _Placement] = {}
    reports: List[PlanReport] = []
    for mem_id in sorted(memories):
        members = memories[mem_id]
        member_ids = {id(s) for s in members}
        starts = [hull[id(s)][0] for s in members]
        ends = [hull[id(s)][1] + 1 for s in members]
        sizes = [int(s.allocated_memory) for s in members]
        problem = memplan.Problem.from_arrays(starts, ends, sizes, alignment=alignment)
        result = solve(problem)
        if result.offsets is None:
            raise PlanningError(f"memory {mem_id}: memplan found no plan ({result.stopped}: {result.detail})")
        check = memplan.validate(problem, result.offsets)
        if not check.valid:
            raise PlanningError(f"memory {mem_id}: memplan's plan does not validate: {check.violations[:3]}")
        base = _align_up(reserved[mem_id], alignment) if mem_id < len(reserved) else 0
        offsets = [int(o) for o in result.offsets]
        makespan = int(result.makespan or 0)
        bufsizes[mem_id] = base + makespan + extra_padding
        for spec, offset, object_id in zip(members, offsets, _object_ids(offsets, sizes)):
            placement[id(spec)] = _Placement(mem_id, object_id, base + offset)
        reports.append(
            PlanReport(
                mem_id=mem_id,
                tensors=len(members) + sum(1 for _, root, _ in backed if id(root) in member_ids),
                buffers=len(members),
                max_load=problem.max_load,
                makespan=makespan,
                arena=bufsizes[mem_id],
                solver=result.winner or result.solver,
                stopped=str(result.stopped),
                elapsed_ms=result.elapsed_ms,
            )
        )
    for spec, root, offset in backed:
        inside = placement[id(root)]
        if offset + int(spec.allocated_memory) > int(root.allocated_memory):
            raise PlanningError("a storage-backed tensor does not fit inside its storage base")
        if (inside.mem_offset + offset) % alignment:
            raise PlanningError(f"a storage-backed tensor's offset is not a multiple of {alignment}")
        placement[id(spec)] = _Placement(inside.mem_id, inside.mem_obj_id, inside.mem_offset + offset)
    return _Plan(bufsizes, [(s, placement[id(s)]) for s in distinct], reports)


def _result_types() -> tuple:
    """ExecuTorch's ``MemoryAlgoResult`` and ``SpecAllocResult``, or look-alikes with the same
    fields when ExecuTorch is not installed (the suite reads only those fields)."""
    try:
        from executorch.exir.memory_planning import MemoryAlgoResult, SpecAllocResult
    except ImportError:
        return _AlgoResult, _Placement
    return MemoryAlgoResult, SpecAllocResult


@dataclass
class _AlgoResult:
    spec_dict: Dict[Any, Any]
    bufsizes: List[int]


def _executorch_greedy(alignment, specs, graph_module, graph_signature, extra_padding):
    from executorch.exir.memory_planning import greedy

    return greedy(alignment, specs, graph_module, graph_signature, extra_padding)


class MemplanPlanner:
    """A planning algorithm with ExecuTorch's signature, backed by memplan's solvers.

    Called as the pass's ``memory_planning_algo`` it writes the plan on the specs and returns the
    arena sizes; as a suite member (``member()``) it returns a ``MemoryAlgoResult`` and lets the
    suite write the winner. Each call appends one ``PlanReport`` per memory to ``reports``.
    """

    def __init__(
        self,
        *,
        as_member: bool,
        solver: str = "auto",
        effort: Optional[str] = None,
        time_limit: Optional[float] = None,
        seed: int = 0,
        threads: Optional[int] = None,
        params: Optional[Mapping[str, object]] = None,
        fallback: Optional[Callable[..., Any]] = None,
    ) -> None:
        # The suite keys its members' results by ``__name__``: it must differ from ``greedy``.
        self.__name__ = "memplan"
        self.as_member = as_member
        self.options: Dict[str, Any] = solve_options(solver, effort, time_limit, seed, threads, params)
        self.fallback = fallback if fallback is not None else _executorch_greedy
        self.reports: List[PlanReport] = []

    def __repr__(self) -> str:
        options = ", ".join(f"{k}={v!r}" for k, v in self.options.items())
        return f"memplan.executorch.{'member' if self.as_member else 'planner'}({options})"

    def _solve(self, problem: Any) -> Any:
        import memplan

        return memplan.solve(problem, **self.options)

    def __call__(self, alignment, specs, graph_module, graph_signature, extra_padding=0):
        reserved = list(getattr(graph_module, "input_mem_buffer_sizes", None) or [])
        try:
            plan = _plan(alignment, list(specs), reserved, extra_padding, self._solve)
        except (KeyboardInterrupt, SystemExit):
            raise
        except Exception as error:  # noqa: BLE001 - any failure must leave a planned program
            warnings.warn(
                f"memplan could not plan this program ({type(error).__name__}: {error}); "
                "using ExecuTorch's greedy plan instead",
                RuntimeWarning,
                stacklevel=2,
            )
            return self._fall_back(alignment, specs, graph_module, graph_signature, extra_padding)
        self.reports.extend(plan.reports)
        if self.as_member:
            result_type, placement_type = _result_types()
            spec_dict = {spec: placement_type(p.mem_id, p.mem_obj_id, p.mem_offset) for spec, p in plan.placements}
            return result_type(spec_dict, plan.bufsizes)
        for spec, p in plan.placements:
            spec.mem_id, spec.mem_obj_id, spec.mem_offset = p.mem_id, p.mem_obj_id, p.mem_offset
        return plan.bufsizes

    def _fall_back(self, alignment, specs, graph_module, graph_signature, extra_padding):
        result = self.fallback(alignment, specs, graph_module, graph_signature, extra_padding)
        bufsizes = list(result.bufsizes)
        for mem_id in range(1, len(bufsizes)):
            self.reports.append(
                PlanReport(mem_id, 0, 0, 0, 0, bufsizes[mem_id], "executorch-greedy", "fallback", 0.0, fallback=True)
            )
        if self.as_member:
            return result
        for spec, chosen in result.spec_dict.items():
            spec.mem_id, spec.mem_obj_id, spec.mem_offset = chosen.mem_id, chosen.mem_obj_id, chosen.mem_offset
        return bufsizes


def planner(
    solver: str = "auto",
    effort: Optional[str] = None,
    time_limit: Optional[float] = None,
    seed: int = 0,
    threads: Optional[int] = None,
    params: Optional[Mapping[str, object]] = None,
    fallback: Optional[Callable[..., Any]] = None,
) -> MemplanPlanner:
    """ExecuTorch's planning algorithm replaced by memplan:
    ``MemoryPlanningPass(memory_planning_algo=planner(...))``.

    The options are ``memplan.solve``'s (solver name, effort, time limit in seconds, seed,
    threads, solver parameters); one it does not accept raises its error here
    (``memplan.UnknownSolverError``, ``memplan.RequestError``). ``fallback`` plans when memplan
    fails; it takes the algorithm's arguments and returns a ``MemoryAlgoResult``: ExecuTorch's
    ``greedy`` by default.
    """
    return MemplanPlanner(
        as_member=False,
        solver=solver,
        effort=effort,
        time_limit=time_limit,
        seed=seed,
        threads=threads,
        params=params,
        fallback=fallback,
    )


def member(
    solver: str = "auto",
    effort: Optional[str] = None,
    time_limit: Optional[float] = None,
    seed: int = 0,
    threads: Optional[int] = None,
    params: Optional[Mapping[str, object]] = None,
    fallback: Optional[Callable[..., Any]] = None,
) -> MemplanPlanner:
    """memplan as one member of ``MemoryPlanningAlgorithmSuite(algo_list=[greedy, member()])``,
    which keeps the member with the smallest total: the plan is never larger than ``greedy``'s.
    Options as ``planner``'s; on a failure this member returns ``fallback``'s result."""
    return MemplanPlanner(
        as_member=True,
        solver=solver,
        effort=effort,
        time_limit=time_limit,
        seed=seed,
        threads=threads,
        params=params,
        fallback=fallback,
    )
