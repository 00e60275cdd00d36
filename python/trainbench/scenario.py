"""One Python scenario held by a worker: built once, then measured segment by segment.

:meth:`Scenario.run` answers a ``run`` request with a ``segment`` object:

  * **Compile step.** For a compiled scenario (``settings.compile`` != "eager") the first step
    ever runs first, alone: compilation happens there. Its wall time is ``compile.first_step_s``
    and its loss the first of ``unmeasured_loss``; it is neither a warm-up nor a measured step.
    (When a ``profile`` request comes before any ``run``, it runs the compile step outside the
    trace, and the first segment after it reports ``first_step_s`` without that loss.)
  * **Warm-up.** Up to ``warmup`` unmeasured steps, stopping early once ``warmup_budget_s`` of wall
    time is spent (at least one step when ``warmup`` > 0). For a compiled scenario warm-up then
    goes on until the compiled step is steady: until the last two warm-up steps' wall times are
    within 20% of each other (the larger at most 1.2 x the smaller), with at most 50 extra steps
    and within the same ``warmup_budget_s`` (the budget starts after the compile step).
    ``warmup_steps`` counts the warm-up steps of this segment (not the compile step).
  * **Measured steps.** Until ``max_steps`` steps, or ``min_steps`` steps and a measured step
    time so far of at least ``budget_s``. Timed by timing.py (CUDA events or perf_counter_ns),
    phases included; nothing crosses the process boundary in between.
  * ``compile.recompiles``: graphs Dynamo compiled after the first step, cumulative over the
    scenario (the growth of ``torch._dynamo.utils.counters["stats"]["unique_graphs"]`` since the
    end of the compile step; a guard failure that recompiles adds one per new graph).
  * ``peak_bytes``: ``torch.cuda.max_memory_allocated`` on CUDA (since the worker started), else
    the process's peak resident set (``ru_maxrss``).
  * A non-finite loss stops the segment: ScenarioError("diverged"). Any error kills the scenario:
    every later ``run`` or ``profile`` answers the same error.
"""
from __future__ import annotations

import math
import os
import resource
import sys
import time
import warnings

import torch

from . import loader
from .errors import ScenarioError, classify
from .phases import set_recorder
from .settings import Settings, SettingsError
from .step_runner import graph_refusal, make_runner, prepare_backend
from .timing import NULL_TIMER, CudaEventPool, ProfileMarks, make_step_timer

STEADY_RATIO = 1.2
STEADY_MAX_EXTRA = 50


def _unique_graphs() -> int:
    from torch._dynamo.utils import counters
    return int(counters["stats"]["unique_graphs"])


def finite_or_none(value: float):
    return value if math.isfinite(value) else None


def _int_field(request: dict, key: str, default=None, minimum=0):
    value = request.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ScenarioError("invalid", f"run.{key} must be an integer >= {minimum}, got {value!r}")
    return value


def _seconds_field(request: dict, key: str, default=None):
    value = request.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
        raise ScenarioError("invalid", f"run.{key} must be a number of seconds >= 0, got {value!r}")
    return float(value)


