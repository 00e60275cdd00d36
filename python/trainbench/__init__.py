"""trainbench's Python side: measure your own PyTorch training loop with trainbench.

A matrix with ``"loop": "python"`` names a file and a factory function in it. The factory takes a
:class:`Settings` (one scenario's value on every axis) and returns either

  * :class:`Components` (model, loss function, batches, optionally an optimizer): trainbench runs
    the step and applies precision, accumulation, optimizer, compile and the other axes; or
  * :class:`CustomStep` (a function doing one optimizer step and returning its loss), marking its
    parts with ``with trainbench.phase("forward"): ...``.

The harness runs it in ``python -m trainbench.worker`` processes (see trainbench/worker.py).
"""
from .api import Components, CustomStep, compile_model
from .errors import Skip
from .phases import PHASES, phase
from .settings import Settings

__all__ = ["Components", "CustomStep", "PHASES", "Settings", "Skip", "compile_model", "phase"]
