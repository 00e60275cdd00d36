"""``python -m trainbench.worker``: the step-worker role of trainbench's worker protocol.

Transport (docs/worker-protocol.md): one JSON object per line, UTF-8, requests on stdin, replies
on stdout, flushed after each; one request at a time. At start the worker keeps the real stdout
for replies only (a duplicate of fd 1) and points fd 1 at stderr, so that whatever user code
prints, from Python or C, goes to stderr. SIGINT is ignored: the parent handles Ctrl-C and ends
the worker with ``finish`` or by closing stdin. End of input: exit 3. Non-finite floats are never
written (``allow_nan=False``; such values are null).

Session::

    worker -> {"hello": 1, "role": "steps", "python": "3.11.7", "torch": "2.11.0", "pid": 1234}
    parent -> {"build": {"file": "/abs/my_loop.py", "function": "build", "settings": {...}}}
    worker -> {"built": {"build_s", "mode", "parameters", "samples_per_step", "tokens_per_sample"}}
    parent -> {"run": {"warmup", "warmup_budget_s", "min_steps", "max_steps", "budget_s"}}
    worker -> {"segment": {"warmup_steps", "unmeasured_loss", "step_s", "loss", "phase_s",
                           "compile" (compiled only), "peak_bytes"}}
    parent -> {"profile": {"steps", "trace", "nvtx"}}
    worker -> {"profiled": {"trace", "steps"}}
    parent -> {"finish": true}
    worker -> {"bye": true}                                   (exit 0)

Any request may be answered ``{"error", "status", ["type", "where", "field"]}`` (errors.py); an
unknown request gets status "invalid" and the worker keeps serving. One worker holds one scenario:
a second ``build`` is refused ("invalid"); after a failed build or run every ``run``/``profile``
answers that error again.

Preflight: ``python -m trainbench.worker --check FILE FUNCTION SETTINGS_JSON`` imports FILE,
calls FUNCTION once with the settings, checks its return as ``build`` does, prints one JSON line
(``{"ok": true, "mode": "components"|"custom"}`` or the error object) and exits 0 when ok, 2
otherwise.
"""
from __future__ import annotations

import json
import math
import os
import platform
import signal
import sys

EXIT_OK, EXIT_CHECK_FAILED, EXIT_EOF = 0, 2, 3


def _clean(value):
    """``value`` with every non-finite float replaced by None (for allow_nan=False)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


def encode(message: dict) -> str:
    """One protocol line (no newline), non-finite floats as null."""
    return json.dumps(_clean(message), allow_nan=False, separators=(",", ":"), ensure_ascii=False)


class Channel:
    """The protocol's stdin/stdout, with stdout kept away from user code (see the module docstring)."""

    def __init__(self):
        sys.stdout.flush()
        reply_fd = os.dup(1)
        os.dup2(2, 1)  # fd 1 is stderr from now on: C-level prints of user code land there
        sys.stdout = sys.stderr  # and Python-level ones too
        self._out = os.fdopen(reply_fd, "w", encoding="utf-8", newline="\n")
        self._in = sys.stdin.buffer

    def send(self, message: dict):
        self._out.write(encode(message) + "\n")
        self._out.flush()

    def receive(self):
        """The next request line, or None at end of input."""
        line = self._in.readline()
        if not line:
            return None
        return line.decode("utf-8", errors="replace")


def hello() -> dict:
    import torch
    return {"hello": 1, "role": "steps", "python": platform.python_version(),
            "torch": torch.__version__.split("+")[0], "pid": os.getpid()}


