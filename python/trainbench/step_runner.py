"""Running one optimizer step of what the user's factory returned.

:class:`ComponentsRunner` is trainbench's C++ step (``trainbench/training/torch/trainer.cpp``)
rebuilt in Python. Per optimizer step, for each of ``settings.accumulation`` micro-batches:

    data_wait  ``next(iterator)`` over ``batches`` (a new iterator when it is exhausted)
    h2d        ``.to(device, non_blocking=settings.pin_memory)``; 4-d inputs also to
               ``channels_last`` when ``settings.memory_format`` says so
    forward    ``loss_fn(model(inputs), targets)`` under autocast (amp_bf16: bfloat16, amp_fp16:
               float16, fp32/tf32: none), divided by the accumulation when it is > 1
    backward   ``scaler.scale(loss).backward()`` (the GradScaler is on only for amp_fp16 on CUDA)

then ``optimizer``: ``scaler.step(opt)``, ``scaler.update()`` (or ``opt.step()``) and
``opt.zero_grad(set_to_none=True)``. The step's loss is the mean over its micro-batches, read after
the step's time is taken, as the C++ trainer does: one ``.item()`` when there is one micro-batch; on
the CPU the sum of each micro-batch's ``.item()`` (each a load); on CUDA one ``.item()`` of their
stacked sum.

With ``settings.cuda_graphs`` on CUDA, :meth:`ComponentsRunner.prepare_graph` (called at build)
captures forward, backward and optimizer of all micro-batches as one CUDA graph after 3 eager
steps, as trainer.cpp does; each later step copies its batches into the static inputs and replays
(the replay is charged to forward). Refused ("skipped", :func:`graph_refusal`) with amp_fp16, with
torch.compile, and with an optimizer that keeps its step count on the host; trainbench's own Adam
and AdamW are built with ``capturable=True`` for it. Not yet run on a GPU by its tests here.

:class:`CustomRunner` calls the user's ``step()`` between the step's start and end marks and reads
the loss it returns the same way.

Both expose ``step(timer) -> float``, ``parameters`` (the model's parameter count, 0 for a custom
step), ``samples_per_step``, ``tokens_per_sample`` and ``device``.

:func:`prepare_backend` applies the settings that are process-wide (seed, threads, TF32,
cudnn.benchmark, the current CUDA device) and refuses, with status "skipped", what cannot run here.
"""
from __future__ import annotations

import torch

from .api import Components, CustomStep, compile_model
from .errors import ScenarioError
from .phases import BACKWARD, DATA_WAIT, FORWARD, H2D, OPTIMIZER
from .settings import Settings

_CPU_REFUSED = {
    "tf32": "TF32 is a CUDA tensor-core mode; no CPU equivalent",
    "amp_fp16": "float16 autocast is not a meaningful CPU training mode (CPU float16 kernels mostly compute "
                "in float32 and fp16 needs loss scaling); use amp_bf16 on CPU",
}
_AUTOCAST_DTYPES = {"amp_bf16": torch.bfloat16, "amp_fp16": torch.float16}


def prepare_backend(settings: Settings) -> torch.device:
    """Apply the process-wide settings; the scenario's device. ScenarioError("skipped") when the
    scenario cannot run on this machine."""
    device = torch.device(settings.device)
    if device.type == "cuda":
        if not torch.cuda.is_available():
            raise ScenarioError("skipped", f"{settings.device}: no CUDA device available to torch {torch.__version__}")
        if device.index is not None:
            torch.cuda.set_device(device)
        else:
            device = torch.device("cuda", torch.cuda.current_device())
        tf32 = settings.precision == "tf32"  # fp32 means fp32: TF32 explicitly off, as in C++
        torch.backends.cuda.matmul.allow_tf32 = tf32
        torch.backends.cudnn.allow_tf32 = tf32
        if settings.precision == "amp_bf16" and not torch.cuda.is_bf16_supported(including_emulation=False):
            raise ScenarioError("skipped", "bfloat16 needs compute capability >= 8.0 (Ampere)")
    else:
        if settings.precision in _CPU_REFUSED:
            raise ScenarioError("skipped", _CPU_REFUSED[settings.precision])
        if settings.cuda_graphs:
            raise ScenarioError("skipped", "cuda_graphs needs a CUDA device; this scenario runs on the CPU")
    torch.backends.cudnn.benchmark = settings.cudnn_benchmark
    if settings.threads > 0:
        torch.set_num_threads(settings.threads)
    torch.manual_seed(settings.seed)
    return device


