"""Phase names and ``trainbench.phase``, the marker a custom step puts around its parts.

A step is split into the phases of trainbench's C++ trainer, in this order:

    data_wait  waiting for the next batch (the DataLoader's ``next``)
    h2d        copying it to the device
    forward    model + loss (under autocast)
    backward   the backward pass
    optimizer  optimizer step and zero_grad

Contract of :func:`phase`:
  * ``phase(name)`` returns a context manager; an unknown name raises ValueError listing the
    allowed ones (checked on every call, also outside a timed step).
  * Outside a timed step (warm-up, a plain ``python my_loop.py`` run) entering and leaving it does
    nothing but one global read: a few hundred nanoseconds.
  * Inside a timed step the time between entering and leaving is added to the phase's time for that
    step; a phase marked several times in one step (once per micro-batch, say) sums. A phase entered
    again while it is already open (nested in itself) is counted once, from the outer enter to the
    outer exit. Different phases should not overlap: time inside two phases counts in both.
  * Time a step spends in no marked phase is in the step's time only.
"""
from __future__ import annotations

PHASES = ("data_wait", "h2d", "forward", "backward", "optimizer")
DATA_WAIT, H2D, FORWARD, BACKWARD, OPTIMIZER = range(len(PHASES))

# The recorder of the timed step in progress (a timing.*Timer), or None. Set by the step runner
# for a segment's measured steps and for a profiling pass; read by every phase scope.
_recorder = None


def set_recorder(recorder) -> None:
    """Route phase marks to ``recorder`` (None: phase marks are no-ops). For the step runner."""
    global _recorder
    _recorder = recorder


class _Scope:
    """The context manager of one phase; one shared instance per phase name."""

    __slots__ = ("index",)

    def __init__(self, index: int):
        self.index = index

    def __enter__(self):
        recorder = _recorder
        if recorder is not None:
            recorder.enter(self.index)
        return self

    def __exit__(self, exc_type, exc, tb):
        recorder = _recorder
        if recorder is not None:
            recorder.exit(self.index)
        return False

    def __repr__(self):
        return f"trainbench.phase({PHASES[self.index]!r})"


_SCOPES = {name: _Scope(i) for i, name in enumerate(PHASES)}


def phase(name: str) -> _Scope:
    """The context manager that charges the time inside it to phase ``name`` of the current step."""
    try:
        return _SCOPES[name]
    except (KeyError, TypeError):
        raise ValueError(f"trainbench.phase({name!r}): unknown phase; allowed: {', '.join(PHASES)}") from None