class Worker:
    """Serves requests for one scenario."""

    def __init__(self):
        self.scenario = None
        self.build_error = None

    def handle(self, line: str):
        """The reply to one request line, and whether the session is over."""
        from .errors import ScenarioError
        try:
            request = json.loads(line)
        except ValueError as exc:
            return {"error": f"unknown request (not JSON: {exc})", "status": "invalid"}, False
        if not isinstance(request, dict) or len(request) != 1:
            return {"error": f"unknown request {line.strip()[:200]}: expected one of build, run, profile, finish",
                    "status": "invalid"}, False
        (kind, body), = request.items()
        try:
            if kind == "finish":
                return {"bye": True}, True
            if kind == "build":
                return {"built": self._build(body)}, False
            if kind == "run":
                return {"segment": self._scenario().run(self._object(kind, body))}, False
            if kind == "profile":
                return {"profiled": self._scenario().profile(self._object(kind, body))}, False
        except ScenarioError as exc:
            return exc.reply(), False
        except Exception as exc:  # not the user's: still an answer, and the worker keeps serving
            from .errors import classify
            return classify(exc).reply(), False
        return {"error": f"unknown request {kind!r}: expected one of build, run, profile, finish",
                "status": "invalid"}, False

    @staticmethod
    def _object(kind, body) -> dict:
        from .errors import ScenarioError
        if not isinstance(body, dict):
            raise ScenarioError("invalid", f"{kind} must be a JSON object, got {json.dumps(body)[:100]}")
        return body

    def _scenario(self):
        from .errors import ScenarioError
        if self.build_error is not None:
            raise self.build_error
        if self.scenario is None:
            raise ScenarioError("invalid", "no scenario built yet: send build first")
        return self.scenario

    def _build(self, body) -> dict:
        from .errors import ScenarioError
        from .scenario import Scenario
        body = self._object("build", body)
        if self.scenario is not None or self.build_error is not None:
            raise ScenarioError("invalid", "this worker already holds a scenario; start another worker for the next")
        file, function = body.get("file"), body.get("function", "build")
        if not isinstance(file, str) or not file:
            raise ScenarioError("invalid", f"build.file must be a path, got {file!r}", field="python.file")
        if not isinstance(function, str) or not function:
            raise ScenarioError("invalid", f"build.function must be a name, got {function!r}",
                                field="python.function")
        try:
            self.scenario = Scenario.build(file, function, body.get("settings", {}))
        except Exception as exc:  # ScenarioError, or anything the backend raised (a CUDA error)
            from .errors import classify
            self.build_error = classify(exc, file)
            raise self.build_error from None
        return self.scenario.built_reply()


def serve() -> int:
    channel = Channel()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    channel.send(hello())
    worker = Worker()
    while True:
        line = channel.receive()
        if line is None:
            return EXIT_EOF
        if not line.strip():
            continue
        reply, done = worker.handle(line)
        channel.send(reply)
        if done:
            return EXIT_OK


def check(file: str, function: str, settings_json: str) -> int:
    """The preflight check (see the module docstring)."""
    from . import loader
    from .errors import ScenarioError, classify
    from .settings import Settings
    channel = Channel()  # what the factory prints goes to stderr: stdout carries one line
    try:
        try:
            raw = json.loads(settings_json)
            settings = Settings.from_dict(raw)
        except ValueError as exc:
            key = getattr(exc, "key", None)
            raise ScenarioError("invalid", f"settings: {exc}", field=f"settings.{key}" if key else "settings") \
                from None
        factory = loader.load_factory(file, function)
        import torch
        torch.manual_seed(settings.seed)
        built = loader.call_factory(factory, settings, file, function)
        reply, code = {"ok": True, "mode": loader.mode_of(built)}, EXIT_OK
    except ScenarioError as exc:
        reply, code = exc.reply(), EXIT_CHECK_FAILED
    except Exception as exc:  # a bug of ours rather than the user's: still one line
        reply, code = classify(exc, file).reply(), EXIT_CHECK_FAILED
    channel.send(reply)
    return code


USAGE = "usage: python -m trainbench.worker [--check FILE FUNCTION SETTINGS_JSON]"


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        return serve()
    if argv[0] == "--check" and len(argv) == 4:
        return check(*argv[1:])
    print(USAGE, file=sys.stderr)
    return EXIT_CHECK_FAILED


if __name__ == "__main__":
    sys.exit(main())
