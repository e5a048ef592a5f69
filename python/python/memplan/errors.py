"""The exceptions memplan raises. Every one is a ``ValueError`` (the input or the request is
wrong, not the machine), and each kind has its own class, so that callers catch a kind of
error instead of matching messages. File system errors stay ``OSError``s."""

from __future__ import annotations

from typing import NamedTuple, Optional, Sequence, Tuple

__all__ = [
    "MemplanError",
    "InputError",
    "Located",
    "RequestError",
    "UnknownSolverError",
    "InvalidWarmStartError",
    "ModelError",
]


class MemplanError(ValueError):
    """The base class of memplan's errors."""


class Located(NamedTuple):
    """One problem of an input, where the input says it: a 1-based line and column (``None``
    when the input has no lines, e.g. arrays, or the place is not known)."""

    line: Optional[int]
    column: Optional[int]
    message: str


class InputError(MemplanError):
    """An instance that cannot be read or built: ``errors`` lists every problem found (so that
    all can be fixed in one go), ``line`` and ``column`` are the first one's place, ``file``
    the file it came from (``None`` for text or arrays)."""

    errors: Tuple[Located, ...]
    line: Optional[int]
    column: Optional[int]
    file: Optional[str]

    def __init__(
        self,
        message: str,
        errors: Sequence[Tuple[Optional[int], Optional[int], str]] = (),
        file: Optional[str] = None,
    ) -> None:
        super().__init__(message)
        self.errors = tuple(Located(*error) for error in errors)
        first = self.errors[0] if self.errors else Located(None, None, message)
        self.line = first.line
        self.column = first.column
        self.file = file


class RequestError(MemplanError):
    """A solve request that cannot be served: a parameter the solver does not have, a value it
    cannot use (a negative time limit, a thread count out of range, a bad capacity)."""


class UnknownSolverError(RequestError):
    """No solver has this name (``memplan.solvers()`` lists them)."""


class InvalidWarmStartError(RequestError):
    """The warm start plan is not a valid plan of the instance; the message names the problem."""


class ModelError(MemplanError):
    """A model file the importers refuse: ``kind`` is ``"malformed"`` (not a readable model),
    ``"unsupported"`` (something the arena cannot be planned for from the file alone, e.g. a
    custom operator) or ``"request"`` (a subgraph or trace the model lacks, a bad option);
    ``path`` is the file."""

    kind: str
    path: str

    def __init__(self, message: str, kind: str = "malformed", path: str = "") -> None:
        super().__init__(message)
        self.kind = kind
        self.path = path
