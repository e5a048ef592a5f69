"""memplan as TVM's memory planner (Relax).

TVM 0.27 plans a Relax function's intermediate tensors with ``StaticPlanBlockMemory``: tensors
whose lifetimes do not meet share a storage (``R.memory.alloc_storage``), each at offset 0 of it,
and a storage is as large as its largest tensor. Storages are never packed at offsets, though
Relax can say it: ``R.memory.alloc_tensor(storage, offset, shape, dtype)`` takes an offset, and
TVM's VM allocates a tensor at that offset of its storage. This module's pass keeps what
``StaticPlanBlockMemory`` decided (which tensors are planned statically, which storage scope and
device each lives in) and replaces its block reuse with memplan's plan: each device's and scope's
storages become one storage (the arena), and each tensor gets memplan's offset in it.

A TVM user replaces one pass of the pipeline: ``StaticPlanBlockMemory()`` in
``finalize_passes`` becomes ``memplan.tvm.plan_memory()``, which runs it and then memplan. A
complete example (``pip install memplan apache-tvm torch torchvision``)::

    import numpy as np, torch, torchvision, tvm
    from tvm import relax
    from tvm.relax.frontend.torch import from_exported_program
    import memplan.tvm

    model = torchvision.models.resnet18(weights=None).eval()
    example = torch.randn(1, 3, 224, 224)
    with torch.no_grad():
        mod = from_exported_program(torch.export.export(model, (example,)))
    plan = memplan.tvm.plan_memory(solver="auto", time_limit=10)
    executable = tvm.compile(mod, target="llvm", relax_pipeline=memplan.tvm.pipeline("llvm", plan))
    print(plan.reports[-1])          # tensors, L, TVM's storage bytes, memplan's arena, solver, time
    vm = relax.VirtualMachine(executable, tvm.cpu())
    print(vm["main"](tvm.runtime.tensor(example.numpy()))[0].numpy().shape)

How a function's tensors become a memplan instance (one per device index and storage scope):

- the function's top-level bindings are numbered in order; a tensor ``R.memory.alloc_tensor``
  makes at binding ``a`` and last used (through any variable bound to an expression that uses it:
  an alias, a tuple, a view) at binding ``u`` is a buffer alive over ``[a, u + 1)``, so a call's
  inputs and its output never share bytes;
- its size is the bytes of its shape and data type, its alignment the pass's (64 by default,
  TVM's own allocation alignment, which compiled kernels may assume);
- a storage is planned only when every use of it is a top-level ``alloc_tensor`` at offset 0 of
  static shape, and none of its tensors reaches the function's result; any other storage (a
  dynamic size, a tensor used across a branch) stays as ``StaticPlanBlockMemory`` made it.

A tensor at a non-zero offset reaches the kernels through ``R.memory.ensure_zero_offset``: TVM's
compiled kernels refuse a tensor whose ``byte_offset`` is not 0, and the VM turns it into a view
whose data pointer carries the offset, without copying on devices whose pointers the host may
offset (CPUs; elsewhere it copies, which stays correct but saves nothing).

``StaticPlanBlockMemory``'s own plan (its storages one after another) is memplan's warm start,
and the arena is used only when it is smaller than the storages it replaces: the pass never makes
a function need more memory than TVM's planner did. Any failure leaves the function as TVM planned
it, with a ``warnings.warn``. ``tvm`` is imported only when a pass is built, so
``import memplan.tvm`` works without it.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Tuple

from ._hook_options import solve_options

__all__ = ["Instance", "PlanReport", "Tensor", "instances", "pipeline", "plan_memory"]

_ALLOC_STORAGE = "relax.memory.alloc_storage"
_ALLOC_TENSOR = "relax.memory.alloc_tensor"


@dataclass(frozen=True)
class PlanReport:
    """What the pass did for one function and one (device, scope): the instance, TVM's storages,
    memplan's arena."""

    function: str
    scope: str
    device_index: int
    tensors: int
    storages: int
    """Storages ``StaticPlanBlockMemory`` made for these tensors (replaced by one arena)."""
    max_load: int
    """L: the most tensor bytes alive at one binding, a lower bound for any plan."""
    tvm_bytes: int
    """The bytes of those storages: what TVM's plan allocates."""
    memplan_bytes: int
    """memplan's arena (bytes); equal to ``tvm_bytes`` when memplan's plan was not smaller."""
    solver: str
    stopped: str
    elapsed_ms: float
    applied: bool
    """False when TVM's storages were kept (memplan's plan was not smaller, or it failed)."""