class Scenario:
    """A built scenario (see the module docstring). Construct with :meth:`build`."""

    def __init__(self, settings: Settings, file: str, runner, mode: str, build_s: float):
        self.settings = settings
        self.file = os.path.abspath(file)
        self.runner = runner
        self.mode = mode
        self.build_s = build_s
        self.error: ScenarioError | None = None
        self._compiled = settings.compiled
        self._first_step_done = False
        self._first_step_s = None
        self._graphs_after_first = 0
        self._pool = CudaEventPool() if runner.device.type == "cuda" else None

    @classmethod
    def build(cls, file: str, function: str, raw_settings) -> "Scenario":
        """Import, call and check the factory; raises ScenarioError."""
        start = time.perf_counter()
        try:
            settings = Settings.from_dict(raw_settings)
        except SettingsError as exc:
            raise ScenarioError("invalid", str(exc), field=f"settings.{exc.key}") from None
        torch.manual_seed(settings.seed)  # module-level code of the user's file is seeded too
        if settings.threads > 0:
            torch.set_num_threads(settings.threads)
        factory = loader.load_factory(file, function)
        device = prepare_backend(settings)  # seeds again: the factory starts from the seed
        built = loader.call_factory(factory, settings, file, function)
        try:
            runner = make_runner(built, settings, device)
            if settings.cuda_graphs and device.type == "cuda" and loader.mode_of(built) == "components":
                refusal = graph_refusal(settings, runner.optimizer)
                if refusal:
                    raise ScenarioError("skipped", refusal)
                runner.prepare_graph()
        except ScenarioError:
            raise
        except Exception as exc:
            raise classify(exc, os.path.abspath(file)) from None
        return cls(settings, file, runner, loader.mode_of(built), time.perf_counter() - start)

    def built_reply(self) -> dict:
        return {"build_s": self.build_s, "mode": self.mode, "parameters": self.runner.parameters,
                "samples_per_step": self.runner.samples_per_step,
                "tokens_per_sample": self.runner.tokens_per_sample}

    # ------------------------------------------------------------------ steps

    def _guarded(self, work):
        """``work()``, with any exception turned into the scenario's (sticky) error."""
        if self.error is not None:
            raise self.error
        try:
            return work()
        except Exception as exc:
            self.error = classify(exc, self.file)
        finally:
            set_recorder(None)
        raise self.error

    def _unmeasured_step(self, losses: list, what: str) -> float:
        """One step outside the timed region; its wall time (the loss is read, so a CUDA step is over)."""
        start = time.perf_counter()
        loss = self.runner.step(NULL_TIMER)
        took = time.perf_counter() - start
        losses.append(loss)
        self._check_finite(loss, what, len(losses))
        return took

    @staticmethod
    def _check_finite(loss: float, what: str, number: int):
        if not math.isfinite(loss):
            raise ScenarioError("diverged", f"the loss is {loss} at {what} step {number} of this segment")

    def _compile_step_if_due(self, losses: list):
        """Run the first step of a compiled scenario when it has not run yet (its wall time is kept
        for the next segment's ``compile.first_step_s``)."""
        if not self._compiled or self._first_step_done:
            return None
        self._first_step_s = self._unmeasured_step(losses, "compile")
        self._first_step_done = True
        self._graphs_after_first = _unique_graphs()

    def run(self, request: dict) -> dict:
        """Answer a ``run`` request: the ``segment`` object (see the module docstring)."""
        warmup = _int_field(request, "warmup", 0)
        warmup_budget_s = _seconds_field(request, "warmup_budget_s", math.inf)
        min_steps = _int_field(request, "min_steps", 1, minimum=1)
        max_steps = _int_field(request, "max_steps", None, minimum=1)
        budget_s = _seconds_field(request, "budget_s", 0.0)
        min_steps = min(min_steps, max_steps)
        return self._guarded(lambda: self._segment(warmup, warmup_budget_s, min_steps, max_steps, budget_s))

    def _segment(self, warmup, warmup_budget_s, min_steps, max_steps, budget_s) -> dict:
        unmeasured = []
        segment = {}
        self._compile_step_if_due(unmeasured)
        if self._first_step_s is not None:  # reported once, by the first segment after it ran
            segment["first_step_s"], self._first_step_s = self._first_step_s, None
        # Warm-up: the requested steps, then (compiled) until two consecutive ones agree.
        started = time.perf_counter()
        times = []
        while len(times) < warmup and (not times or time.perf_counter() - started < warmup_budget_s):
            times.append(self._unmeasured_step(unmeasured, "warm-up"))
        if self._compiled and warmup > 0:
            extra = 0
            while (extra < STEADY_MAX_EXTRA and time.perf_counter() - started < warmup_budget_s
                   and not (len(times) >= 2 and max(times[-2:]) <= STEADY_RATIO * min(times[-2:]))):
                times.append(self._unmeasured_step(unmeasured, "warm-up"))
                extra += 1
        # Measured steps.
        runner = self.runner
        timer = make_step_timer(runner.device, max_steps, self._pool, runner.phases_per_step_hint)
        losses = [0.0] * max_steps
        budget_ns = budget_s * 1e9
        step = runner.step
        set_recorder(timer)
        n = 0
        while n < max_steps:
            loss = step(timer)
            losses[n] = loss
            n += 1
            if not math.isfinite(loss):
                set_recorder(None)
                self._check_finite(loss, "measured", n)
            if n >= min_steps and timer.elapsed_ns >= budget_ns:
                break
        set_recorder(None)
        step_s, phase_s = timer.finish()
        out = {"warmup_steps": len(times), "unmeasured_loss": [finite_or_none(x) for x in unmeasured],
               "step_s": step_s, "loss": losses[:n], "phase_s": phase_s}
        if self._compiled:
            segment["recompiles"] = _unique_graphs() - self._graphs_after_first
            out["compile"] = segment
        out["peak_bytes"] = self._peak_bytes()
        return out

    def _peak_bytes(self) -> int:
        if self.runner.device.type == "cuda":
            return int(torch.cuda.max_memory_allocated(self.runner.device))
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return int(peak if sys.platform == "darwin" else peak * 1024)  # macOS reports bytes, Linux KiB

    # ------------------------------------------------------------------ profiling

    def profile(self, request: dict) -> dict:
        """Answer a ``profile`` request: ``steps`` steps under torch.profiler, each phase a
        record_function range (and an NVTX range on CUDA when ``nvtx``), ``prof.step()`` after each
        step (so the trace has ProfilerStep#N), the Chrome trace written to ``trace``."""
        steps = _int_field(request, "steps", None, minimum=1)
        trace = request.get("trace")
        if not isinstance(trace, str) or not trace:
            raise ScenarioError("invalid", f"profile.trace must be a file path, got {trace!r}")
        nvtx = bool(request.get("nvtx", False)) and self.runner.device.type == "cuda"
        return self._guarded(lambda: self._profile(steps, os.path.abspath(trace), nvtx))

    def _profile(self, steps: int, trace: str, nvtx: bool) -> dict:
        from torch.profiler import ProfilerActivity, profile, schedule
        activities = [ProfilerActivity.CPU]
        if self.runner.device.type == "cuda":
            activities.append(ProfilerActivity.CUDA)
        folder = os.path.dirname(trace)
        if folder:
            os.makedirs(folder, exist_ok=True)
        losses = []
        self._compile_step_if_due(losses)  # compilation stays out of the trace
        marks = ProfileMarks(nvtx)
        set_recorder(marks)
        # A schedule makes the profiler record a ProfilerStep#N range per prof.step(). No profiler
        # warm-up step: the scenario is warm (its segments ran), and the steps asked for are the trace.
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Profiler won't be using warmup")
            warnings.filterwarnings("ignore", message=".*Profiler clears events at the end of each cycle")
            with profile(activities=activities, schedule=schedule(wait=0, warmup=0, active=steps, repeat=1),
                         on_trace_ready=lambda p: p.export_chrome_trace(trace)) as prof:
                for _ in range(steps):
                    loss = self.runner.step(marks)
                    prof.step()
                    losses.append(loss)
                    self._check_finite(loss, "profiled", len(losses))
        set_recorder(None)
        if self.runner.device.type == "cuda":
            torch.cuda.synchronize()
        return {"trace": trace, "steps": steps}
