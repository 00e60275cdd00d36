"""Per-step and per-phase clocks of one segment.

A *step timer* is told where a step starts and ends and where each phase is entered and left::

    timer.start_step(); timer.enter(FORWARD); ...; timer.exit(FORWARD); ...; timer.end_step()

and, after the segment's last step, :meth:`finish` gives ``(step_s, phase_s)``: one time per step,
and per phase that was marked at least once a list as long as ``step_s`` (0 where a step did not
mark it). A phase entered several times in one step sums; a phase entered while already open is
counted once (outer enter to outer exit).

  * :class:`CpuStepTimer`: ``time.perf_counter_ns`` at every boundary.
  * :class:`CudaStepTimer`: a ``torch.cuda.Event(enable_timing=True)`` recorded on the current
    stream at every boundary, from a pool allocated before the segment (sized for its
    ``max_steps``) and reused by later segments; one ``torch.cuda.synchronize()`` in
    :meth:`finish`, then ``elapsed_time`` of each pair. Times are the device's.
  * :class:`NullTimer`: does nothing (warm-up steps).
  * :class:`ProfileMarks`: no clock; each phase is a ``torch.profiler.record_function`` range (and
    an NVTX range when asked), for a profiling pass.

The hot path allocates nothing on the CPU (lists sized to the segment before it starts) and
formats nothing; ``elapsed_ns`` (host time of the steps so far) serves the stopping rule.
"""
from __future__ import annotations

import time

from .phases import PHASES

_NPHASES = len(PHASES)


class NullTimer:
    """A timer that times nothing (warm-up steps)."""

    __slots__ = ()

    def start_step(self):
        pass

    def enter(self, index):
        pass

    def exit(self, index):
        pass

    def end_step(self):
        pass


NULL_TIMER = NullTimer()


class _PhaseMarks:
    """Phase enter/exit with nesting of a phase in itself counted once. A subclass sets ``_clock``
    (a mark: a time, an event index) and ``_close(index, opened, closed)``."""

    def __init__(self):
        self._opened = [0] * _NPHASES
        self._depth = [0] * _NPHASES
        self._used = [False] * _NPHASES
        self._n = 0  # steps done

    def enter(self, index):
        depth = self._depth[index]
        if depth == 0:
            self._opened[index] = self._clock()
        self._depth[index] = depth + 1

    def exit(self, index):
        depth = self._depth[index] - 1
        self._depth[index] = depth
        if depth == 0:
            self._close(index, self._opened[index], self._clock())
            self._used[index] = True

    @property
    def steps(self) -> int:
        return self._n


class CpuStepTimer(_PhaseMarks):
    """Host monotonic clock (perf_counter_ns) at every boundary; up to ``max_steps`` steps."""

    def __init__(self, max_steps: int):
        super().__init__()
        self._clock = time.perf_counter_ns
        self._step_ns = [0] * max_steps
        self._phase_ns = [[0] * max_steps for _ in range(_NPHASES)]
        self._start = 0
        self.elapsed_ns = 0

    def start_step(self):
        self._start = time.perf_counter_ns()

    def _close(self, index, opened, closed):
        self._phase_ns[index][self._n] += closed - opened

    def end_step(self):
        took = time.perf_counter_ns() - self._start
        self._step_ns[self._n] = took
        self.elapsed_ns += took
        self._n += 1

    def finish(self):
        """``(step_s, phase_s)`` of the steps timed."""
        n = self._n
        step_s = [ns * 1e-9 for ns in self._step_ns[:n]]
        phase_s = {PHASES[i]: [ns * 1e-9 for ns in self._phase_ns[i][:n]]
                   for i in range(_NPHASES) if self._used[i]}
        return step_s, phase_s


class CudaEventPool:
    """Timing events kept for the scenario's life: a segment reuses the previous one's."""

    def __init__(self):
        self.events = []

    def reserve(self, count: int):
        import torch
        while len(self.events) < count:
            self.events.append(torch.cuda.Event(enable_timing=True))


class CudaStepTimer(_PhaseMarks):
    """CUDA events at every boundary, one synchronize at the end (see the module docstring)."""

    def __init__(self, max_steps: int, pool: CudaEventPool, phases_per_step: int):
        # Two events per step, two per phase mark; a step that marks more grows the pool (once).
        super().__init__()
        pool.reserve(max_steps * (2 + 2 * phases_per_step))
        self._clock = self._record
        self._events = pool.events
        self._next = 0
        # Flat, pre-sized: step, phase (-1: the step itself), start event, end event.
        self._spans = [0] * (max_steps * (1 + phases_per_step) * 4)
        self._k = 0
        self._start = 0
        self._host_start = 0
        self.elapsed_ns = 0

    def _record(self) -> int:
        i = self._next
        events = self._events
        if i == len(events):
            import torch
            events.append(torch.cuda.Event(enable_timing=True))
        events[i].record()
        self._next = i + 1
        return i

    def start_step(self):
        self._host_start = time.perf_counter_ns()
        self._start = self._record()

    def _span(self, index, a, b):
        k, spans = self._k, self._spans
        if k == len(spans):
            spans.extend([0] * 64)
        spans[k], spans[k + 1], spans[k + 2], spans[k + 3] = self._n, index, a, b
        self._k = k + 4

    _close = _span

    def end_step(self):
        self._span(-1, self._start, self._record())
        self.elapsed_ns += time.perf_counter_ns() - self._host_start
        self._n += 1

    def finish(self):
        """Synchronize once, then ``(step_s, phase_s)`` from the events' elapsed times."""
        import torch
        torch.cuda.synchronize()
        n = self._n
        events = self._events
        step_s = [0.0] * n
        columns = [[0.0] * n for _ in range(_NPHASES)]
        spans = self._spans
        for k in range(0, self._k, 4):
            step, index, a, b = spans[k], spans[k + 1], spans[k + 2], spans[k + 3]
            seconds = events[a].elapsed_time(events[b]) * 1e-3
            if index < 0:
                step_s[step] = seconds
            else:
                columns[index][step] += seconds
        phase_s = {PHASES[i]: columns[i] for i in range(_NPHASES) if self._used[i]}
        return step_s, phase_s


def make_step_timer(device, max_steps: int, pool: CudaEventPool | None, phases_per_step: int):
    """The timer for a segment of at most ``max_steps`` steps on ``device`` (a torch.device)."""
    if device.type == "cuda":
        return CudaStepTimer(max_steps, pool, phases_per_step)
    return CpuStepTimer(max_steps)


class ProfileMarks:
    """Phases as profiler ranges (record_function, plus NVTX ranges when ``nvtx``); no clock."""

    def __init__(self, nvtx: bool):
        import torch
        self._record_function = torch.autograd.profiler.record_function
        self._nvtx = torch.cuda.nvtx if nvtx else None
        self._open = [None] * _NPHASES
        self._depth = [0] * _NPHASES

    def start_step(self):
        pass

    def end_step(self):
        pass

    def enter(self, index):
        depth = self._depth[index]
        self._depth[index] = depth + 1
        if depth:
            return
        scope = self._record_function(PHASES[index])
        scope.__enter__()
        self._open[index] = scope
        if self._nvtx is not None:
            self._nvtx.range_push(PHASES[index])

    def exit(self, index):
        depth = self._depth[index] - 1
        self._depth[index] = depth
        if depth:
            return
        if self._nvtx is not None:
            self._nvtx.range_pop()
        scope, self._open[index] = self._open[index], None
        scope.__exit__(None, None, None)