@dataclass(frozen=True)
class Tensor:
    """A tensor ``StaticPlanBlockMemory`` placed in a storage: what memplan plans."""

    name: str
    start: int
    end: int
    size: int
    storage: str
    """The name of the storage variable TVM put it in."""
    tvm_offset: int
    """Where TVM's plan puts it: its storage's start, the storages laid one after another."""


@dataclass(frozen=True)
class Instance:
    """The tensors of one function, device and storage scope that the pass plans, with TVM's plan
    of them (its storages one after another): for import and comparison."""

    function: str
    device_index: int
    scope: str
    tensors: List[Tensor]
    storages: int
    tvm_bytes: int
    """The bytes of TVM's storages: what its plan allocates."""
    alignment: int

    def to_csv(self) -> str:
        """memplan's CSV: ``id`` (the tensor's variable), lifetime, size, alignment, and TVM's
        offset in ``offset`` (a plan for ``memplan check``; ``solve`` would read it as pinned)."""
        lines = ["id,lower,upper,size,alignment,offset"]
        lines += [f"{t.name},{t.start},{t.end},{t.size},{self.alignment},{t.tvm_offset}" for t in self.tensors]
        return "\n".join(lines) + "\n"

    def problem(self) -> Any:
        """The instance as a ``memplan.Problem`` (TVM's offsets left out)."""
        import memplan

        t = self.tensors
        return memplan.Problem.from_arrays(
            [x.start for x in t], [x.end for x in t], [x.size for x in t], alignment=self.alignment
        )


@dataclass
class _Storage:
    var: Any
    binding: int
    size: int
    device_index: int
    scope: str
    dtype: str
    plannable: bool = True


@dataclass
class _Allocation:
    var: Any
    binding: int
    storage: _Storage
    size: int
    last_use: int


def _int(expr: Any) -> Optional[int]:
    """The value of a constant (a Relax prim value holding an integer immediate, the immediate,
    or an int), else None. Read by duck typing: TVM moved these classes between releases."""
    for _ in range(3):
        if isinstance(expr, bool):
            return None
        if isinstance(expr, int):
            return int(expr)
        if not hasattr(expr, "value"):
            return None
        expr = expr.value
    return None


def _static_shape(expr: Any) -> Optional[List[int]]:
    from tvm import relax

    if not isinstance(expr, relax.ShapeExpr):
        return None
    dims = [_int(d) for d in expr.values]
    return None if any(d is None for d in dims) else dims  # type: ignore[misc]


def _op_name(expr: Any) -> Optional[str]:
    import tvm
    from tvm import relax

    if isinstance(expr, relax.Call) and isinstance(expr.op, tvm.ir.Op):
        return str(expr.op.name)
    return None


def _bindings(function: Any) -> List[Any]:
    """The function's top-level bindings, in order (their index is the pass's time)."""
    return [binding for block in function.body.blocks for binding in block.bindings]


