"""Shared helpers: the package on sys.path, a protocol client for `python -m trainbench.worker`."""
import json
import os
import pathlib
import subprocess
import sys
import threading

import pytest

PYTHON_DIR = pathlib.Path(__file__).resolve().parent.parent
FIXTURES = pathlib.Path(__file__).resolve().parent / "fixtures"
if str(PYTHON_DIR) not in sys.path:
    sys.path.insert(0, str(PYTHON_DIR))


def settings(**overrides):
    """A protocol settings object for a small CPU scenario."""
    base = {"id": "test", "device": "cpu", "precision": "fp32", "workers": 0, "accumulation": 1, "batch": 8,
            "seed": 42, "learning_rate": 0.01, "optimizer": "adam", "optimizer_impl": "for_loop",
            "compile": "eager", "memory_format": "contiguous", "pin_memory": False, "cudnn_benchmark": False,
            "cuda_graphs": False, "threads": 1, "user": {}, "dataset_options": {}, "model_options": {}}
    base.update(overrides)
    return base


def fixture_line(name, marker):
    """The 1-based line of ``marker`` in fixtures/``name``."""
    for number, line in enumerate((FIXTURES / name).read_text().splitlines(), 1):
        if marker in line:
            return number
    raise AssertionError(f"{marker} not in {name}")


def worker_env():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(PYTHON_DIR) + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")  # no compile-worker pool on a 2-core machine
    return env


class WorkerProcess:
    """`python -m trainbench.worker` spoken to line by line; stderr collected in the background."""

    def __init__(self, *args):
        self.proc = subprocess.Popen([sys.executable, "-m", "trainbench.worker", *args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=worker_env())
        self.stderr_chunks = []
        self._reader = threading.Thread(target=lambda: self.stderr_chunks.extend(self.proc.stderr), daemon=True)
        self._reader.start()

    @property
    def stderr(self):
        return b"".join(self.stderr_chunks).decode("utf-8", "replace")

    def receive(self):
        line = self.proc.stdout.readline()
        assert line, f"worker closed stdout; stderr:\n{self.stderr[-3000:]}"
        assert line.endswith(b"\n")
        return json.loads(line)  # every reply is one JSON object on one line

    def send(self, message):
        self.proc.stdin.write((json.dumps(message) + "\n").encode())
        self.proc.stdin.flush()

    def request(self, message):
        self.send(message)
        return self.receive()

    def close_stdin_and_wait(self, timeout=60):
        self.proc.stdin.close()
        return self.proc.wait(timeout)

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def start_worker():
    started = []

    def start(*args):
        w = WorkerProcess(*args)
        started.append(w)
        return w

    yield start
    for w in started:
        w.kill()