def build_optimizer(spec, parameters, settings: Settings):
    """The optimizer: ``spec`` itself when it is one, ``spec(parameters)`` when callable, else
    ``settings.optimizer`` with ``settings.learning_rate`` and ``settings.optimizer_impl``
    (for_loop: foreach=False, foreach: foreach=True, fused: fused=True)."""
    if isinstance(spec, torch.optim.Optimizer):
        return spec
    parameters = list(parameters)
    if spec is not None:
        optimizer = spec(parameters)
        if not isinstance(optimizer, torch.optim.Optimizer):
            raise ScenarioError("invalid", f"Components.optimizer(parameters) returned {type(optimizer).__name__}, "
                                           "not a torch.optim.Optimizer", field="python.function")
        return optimizer
    impl = {"for_loop": {"foreach": False}, "foreach": {"foreach": True}, "fused": {"fused": True}}
    options = dict(impl[settings.optimizer_impl])
    if settings.cuda_graphs and settings.optimizer != "sgd" and settings.optimizer_impl != "fused":
        options["capturable"] = True  # step counts on the device, so that a graph replay advances them
    kind = {"adam": torch.optim.Adam, "adamw": torch.optim.AdamW, "sgd": torch.optim.SGD}[settings.optimizer]
    return kind(parameters, lr=settings.learning_rate, **options)


def graph_refusal(settings: Settings, optimizer) -> str | None:
    """Why a Components step cannot be captured as one CUDA graph, or None."""
    if settings.precision == "amp_fp16":
        return "cuda_graphs with amp_fp16: the GradScaler's skipped steps are host decisions a graph cannot replay"
    if settings.compiled:
        return "cuda_graphs with torch.compile: use compile \"reduce-overhead\", which captures graphs itself"
    defaults = optimizer.defaults
    if not (isinstance(optimizer, torch.optim.SGD) or defaults.get("capturable") or defaults.get("fused")):
        return (f"cuda_graphs: {type(optimizer).__name__} keeps its step count on the host, which a replay would "
                "freeze; build it with capturable=True or fused=True (trainbench's own does)")
    return None


def _to_device(value, device, non_blocking, channels_last):
    """``value`` (a tensor, or a list/tuple/dict of them) on ``device``."""
    if isinstance(value, torch.Tensor):
        if channels_last and value.dim() == 4:
            return value.to(device, non_blocking=non_blocking, memory_format=torch.channels_last)
        return value.to(device, non_blocking=non_blocking)
    if isinstance(value, (list, tuple)):
        return type(value)(_to_device(v, device, non_blocking, channels_last) for v in value)
    if isinstance(value, dict):
        return {k: _to_device(v, device, non_blocking, channels_last) for k, v in value.items()}
    return value


def count_parameters(model) -> int:
    return sum(p.numel() for p in model.parameters())


def _read_loss(losses, cuda: bool) -> float:
    """The step's loss from its micro-batch losses (already divided by their count)."""
    if len(losses) == 1:
        return losses[0].item()
    if not cuda:
        return sum(loss.item() for loss in losses)
    return torch.stack(losses).sum().item()


