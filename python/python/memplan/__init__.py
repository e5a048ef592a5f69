"""memplan: static memory planning (dynamic storage allocation) from Python.

Buffers have a size and a lifetime ``[start, end)``; a plan gives each an offset so that no two
buffers alive at the same time overlap, within a capacity or with the lowest peak address
(the makespan). The solvers are memplan's Rust core, the same as the ``memplan`` command's::

    import memplan
    problem = memplan.Problem.from_csv("model.csv")
    result = memplan.solve(problem, capacity="1MiB", time_limit=10)
    result.offsets, result.makespan, result.stopped     # ndarray, int, memplan.Stopped

Every plan returned has passed memplan's independent validator. Errors are ``ValueError``
subclasses from ``memplan.errors``; the GIL is released while solving and Ctrl-C cancels.
"""

from __future__ import annotations

import enum

from . import errors
from ._memplan import (
    STOPPED_GROUPS as _STOPPED_GROUPS,
    STOPPED_NAMES as _STOPPED_NAMES,
    CancelToken,
    ImportedModel,
    Problem,
    SolveResult,
    __version__,
    import_pte,
    import_tflite,
    import_xla,
    solve,
    solve_many,
    solvers,
    validate,
)
from .errors import (
    InputError,
    InvalidWarmStartError,
    Located,
    MemplanError,
    ModelError,
    RequestError,
    UnknownSolverError,
)

__all__ = [
    "CancelToken",
    "ImportedModel",
    "InputError",
    "InvalidWarmStartError",
    "Located",
    "MemplanError",
    "ModelError",
    "Problem",
    "RequestError",
    "SolveResult",
    "Stopped",
    "UnknownSolverError",
    "__version__",
    "errors",
    "import_pte",
    "import_tflite",
    "import_xla",
    "solve",
    "solve_many",
    "solvers",
    "validate",
]


class Stopped(str, enum.Enum):
    """Why a run ended (the core's ``memplan::Stopped``; the values are the CLI's ``stopped``)."""

    LOWER_BOUND = "lower_bound"
    """Optimal: the plan meets the instance's own bound (L, a pinned buffer's top, alignment)."""
    OPTIMAL = "optimal"
    """Optimal, proven by search: every lower makespan was refuted."""
    FITS = "fits"
    """A plan within the capacity was found and the run stopped there, as asked."""
    INFEASIBLE = "infeasible"
    """Proven: no plan fits the capacity (``detail`` says why)."""
    COMPLETED = "completed"
    """The heuristics ran their course: the best plan they found, no proof either way."""
    GIVEN = "given"
    """The plan came with the input (``memplan.validate``) and was checked, not searched for:
    ``optimal`` says whether a valid one meets the instance's bound; an invalid one proves nothing."""
    BUDGET = "budget"
    """The work budget ran out before a proof; a higher effort or a time limit may do better."""
    TIME_LIMIT = "time_limit"
    """The time limit passed before a proof: the best plan so far."""
    CANCELLED = "cancelled"
    """Cancelled (a ``CancelToken``, Ctrl-C): the best plan so far, if any."""

    def __str__(self) -> str:
        return self.value

    @property
    def group(self) -> str:
        """How the reason reads at a glance, by the core's rule: ``"proven"`` (optimal, or fits
        the capacity as asked), ``"heuristic"``, ``"interrupted"`` (budget, time, cancel) or
        ``"infeasible"``."""
        return _GROUPS[self.value]

    @property
    def optimal(self) -> bool:
        """The plan is proven to have the lowest makespan possible."""
        return self.value in _OPTIMAL

    @property
    def interrupted(self) -> bool:
        """The run ended before it could prove what it was asked (budget, time, cancel)."""
        return self.group == "interrupted"


# The groups are the core's (`Stopped::group`), read from it rather than copied here.
_GROUPS = {name: group for name, group, _ in _STOPPED_GROUPS}
_OPTIMAL = frozenset(name for name, _, optimal in _STOPPED_GROUPS if optimal)


if sorted(member.value for member in Stopped) != sorted(_STOPPED_NAMES):  # pragma: no cover
    raise ImportError(f"memplan.Stopped does not match the core's reasons {_STOPPED_NAMES}")