def _analyse(function: Any) -> Tuple[List[_Storage], List[_Allocation]]:
    """The function's storages and the tensors allocated in them, with lifetimes and whether
    each storage can be planned."""
    from tvm import relax

    storages: Dict[Any, _Storage] = {}
    allocations: List[_Allocation] = []
    # The tensors each variable may refer to (an alias, a tuple or a view of them).
    holds: Dict[Any, set] = {}
    for index, binding in enumerate(_bindings(function)):
        value = binding.value
        op = _op_name(value)
        if isinstance(binding, relax.VarBinding) and op == _ALLOC_STORAGE:
            size = _static_shape(value.args[0])
            device = _int(value.args[1])
            storage = _Storage(
                var=binding.var,
                binding=index,
                size=size[0] if size and len(size) == 1 else -1,
                device_index=device if device is not None else -1,
                scope=str(getattr(value.args[2], "value", value.args[2])),
                dtype=str(getattr(value.args[3], "value", value.args[3])),
            )
            storage.plannable = storage.size >= 0 and storage.device_index >= 0
            storages[binding.var] = storage
            continue
        used = relax.analysis.free_vars(value)
        if isinstance(binding, relax.VarBinding) and op == _ALLOC_TENSOR and value.args[0] in storages:
            storage = storages[value.args[0]]
            shape = _static_shape(value.args[2])
            offset = _int(value.args[1])
            size = _bytes(value.args[3], shape)
            if size is None or offset != 0:
                storage.plannable = False
            else:
                allocations.append(_Allocation(binding.var, index, storage, size, index))
                holds[binding.var] = {len(allocations) - 1}
            used = [v for v in used if v not in storages]
        for var in used:
            if var in storages:
                # A storage used other than by a top-level alloc_tensor is left as TVM made it.
                storages[var].plannable = False
        reached = set().union(*(holds.get(v, set()) for v in used)) if used else set()
        for t in reached:
            allocations[t].last_use = index
        if reached and binding.var not in holds:
            holds[binding.var] = reached
    # A storage referred to inside a nested expression (a branch) is not plannable either; so is
    # one whose tensor reaches the result.
    tail = relax.analysis.free_vars(function.body.body)
    for var in tail:
        if var in storages:
            storages[var].plannable = False
        for t in holds.get(var, ()):
            allocations[t].storage.plannable = False
    return list(storages.values()), allocations


def _bytes(dtype_expr: Any, shape: Optional[List[int]]) -> Optional[int]:
    """The bytes of a tensor of this data type and static shape (None for a dynamic shape)."""
    import tvm

    if shape is None:
        return None
    dtype = tvm.DataType(str(getattr(dtype_expr, "value", dtype_expr)))
    bits = dtype.bits * dtype.lanes
    count = 1
    for d in shape:
        count *= d
    return (count * bits + 7) // 8


def instances(function: Any, name: str = "main", alignment: int = 64) -> List[Instance]:
    """The instances the pass plans in a Relax function (after ``StaticPlanBlockMemory``), one per
    device and storage scope, each with TVM's plan of it."""
    return [instance for instance, _, _ in _grouped(function, name, alignment)]


def _grouped(function: Any, name: str, alignment: int) -> List[Tuple[Instance, List[_Storage], List[_Allocation]]]:
    """Each device's and scope's instance with the storages and allocations it was made of."""
    storages, allocations = _analyse(function)
    groups: Dict[Tuple[int, str], List[_Storage]] = {}
    for storage in storages:
        if storage.plannable and any(a.storage is storage for a in allocations):
            groups.setdefault((storage.device_index, storage.scope), []).append(storage)
    found = []
    for (device, scope), members in sorted(groups.items(), key=lambda kv: kv[0]):
        base, at = {}, 0
        for storage in sorted(members, key=lambda s: s.binding):
            base[storage.var] = at
            at = _align_up(at + storage.size, alignment)
        inside = [a for a in allocations if a.storage in members]
        tensors = [
            Tensor(_name(a.var), a.binding, a.last_use + 1, a.size, _name(a.storage.var), base[a.storage.var])
            for a in inside
        ]
        total = sum(s.size for s in members)
        found.append((Instance(name, device, scope, tensors, len(members), total, alignment), members, inside))
    return found


def _name(var: Any) -> str:
    """A variable's name (``name`` from TVM 0.27 on, ``name_hint`` before)."""
    return str(getattr(var, "name", None) or getattr(var, "name_hint", ""))


def _type(var: Any) -> Any:
    """A variable's type (``ty`` from TVM 0.27 on, ``struct_info`` before)."""
    return var.ty if hasattr(var, "ty") else var.struct_info