class ComponentsRunner:
    """Runs Components' step as the C++ trainer does (see the module docstring)."""

    phases_per_step_hint = 5

    def __init__(self, parts: Components, settings: Settings, device: torch.device):
        model = parts.model
        self.parameters = count_parameters(model)
        channels_last = settings.memory_format == "channels_last"
        model = model.to(device, memory_format=torch.channels_last) if channels_last else model.to(device)
        model.train()
        self.model = compile_model(model, settings)
        self.optimizer = build_optimizer(parts.optimizer, self.model.parameters(), settings)
        self.loss_fn = parts.loss_fn
        self.batches = parts.batches
        self.device = device
        self.samples_per_step = settings.batch * settings.accumulation
        self.tokens_per_sample = int(parts.tokens_per_sample or 0)
        self.phases_per_step_hint = 4 * settings.accumulation + 1
        self._cuda = device.type == "cuda"
        self._k = settings.accumulation
        self._inv_k = 1.0 / settings.accumulation
        self._non_blocking = settings.pin_memory
        self._channels_last = channels_last
        # .to("cpu") of a CPU tensor returns it unchanged: skip the calls (the h2d phase stays, ~0).
        self._h2d_noop = device.type == "cpu" and not channels_last
        dtype = _AUTOCAST_DTYPES.get(settings.precision)
        # One autocast object, entered once per micro-batch (sequential reuse is what it supports).
        self._autocast = torch.autocast(device.type, dtype=dtype) if dtype is not None else None
        scaler_on = settings.precision == "amp_fp16" and self._cuda
        self._scaler = torch.amp.GradScaler("cuda") if scaler_on else None
        self._losses = [None] * self._k
        self._iterator = iter(self.batches)
        self._graph = None
        self._precision_dtype = dtype

    def _next_batch(self):
        try:
            return next(self._iterator)
        except StopIteration:
            pass
        self._iterator = iter(self.batches)
        try:
            return next(self._iterator)
        except StopIteration:
            raise ScenarioError(
                "failed", "Components.batches yielded nothing after a restart: give a re-iterable "
                          "(a DataLoader, a list), not a generator or an exhausted iterator",
                field="python.function") from None

    def prepare_graph(self, eager_steps: int = 3):
        """Capture forward, backward and optimizer step of all micro-batches as one CUDA graph
        (trainer.cpp's prepare_graph): ``eager_steps`` eager steps on a side stream, static input
        tensors, gradients unset, capture. Later steps copy each batch into the static inputs and
        replay. Every batch must have the first batch's shapes."""
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            from .timing import NULL_TIMER
            for _ in range(eager_steps):
                self.step(NULL_TIMER)
        torch.cuda.current_stream().wait_stream(side)
        self._static = []
        for _ in range(self._k):
            inputs, targets = self._next_batch()
            if not (isinstance(inputs, torch.Tensor) and isinstance(targets, torch.Tensor)):
                raise ScenarioError("skipped", "cuda_graphs needs batches of (tensor, tensor); this one has "
                                               f"({type(inputs).__name__}, {type(targets).__name__})")
            self._static.append((_to_device(inputs, self.device, False, self._channels_last).clone(),
                                 _to_device(targets, self.device, False, False).clone()))
        self.optimizer.zero_grad(set_to_none=True)  # the captured backward makes them in the graph's pool
        # Autocast's weight cache must be off inside a capture.
        autocast = (torch.autocast(self.device.type, dtype=self._precision_dtype, cache_enabled=False)
                    if self._precision_dtype is not None else None)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for micro, (inputs, targets) in enumerate(self._static):
                if autocast is not None:
                    with autocast:
                        loss = self.loss_fn(self.model(inputs), targets)
                else:
                    loss = self.loss_fn(self.model(inputs), targets)
                if self._k > 1:
                    loss = loss * self._inv_k
                loss.backward()
                self._losses[micro] = loss.detach()  # graph outputs: every replay rewrites them
            self.optimizer.step()
        self._graph = graph

    def _graph_step(self, timer) -> float:
        """One replayed step: data_wait and h2d per micro-batch; forward holds the replay of the whole
        step (backward and optimizer are marked, empty, so that every step has the five phases)."""
        timer.start_step()
        for micro in range(self._k):
            timer.enter(DATA_WAIT)
            inputs, targets = self._next_batch()
            timer.exit(DATA_WAIT)
            timer.enter(H2D)
            static_inputs, static_targets = self._static[micro]
            if inputs.shape != static_inputs.shape or targets.shape != static_targets.shape:
                raise ScenarioError("failed", f"cuda_graphs needs every batch of one shape: captured "
                                              f"{tuple(static_inputs.shape)}, got {tuple(inputs.shape)}")
            static_inputs.copy_(inputs, non_blocking=True)
            static_targets.copy_(targets, non_blocking=True)
            timer.exit(H2D)
            timer.enter(FORWARD)
            if micro == self._k - 1:
                self._graph.replay()
            timer.exit(FORWARD)
            timer.enter(BACKWARD)  # empty, as in C++: the replay holds it
            timer.exit(BACKWARD)
        timer.enter(OPTIMIZER)
        timer.exit(OPTIMIZER)
        timer.end_step()
        return _read_loss(self._losses, True)

    def step(self, timer) -> float:
        if self._graph is not None:
            return self._graph_step(timer)
        device, nb, cl = self.device, self._non_blocking, self._channels_last
        model, loss_fn, autocast, scaler, losses = self.model, self.loss_fn, self._autocast, self._scaler, self._losses
        k, h2d_noop = self._k, self._h2d_noop
        timer.start_step()
        for micro in range(k):
            timer.enter(DATA_WAIT)
            batch = self._next_batch()
            timer.exit(DATA_WAIT)
            timer.enter(H2D)
            try:
                inputs, targets = batch
            except (TypeError, ValueError):
                raise ScenarioError("failed", f"Components.batches must yield (inputs, targets) pairs; it yielded "
                                              f"a {type(batch).__name__}", field="python.function") from None
            if not h2d_noop:
                inputs = _to_device(inputs, device, nb, cl)
                targets = _to_device(targets, device, nb, False)
            timer.exit(H2D)
            timer.enter(FORWARD)
            if autocast is not None:
                with autocast:
                    loss = loss_fn(model(inputs), targets)
                    if k > 1:
                        loss = loss * self._inv_k
            else:
                loss = loss_fn(model(inputs), targets)
                if k > 1:
                    loss = loss * self._inv_k
            timer.exit(FORWARD)
            timer.enter(BACKWARD)
            if scaler is not None:
                scaler.scale(loss).backward()
            else:
                loss.backward()
            timer.exit(BACKWARD)
            losses[micro] = loss.detach()
        timer.enter(OPTIMIZER)
        optimizer = self.optimizer
        if scaler is not None:
            scaler.step(optimizer)
            scaler.update()
        else:
            optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        timer.exit(OPTIMIZER)
        timer.end_step()
        return _read_loss(losses, self._cuda)


