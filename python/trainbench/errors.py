"""Errors of a Python scenario and how an exception in user code becomes one.

Every failure the worker reports is a :class:`ScenarioError`, whose :meth:`reply` is the
protocol's error object::

    {"error": "message", "status": "failed"|"oom"|"diverged"|"skipped"|"invalid",
     "type": "ValueError", "where": "my_loop.py:42", "field": "python.function"}

(``type``, ``where`` and ``field`` only when known.) :func:`classify` maps any exception to one:

  * :class:`Skip` (raised by the user's code: this scenario cannot run here) -> ``skipped``;
  * ``torch.OutOfMemoryError``, ``MemoryError``, or a RuntimeError whose message says
    "out of memory" -> ``oom``;
  * any other exception -> ``failed``;
  * a ScenarioError -> itself.

``message`` is the first line of ``str(exc)``, at most 300 characters (the class name when empty);
``where`` is ``file:line`` of the innermost traceback frame in the user's file (its base name), or
else of the innermost frame outside this package (a path relative to the user's folder when under
it). No traceback is kept: one line says what and where.
"""
from __future__ import annotations

import os
import traceback

STATUSES = ("failed", "oom", "diverged", "skipped", "invalid")
MAX_MESSAGE = 300
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


class ScenarioError(Exception):
    """A failure with its protocol status (and, when known, type, where and the matrix field)."""

    def __init__(self, status: str, message: str, *, type: str | None = None, where: str | None = None,
                 field: str | None = None):
        assert status in STATUSES, status
        super().__init__(message)
        self.status = status
        self.message = message
        self.type = type
        self.where = where
        self.field = field

    def reply(self) -> dict:
        """The protocol's error object."""
        out = {"error": self.message, "status": self.status}
        if self.type:
            out["type"] = self.type
        if self.where:
            out["where"] = self.where
        if self.field:
            out["field"] = self.field
        return out


def first_line(text: str, limit: int = MAX_MESSAGE) -> str:
    """The first non-empty line of ``text``, cut to ``limit`` characters."""
    for line in str(text).splitlines():
        line = line.strip()
        if line:
            return line if len(line) <= limit else line[:limit - 3] + "..."
    return ""


def is_oom(exc: BaseException) -> bool:
    """True for an out-of-memory error of the device or the host."""
    import torch
    if isinstance(exc, (torch.OutOfMemoryError, MemoryError)):
        return True
    return isinstance(exc, RuntimeError) and "out of memory" in str(exc).lower()


def where(exc: BaseException, user_file: str | None) -> str | None:
    """``file:line`` of the frame to blame (see the module's docstring), or None."""
    frames = traceback.extract_tb(exc.__traceback__)
    if isinstance(exc, SyntaxError) and exc.filename and exc.lineno:
        frames.append(traceback.FrameSummary(exc.filename, exc.lineno, "<module>"))
    user = os.path.realpath(user_file) if user_file else None
    user_dir = os.path.dirname(user) + os.sep if user else None
    for frame in reversed(frames):
        if user and os.path.realpath(frame.filename) == user:
            return f"{os.path.basename(user)}:{frame.lineno}"
    for frame in reversed(frames):
        path = os.path.abspath(frame.filename)
        if path.startswith(_PACKAGE_DIR):
            continue
        if user_dir and path.startswith(user_dir):
            path = path[len(user_dir):]
        return f"{path}:{frame.lineno}"
    return None


class Skip(Exception):
    """Raised by a user's function or step when a scenario cannot run as asked (``raise
    trainbench.Skip("fused AdamW needs CUDA")``): it is recorded as skipped with that reason,
    never measured as something else."""


def classify(exc: BaseException, user_file: str | None = None) -> ScenarioError:
    """The ScenarioError that reports ``exc`` (an exception raised by or through user code)."""
    if isinstance(exc, ScenarioError):
        return exc
    if isinstance(exc, Skip):
        return ScenarioError("skipped", first_line(str(exc)) or "skipped by the user's code", where=where(exc, user_file))
    message = first_line(str(exc)) or type(exc).__name__
    status = "oom" if is_oom(exc) else "failed"
    return ScenarioError(status, message, type=type(exc).__name__, where=where(exc, user_file))