def _align_up(value: int, alignment: int) -> int:
    return -(-value // alignment) * alignment


class _Planner:
    """The pass's work, apart from TVM's pass wrapper (so that it can be read and tested alone)."""

    def __init__(self, options: Dict[str, Any], alignment: int) -> None:
        self.options = options
        self.alignment = alignment
        self.reports: List[PlanReport] = []

    def plan_function(self, name: str, function: Any) -> Any:
        from tvm import relax

        if not isinstance(function, relax.Function) or not isinstance(function.body, relax.SeqExpr):
            return function
        rewrites: Dict[Any, Tuple[Any, int]] = {}  # alloc_tensor var -> (arena var, offset)
        arenas: List[Tuple[_Storage, Any, int]] = []  # (first storage replaced, arena var, bytes)
        dropped: set = set()
        for instance, members, allocations in _grouped(function, name, self.alignment):
            offsets, report = self._plan(instance)
            self.reports.append(report)
            if offsets is None:
                continue
            first = min(members, key=lambda s: s.binding)
            arena = relax.Var(f"memplan_arena_{instance.scope}_{instance.device_index}", _type(first.var))
            arenas.append((first, arena, report.memplan_bytes))
            dropped.update(s.var for s in members)
            for allocation, offset in zip(allocations, offsets):
                rewrites[allocation.var] = (arena, offset)
        if not rewrites:
            return function
        return self._rewrite(function, rewrites, arenas, dropped)

    def _plan(self, instance: Instance) -> Tuple[Optional[List[int]], PlanReport]:
        """memplan's offsets for the instance when they need less than TVM's storages, else None;
        and the report."""
        import memplan

        problem = instance.problem()
        report = dict(
            function=instance.function,
            scope=instance.scope,
            device_index=instance.device_index,
            tensors=len(instance.tensors),
            storages=instance.storages,
            max_load=problem.max_load,
            tvm_bytes=instance.tvm_bytes,
        )
        started = time.perf_counter()
        try:
            try:
                # TVM's plan is the warm start: memplan's answer is never above it.
                warm = [t.tvm_offset for t in instance.tensors]
                result = memplan.solve(problem, warm=warm, **self.options)
            except memplan.InvalidWarmStartError:
                result = memplan.solve(problem, **self.options)
            if result.offsets is None:
                raise ValueError(f"memplan found no plan ({result.stopped}: {result.detail})")
            check = memplan.validate(problem, result.offsets)
            if not check.valid:
                raise ValueError(f"memplan's plan does not validate: {check.violations[:3]}")
        except (KeyboardInterrupt, SystemExit):
            raise
        except Exception as error:  # noqa: BLE001 - a failure must leave TVM's plan in place
            warnings.warn(
                f"memplan could not plan {instance.function} ({type(error).__name__}: {error}); "
                "keeping TVM's storages",
                RuntimeWarning,
                stacklevel=4,
            )
            elapsed = (time.perf_counter() - started) * 1e3
            failed = PlanReport(
                **report,
                memplan_bytes=instance.tvm_bytes,
                solver="",
                stopped="failed",
                elapsed_ms=elapsed,
                applied=False,
            )
            return None, failed
        makespan = int(result.makespan or 0)
        applied = 0 < makespan < instance.tvm_bytes
        done = PlanReport(
            **report,
            memplan_bytes=makespan if applied else instance.tvm_bytes,
            solver=result.winner or result.solver,
            stopped=str(getattr(result.stopped, "value", result.stopped)),
            elapsed_ms=result.elapsed_ms,
            applied=applied,
        )
        return ([int(o) for o in result.offsets] if applied else None), done

    @staticmethod
    def _rewrite(function: Any, rewrites: Mapping[Any, Tuple[Any, int]], arenas, dropped) -> Any:
        from tvm import relax

        first_storage = {s.var: (arena, size, s) for s, arena, size in arenas}
        blocks = []
        for block in function.body.blocks:
            bindings = []
            for binding in block.bindings:
                if binding.var in first_storage:
                    arena, size, storage = first_storage[binding.var]
                    value = relax.op.memory.alloc_storage(
                        relax.ShapeExpr([size]), storage.device_index, storage.scope, storage.dtype
                    )
                    bindings.append(relax.VarBinding(arena, value))
                    continue
                if binding.var in dropped:
                    continue
                if binding.var in rewrites:
                    arena, offset = rewrites[binding.var]
                    old = binding.value
                    value = relax.op.memory.alloc_tensor(arena, offset, old.args[2], old.args[3], old.args[4])
                    if offset == 0:
                        bindings.append(relax.VarBinding(binding.var, value))
                        continue
                    # The VM gives a tensor at an offset a byte_offset, which TVM's compiled
                    # kernels refuse; a view of it with the offset in its data pointer serves
                    # them (TVM's VM makes that view without copying where the device allows
                    # pointer arithmetic on the host, as CPUs do).
                    raw = relax.Var(_name(binding.var) + "_at_offset", _type(binding.var))
                    bindings.append(relax.VarBinding(raw, value))
                    bindings.append(relax.VarBinding(binding.var, relax.op.memory.ensure_zero_offset(raw)))
                    continue
                bindings.append(binding)
            if isinstance(block, relax.DataflowBlock):
                blocks.append(relax.DataflowBlock(bindings))
            else:
                blocks.append(relax.BindingBlock(bindings))
        body = relax.SeqExpr(blocks, function.body.body)
        rewritten = relax.Function(
            function.params,
            body,
            function.ret_ty if hasattr(function, "ret_ty") else function.ret_struct_info,
            function.is_pure,
            function.attrs,
            function.span,
        )
        return rewritten


def plan_memory(
    solver: str = "auto",
    effort: Optional[str] = None,
    time_limit: Optional[float] = None,
    seed: int = 0,
    threads: Optional[int] = None,
    params: Optional[Mapping[str, object]] = None,
    alignment: int = 64,
) -> Any:
    """A Relax module pass: TVM's ``StaticPlanBlockMemory``, then memplan's plan in place of its
    block reuse (see the module's docstring). Put it where ``StaticPlanBlockMemory()`` stands in a
    pipeline; its ``reports`` list gets one ``PlanReport`` per function and storage scope.

    The options are ``memplan.solve``'s; one it does not accept raises its error here.
    ``alignment`` (bytes) is every tensor's offset alignment in the arena.
    """
    import tvm
    from tvm import relax

    if alignment < 1:
        raise ValueError(f"alignment {alignment} must be at least 1")
    options = solve_options(solver, effort, time_limit, seed, threads, params)
    planner = _Planner(options, alignment)

    @tvm.transform.module_pass(opt_level=0, name="memplan.PlanMemory")
    class PlanMemory:
        """StaticPlanBlockMemory, then memplan's offsets inside one storage per scope."""

        def __init__(self) -> None:
            self.reports = planner.reports
            self.options = dict(options)
            self.alignment = alignment

        def transform_module(self, mod: Any, ctx: Any) -> Any:
            del ctx
            mod = relax.transform.StaticPlanBlockMemory()(mod)
            updates = {}
            for global_var, function in mod.functions.items():
                if isinstance(function, relax.Function):
                    planned = planner.plan_function(_name(global_var), function)
                    if planned is not function:
                        updates[global_var] = planned
            for global_var, function in updates.items():
                mod[global_var] = function
            return mod

    return PlanMemory()


def pipeline(target: Any = "llvm", plan: Any = None) -> Any:
    """TVM's default CPU pipeline (``tvm.relax.backend.cpu_generic``) with ``plan`` (by default
    ``plan_memory()``) in place of ``StaticPlanBlockMemory``: for ``tvm.compile(...,
    relax_pipeline=pipeline(target))``."""
    import tvm
    from tvm.relax.backend.cpu_generic import pipeline as cpu

    target = tvm.target.Target(target) if isinstance(target, str) else target
    plan = plan if plan is not None else plan_memory()

    def finalize(passes):
        return [plan if str(p.info.name) == "StaticPlanBlockMemory" else p for p in passes]

    @tvm.transform.module_pass(opt_level=0, name="memplan.Pipeline")
    def run(mod: Any, ctx: Any) -> Any:
        del ctx
        with target:
            passes = (
                cpu.library_dispatch_passes(target)
                + cpu.legalize_passes(target)
                + cpu.dataflow_lower_passes(target)
                + finalize(cpu.finalize_passes(target))
            )
            return tvm.transform.Sequential(passes)(mod)

    return run
