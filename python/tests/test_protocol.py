"""The step worker spoken to as the C++ parent speaks to it: a subprocess, JSON lines."""
import json
import math
import platform
import signal
import subprocess
import sys

import torch

from conftest import FIXTURES, fixture_line, settings, worker_env

PHASES = ["data_wait", "h2d", "forward", "backward", "optimizer"]
COMPONENTS = str(FIXTURES / "components_loop.py")
CUSTOM = str(FIXTURES / "custom_loop.py")


def build(file, function="build", **overrides):
    return {"build": {"file": file, "function": function, "settings": settings(**overrides)}}


def run(warmup=1, warmup_budget_s=10.0, min_steps=2, max_steps=4, budget_s=0.0):
    return {"run": {"warmup": warmup, "warmup_budget_s": warmup_budget_s, "min_steps": min_steps,
                    "max_steps": max_steps, "budget_s": budget_s}}


def test_components_session_hello_segments_profile_and_stdout_protection(start_worker, tmp_path):
    w = start_worker()
    hello = w.receive()
    assert hello == {"hello": 1, "role": "steps", "python": platform.python_version(),
                     "torch": torch.__version__.split("+")[0], "pid": w.proc.pid}

    # The factory and the model's forward print to stdout from Python and from C (fd 1).
    built = w.request(build(COMPONENTS, batch=8, accumulation=2, user={"print_stdout": True}))["built"]
    assert built["mode"] == "components"
    assert built["parameters"] == 8 * 16 + 16 + 16 * 4 + 4
    assert built["samples_per_step"] == 16 and built["tokens_per_sample"] == 0
    assert 0 < built["build_s"] < 60

    segment = w.request(run(warmup=2, min_steps=3, max_steps=5, budget_s=0.0))["segment"]
    assert segment["warmup_steps"] == 2 and len(segment["unmeasured_loss"]) == 2
    assert len(segment["step_s"]) == 3 == len(segment["loss"])  # min_steps reached, budget 0 spent
    assert sorted(segment["phase_s"]) == sorted(PHASES)
    for name in PHASES:
        assert len(segment["phase_s"][name]) == 3
    for i, step in enumerate(segment["step_s"]):
        phases = sum(segment["phase_s"][name][i] for name in PHASES)
        assert 0 < phases <= step  # phases nest inside the step
    assert all(math.isfinite(x) and x > 0 for x in segment["loss"])
    assert "compile" not in segment
    assert segment["peak_bytes"] > 10 * 2**20  # the process's peak RSS: torch alone is more

    # A second segment continues the scenario; max_steps bounds it when the budget is never spent.
    segment = w.request(run(warmup=0, min_steps=2, max_steps=4, budget_s=1e9))["segment"]
    assert segment["warmup_steps"] == 0 and segment["unmeasured_loss"] == []
    assert len(segment["step_s"]) == 4

    trace = tmp_path / "traces" / "x.json"
    assert w.request({"profile": {"steps": 3, "trace": str(trace), "nvtx": True}}) == \
        {"profiled": {"trace": str(trace), "steps": 3}}
    text = trace.read_text()
    assert "ProfilerStep#" in text
    names = {event.get("name") for event in json.loads(text)["traceEvents"]}
    assert set(PHASES) <= names

    assert w.request({"frobnicate": 1}) == \
        {"error": "unknown request 'frobnicate': expected one of build, run, profile, finish", "status": "invalid"}
    assert w.request({"finish": True}) == {"bye": True}
    assert w.proc.wait(30) == 0
    assert "user print while building" in w.stderr and "C-level write to fd 1" in w.stderr


