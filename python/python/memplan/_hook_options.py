"""The solve options a toolchain hook (``memplan.executorch``, ``memplan.tvm``) takes, kept in one
place so that both hooks accept the same ones and check them the same way."""

from __future__ import annotations

from typing import Any, Dict, Mapping, Optional


def solve_options(
    solver: str,
    effort: Optional[str],
    time_limit: Optional[float],
    seed: int,
    threads: Optional[int],
    params: Optional[Mapping[str, object]],
) -> Dict[str, Any]:
    """``memplan.solve``'s keyword arguments for these options (the ones left at ``None`` are
    left out, so the core's defaults apply).

    A misspelt option is the caller's mistake, not a planning failure for the hook to fall back
    from: the core checks the options here, once, on an empty instance, and raises its own error
    (``memplan.UnknownSolverError``, ``memplan.RequestError``).
    """
    import memplan

    options: Dict[str, Any] = {"solver": solver, "seed": seed}
    for key, value in (("effort", effort), ("time_limit", time_limit), ("threads", threads), ("params", params)):
        if value is not None:
            options[key] = value
    memplan.solve(memplan.Problem.from_arrays([], [], []), **options)
    return options