class CustomRunner:
    """Runs the user's ``step()`` as one timed step (phases: what it marks)."""

    phases_per_step_hint = 5

    def __init__(self, custom: CustomStep, settings: Settings, device: torch.device):
        self._step = custom.step
        self.device = device
        self.parameters = 0
        self.samples_per_step = int(custom.samples_per_step or settings.batch * settings.accumulation)
        self.tokens_per_sample = int(custom.tokens_per_sample or 0)

    def step(self, timer) -> float:
        step = self._step
        timer.start_step()
        loss = step()
        timer.end_step()
        if isinstance(loss, torch.Tensor):
            if loss.numel() != 1:
                raise ScenarioError("failed", f"CustomStep.step() returned a tensor of shape {tuple(loss.shape)}; "
                                              "return the step's loss (a float or a one-element tensor)")
            return loss.item()
        try:
            return float(loss)
        except (TypeError, ValueError):
            raise ScenarioError("failed", f"CustomStep.step() returned {type(loss).__name__}; return the step's "
                                          "loss (a float or a one-element tensor)") from None


def make_runner(built, settings: Settings, device: torch.device):
    """The runner for a validated factory result (Components or CustomStep)."""
    if isinstance(built, CustomStep):
        return CustomRunner(built, settings, device)
    return ComponentsRunner(built, settings, device)
