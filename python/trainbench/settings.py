"""The settings of one scenario, as the user's factory receives them.

The harness expands a matrix into scenarios; each scenario's value on every axis reaches the
Python worker as the ``settings`` object of a ``build`` request (docs/python-loop protocol) and is
handed to the user's factory as a :class:`Settings`. The factory reads what it needs (``batch``
and ``workers`` for its DataLoader, ``user`` for its own axes, ...); in Components mode trainbench
applies the rest itself (precision, accumulation, optimizer, compile, memory format, pinned
memory, cudnn.benchmark).

Contract:
  * ``Settings`` is immutable (a frozen dataclass); ``user``, ``dataset_options`` and
    ``model_options`` are plain dicts the factory should treat as read-only.
  * :meth:`Settings.from_dict` accepts the protocol's object; absent keys take the defaults below,
    unknown keys are ignored (a newer harness may send more), and a value outside its allowed set
    raises :class:`SettingsError` naming the key.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Mapping

PRECISIONS = ("fp32", "tf32", "amp_fp16", "amp_bf16")
OPTIMIZERS = ("adam", "adamw", "sgd")
OPTIMIZER_IMPLS = ("for_loop", "foreach", "fused")
COMPILE_MODES = ("eager", "default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")
MEMORY_FORMATS = ("contiguous", "channels_last")


class SettingsError(ValueError):
    """A settings value the worker cannot use; ``key`` names it."""

    def __init__(self, key: str, message: str):
        super().__init__(message)
        self.key = key


@dataclasses.dataclass(frozen=True)
class Settings:
    """One scenario's settings (the ``settings`` object of the protocol's ``build`` request)."""

    id: str = ""
    model: str = ""    # the matrix's model name (a Python loop's function may build several)
    dataset: str = ""  # the matrix's dataset name, empty when it names none
    device: str = "cpu"
    precision: str = "fp32"
    workers: int = 0
    accumulation: int = 1
    batch: int = 64
    seed: int = 42
    learning_rate: float = 1e-3
    optimizer: str = "adam"
    optimizer_impl: str = "for_loop"
    compile: str = "eager"
    memory_format: str = "contiguous"
    pin_memory: bool = False
    cudnn_benchmark: bool = False
    cuda_graphs: bool = False
    threads: int = 0
    user: dict = dataclasses.field(default_factory=dict)
    dataset_options: dict = dataclasses.field(default_factory=dict)
    model_options: dict = dataclasses.field(default_factory=dict)

    @property
    def is_cuda(self) -> bool:
        """True when the scenario runs on a CUDA device."""
        return self.device.startswith("cuda")

    @property
    def device_type(self) -> str:
        """``"cuda"`` or ``"cpu"``: the device type autocast and GradScaler take."""
        return "cuda" if self.is_cuda else "cpu"

    @property
    def compiled(self) -> bool:
        """True when the scenario's compile axis asks for torch.compile."""
        return self.compile != "eager"

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> "Settings":
        """Build from the protocol's settings object; raises SettingsError for a bad value."""
        if not isinstance(raw, Mapping):
            raise SettingsError("settings", f"settings must be a JSON object, got {type(raw).__name__}")
        values = {}
        for field in dataclasses.fields(cls):
            if field.name not in raw or raw[field.name] is None:
                continue
            values[field.name] = _coerce(field.name, raw[field.name], field.default, field.default_factory)
        settings = cls(**values)
        settings._validate()
        return settings

    def _validate(self) -> None:
        for key, allowed in (("precision", PRECISIONS), ("optimizer", OPTIMIZERS),
                             ("optimizer_impl", OPTIMIZER_IMPLS), ("compile", COMPILE_MODES),
                             ("memory_format", MEMORY_FORMATS)):
            value = getattr(self, key)
            if value not in allowed:
                raise SettingsError(key, f"settings.{key} is {value!r}; allowed: {', '.join(allowed)}")
        if not (self.device == "cpu" or self.device == "cuda" or self.device.startswith("cuda:")):
            raise SettingsError("device", f"settings.device is {self.device!r}; allowed: cpu, cuda, cuda:N")
        for key in ("accumulation", "batch"):
            if getattr(self, key) < 1:
                raise SettingsError(key, f"settings.{key} must be >= 1, got {getattr(self, key)}")
        for key in ("workers", "threads"):
            if getattr(self, key) < 0:
                raise SettingsError(key, f"settings.{key} must be >= 0, got {getattr(self, key)}")


def _coerce(key, value, default, default_factory):
    """The value with the field's type; SettingsError when it has another."""
    if default_factory is not dataclasses.MISSING:  # the three dicts
        if not isinstance(value, dict):
            raise SettingsError(key, f"settings.{key} must be a JSON object, got {type(value).__name__}")
        return dict(value)
    kind = type(default)
    if kind is bool:
        if not isinstance(value, bool):
            raise SettingsError(key, f"settings.{key} must be true or false, got {value!r}")
        return value
    if kind is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise SettingsError(key, f"settings.{key} must be an integer, got {value!r}")
        return value
    if kind is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise SettingsError(key, f"settings.{key} must be a number, got {value!r}")
        return float(value)
    if not isinstance(value, str):
        raise SettingsError(key, f"settings.{key} must be a string, got {value!r}")
    return value
