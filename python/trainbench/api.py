"""What a user's factory returns: :class:`Components` or :class:`CustomStep`.

A matrix with ``"loop": "python"`` names a file and a function in it (the *factory*). For each
scenario trainbench's Python worker calls ``factory(settings)`` once (a
:class:`trainbench.Settings`) and runs steps of what it returns:

  * :class:`Components`: the parts of a training step. trainbench runs the step the way its C++
    trainer does and applies the scenario's axes: precision (autocast, GradScaler for amp_fp16 on
    CUDA), gradient accumulation, memory format, pinned memory + non_blocking copies, the
    optimizer and its implementation, cudnn.benchmark and torch.compile.
  * :class:`CustomStep`: a function that runs one whole optimizer step itself and returns its loss;
    the parts marked with ``trainbench.phase(name)`` are timed as phases, the rest counts in the
    step's time only. The axes are the function's to apply (``settings`` has them all;
    :func:`compile_model` applies the compile axis).
"""
from __future__ import annotations

import dataclasses
from typing import Any, Callable, Iterable, Optional

from .settings import Settings


@dataclasses.dataclass
class Components:
    """The parts of a training step, for trainbench to run.

    model:             a ``torch.nn.Module``; trainbench moves it to the scenario's device (and to
                       channels_last when asked), puts it in train mode and compiles it when the
                       compile axis says so.
    loss_fn:           ``loss_fn(outputs, targets) -> 0-d tensor``, e.g. ``torch.nn.CrossEntropyLoss()``.
    batches:           any re-iterable of ``(inputs, targets)`` pairs of one micro-batch each
                       (``settings.batch`` samples), e.g. a ``torch.utils.data.DataLoader``; iterated
                       again when exhausted. ``inputs`` may be a tensor or a list/tuple/dict of them.
    optimizer:         None (trainbench builds ``settings.optimizer`` with ``settings.learning_rate``
                       and ``settings.optimizer_impl`` over the model's parameters), a
                       ``torch.optim.Optimizer`` over the model's parameters, or a callable taking
                       the parameters and returning one.
    tokens_per_sample: tokens in one sample (for tokens/s in reports); 0 when not a token model.
    """

    model: Any
    loss_fn: Callable
    batches: Iterable
    optimizer: Any = None
    tokens_per_sample: int = 0


@dataclasses.dataclass
class CustomStep:
    """A step the user runs: ``step()`` does one optimizer step and returns its loss.

    step:              called with no arguments; returns the step's loss as a float or a
                       one-element tensor (read once with ``.item()`` after the step's time is
                       taken). Mark phases inside with ``with trainbench.phase("forward"): ...``.
    tokens_per_sample: tokens in one sample, 0 when not a token model.
    samples_per_step:  samples one call consumes; default ``settings.batch * settings.accumulation``.
    """

    step: Callable[[], Any]
    tokens_per_sample: int = 0
    samples_per_step: Optional[int] = None


def compile_model(model, settings: Settings):
    """``model`` compiled as ``settings.compile`` asks: itself for "eager", else
    ``torch.compile(model, mode=...)`` (mode None for "default")."""
    if settings.compile == "eager":
        return model
    import torch
    return torch.compile(model, mode=None if settings.compile == "default" else settings.compile)