def test_custom_step_warmup_min_max_budget_rules(start_worker):
    w = start_worker()
    w.receive()
    built = w.request(build(CUSTOM, batch=4, accumulation=3, user={"sleep_s": 0.01}))["built"]
    assert built == {**built, "mode": "custom", "parameters": 0, "samples_per_step": 12}

    # Budget: stops at min_steps once budget_s of measured step time is spent.
    segment = w.request(run(warmup=1, min_steps=3, max_steps=50, budget_s=0.08))["segment"]
    steps = len(segment["step_s"])
    assert 3 <= steps < 50
    assert sum(segment["step_s"]) >= 0.08
    assert sum(segment["step_s"][:-1]) < 0.08 or steps == 3  # the rule stopped at the first chance
    # Only the phases the step marks; the unmarked sleep is in the step, in no phase.
    assert sorted(segment["phase_s"]) == ["backward", "forward", "optimizer"]
    for i, step in enumerate(segment["step_s"]):
        assert step - sum(segment["phase_s"][p][i] for p in segment["phase_s"]) >= 0.009

    # Warm-up budget: at least one step, then stops once the budget is spent.
    segment = w.request(run(warmup=10, warmup_budget_s=0.0, min_steps=1, max_steps=1))["segment"]
    assert segment["warmup_steps"] == 1 and len(segment["step_s"]) == 1
    segment = w.request(run(warmup=50, warmup_budget_s=0.05, min_steps=1, max_steps=1))["segment"]
    assert 2 <= segment["warmup_steps"] <= 6

    # A bad run request is refused without killing the scenario.
    reply = w.request({"run": {"warmup": -1, "max_steps": 3}})
    assert reply["status"] == "invalid" and "run.warmup" in reply["error"]
    assert len(w.request(run(warmup=0, min_steps=2, max_steps=2))["segment"]["step_s"]) == 2
    assert w.request({"finish": True}) == {"bye": True}
    assert w.proc.wait(30) == 0


def test_failed_scenario_is_dead_and_eof_exits_3(start_worker):
    w = start_worker()
    w.receive()
    assert "built" in w.request(build(COMPONENTS, user={"fail": True}))
    error = w.request(run())
    assert error == {"error": "bad value in the user's forward", "status": "failed", "type": "ValueError",
                     "where": f"components_loop.py:{fixture_line('components_loop.py', 'FAIL-LINE')}"}
    assert w.request(run()) == error  # the scenario is dead: the same answer
    assert w.request({"profile": {"steps": 1, "trace": "/tmp/unused.json"}}) == error
    reply = w.request(build(COMPONENTS))
    assert reply["status"] == "invalid" and "already holds a scenario" in reply["error"]
    assert w.close_stdin_and_wait() == 3


def test_skip_from_the_users_function_is_skipped_with_its_reason(start_worker):
    w = start_worker()
    w.receive()
    reply = w.request(build(COMPONENTS, user={"skip": "needs two GPUs"}))
    assert reply == {"error": "needs two GPUs", "status": "skipped",
                     "where": f"components_loop.py:{fixture_line('components_loop.py', 'SKIP-LINE')}"}
    assert w.request(run()) == reply


def test_invalid_build_then_eof(start_worker, tmp_path):
    w = start_worker()
    w.receive()
    reply = w.request(build(str(tmp_path / "missing.py")))
    assert reply["status"] == "invalid" and reply["field"] == "python.file"
    assert "missing.py" in reply["error"] and "build()" in reply["error"]
    assert w.request(run()) == reply
    w.proc.send_signal(signal.SIGINT)  # ignored: the parent ends the worker
    assert w.request(run()) == reply
    assert w.close_stdin_and_wait() == 3


def check(function, file=COMPONENTS, **overrides):
    return subprocess.Popen([sys.executable, "-m", "trainbench.worker", "--check", file, function,
                             json.dumps(settings(**overrides))], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=worker_env())


def test_check_mode_exit_codes_and_one_line():
    procs = {  # concurrently: each one imports torch
        "ok": check("build", user={"print_stdout": True}),
        "custom": check("build", file=CUSTOM),
        "missing": check("nope"),
        "tuple": check("build_tuple"),
        "settings": check("build", precision="fp64"),
    }
    out = {}
    for name, proc in procs.items():
        stdout, stderr = proc.communicate(timeout=120)
        lines = stdout.decode().splitlines()
        assert len(lines) == 1, (name, stdout, stderr)
        out[name] = (proc.returncode, json.loads(lines[0]), stderr.decode())
    assert out["ok"][:2] == (0, {"ok": True, "mode": "components"})
    assert "user print while building" in out["ok"][2]
    assert out["custom"][:2] == (0, {"ok": True, "mode": "custom"})
    code, reply, _ = out["missing"]
    assert code == 2 and reply["status"] == "invalid" and reply["field"] == "python.function"
    assert reply["error"].startswith("components_loop.py has no function nope() (it defines: build,")
    code, reply, _ = out["tuple"]
    assert code == 2 and reply == {
        "error": "components_loop.py: build_tuple() returned a tuple; return trainbench.Components(model=..., "
                 "loss_fn=..., batches=...) or trainbench.CustomStep(step=...)",
        "status": "invalid", "field": "python.function"}
    code, reply, _ = out["settings"]
    assert code == 2 and reply["field"] == "settings.precision" and "fp64" in reply["error"]
