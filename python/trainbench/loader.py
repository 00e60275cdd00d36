"""Loading the user's file, calling its factory and checking what it returned.

Contract:
  * :func:`load_factory` imports ``file`` as a module (``importlib.util.spec_from_file_location``,
    the file's folder first on ``sys.path`` so that it can import its neighbours) and returns the
    function named ``function``. A missing file, a file that does not parse, a missing or
    non-callable function raise ScenarioError("invalid") with ``field`` "python.file" or
    "python.function" and a message naming the file and the function; an exception while the
    module runs is classified like any exception in user code (see errors.py).
  * :func:`validate` accepts a Components, a CustomStep, or a dict with Components' keys (which it
    turns into a Components), and raises ScenarioError("invalid", field="python.function") for
    anything else, saying what came back and what to return instead.
"""
from __future__ import annotations

import dataclasses
import importlib.util
import inspect
import os
import sys

from .api import Components, CustomStep
from .errors import ScenarioError, classify

_RETURN_HINT = ("return trainbench.Components(model=..., loss_fn=..., batches=...) "
                "or trainbench.CustomStep(step=...)")
_COMPONENT_KEYS = tuple(f.name for f in dataclasses.fields(Components))
_REQUIRED_KEYS = ("model", "loss_fn", "batches")


def load_factory(file: str, function: str):
    """The callable ``function`` of the Python file ``file`` (see the module docstring)."""
    path = os.path.abspath(file)
    name = os.path.basename(path)
    if not os.path.isfile(path):
        raise ScenarioError("invalid", f"{file}: no such file (the factory {function}() is looked for there)",
                            field="python.file")
    folder = os.path.dirname(path)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    module_name = "trainbench_user_" + "".join(c if c.isalnum() else "_" for c in os.path.splitext(name)[0])
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ScenarioError("invalid", f"{file}: not a Python file that can be imported", field="python.file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        error = classify(exc, path)
        raise ScenarioError("invalid", f"{name}: {error.message}", type=error.type, where=error.where,
                            field="python.file") from None
    except Exception as exc:
        raise classify(exc, path) from None
    factory = getattr(module, function, None)
    if factory is None:
        defined = sorted(k for k, v in vars(module).items()
                         if inspect.isfunction(v) and not k.startswith("_") and v.__module__ == module_name)
        listing = f" (it defines: {', '.join(defined)})" if defined else ""
        raise ScenarioError("invalid", f"{name} has no function {function}(){listing}", field="python.function")
    if not callable(factory):
        raise ScenarioError("invalid", f"{name}: {function} is a {type(factory).__name__}, not a function",
                            field="python.function")
    return factory


def call_factory(factory, settings, file: str, function: str):
    """``factory(settings)``, validated; an exception inside it is classified (errors.py)."""
    try:
        built = factory(settings)
    except Exception as exc:
        raise classify(exc, os.path.abspath(file)) from None
    return validate(built, file, function)


def validate(built, file: str, function: str):
    """``built`` as a Components or CustomStep, or ScenarioError("invalid")."""
    name = os.path.basename(file)

    def invalid(what):
        return ScenarioError("invalid", f"{name}: {function}() {what}; {_RETURN_HINT}", field="python.function")

    if isinstance(built, dict):
        unknown = sorted(set(built) - set(_COMPONENT_KEYS))
        missing = [k for k in _REQUIRED_KEYS if k not in built]
        if unknown or missing:
            parts = ([f"unknown keys {', '.join(map(repr, unknown))}"] if unknown else []) + \
                    ([f"no {', '.join(map(repr, missing))}"] if missing else [])
            raise invalid(f"returned a dict with {' and '.join(parts)}")
        built = Components(**built)
    if isinstance(built, CustomStep):
        if not callable(built.step):
            raise invalid(f"returned a CustomStep whose step is a {type(built.step).__name__}, not a function")
        return built
    if not isinstance(built, Components):
        raise invalid(f"returned {'None' if built is None else 'a ' + type(built).__name__}")
    import torch
    if not isinstance(built.model, torch.nn.Module):
        raise invalid(f"returned Components whose model is a {type(built.model).__name__}, not a torch.nn.Module")
    if not callable(built.loss_fn):
        raise invalid(f"returned Components whose loss_fn is a {type(built.loss_fn).__name__}, not callable")
    if not hasattr(built.batches, "__iter__"):
        raise invalid(f"returned Components whose batches is a {type(built.batches).__name__}, not iterable")
    if built.optimizer is not None and not (isinstance(built.optimizer, torch.optim.Optimizer)
                                            or callable(built.optimizer)):
        raise invalid(f"returned Components whose optimizer is a {type(built.optimizer).__name__}; give None, "
                      "a torch.optim.Optimizer or a callable taking the parameters")
    return built


def mode_of(built) -> str:
    """``"custom"`` or ``"components"``."""
    return "custom" if isinstance(built, CustomStep) else "components"
