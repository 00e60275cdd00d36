"""Error statuses, settings and phases, through the worker's request handler in this process
(the same code that serves the protocol, without the transport: no torch import per test)."""
import json
import time

import pytest
import torch

from conftest import FIXTURES, fixture_line, settings

import trainbench
from trainbench import errors, worker
from trainbench.phases import set_recorder
from trainbench.timing import CpuStepTimer

COMPONENTS = str(FIXTURES / "components_loop.py")
CUSTOM = str(FIXTURES / "custom_loop.py")
RUN = {"run": {"warmup": 1, "warmup_budget_s": 10, "min_steps": 2, "max_steps": 3, "budget_s": 0}}


def session(file=COMPONENTS, function="build", **overrides):
    """A Worker with the build answered; (worker, build reply)."""
    w = worker.Worker()
    reply, _ = w.handle(json.dumps({"build": {"file": file, "function": function, "settings": settings(**overrides)}}))
    return w, reply


def run(w, request=RUN):
    return w.handle(json.dumps(request))[0]


def test_oom_is_oom():
    w, reply = session(user={"oom": True})
    assert "built" in reply
    error = run(w)
    assert error["status"] == "oom" and error["type"] == "OutOfMemoryError"
    assert error["error"].startswith("CUDA out of memory")
    assert error["where"].startswith("components_loop.py:")


def test_nan_loss_is_diverged_and_final():
    w, _ = session(user={"nan_after": 3})  # warm-up 1, measured steps 1-2 fine, then NaN
    error = run(w, {"run": {"warmup": 1, "min_steps": 5, "max_steps": 5, "budget_s": 0}})
    assert error == {"error": "the loss is nan at measured step 3 of this segment", "status": "diverged"}
    assert run(w) == error


def test_exception_in_factory_names_the_users_line():
    _, reply = session(function="build_raises")
    assert reply == {"error": "'dataset_options.path'", "status": "failed", "type": "KeyError",
                     "where": f"components_loop.py:{fixture_line('components_loop.py', 'RAISE-LINE')}"}


@pytest.mark.parametrize("function, field, text", [
    ("nope", "python.function", "components_loop.py has no function nope()"),
    ("not_a_function", "python.function", "components_loop.py: not_a_function is a int, not a function"),
    ("build_tuple", "python.function", "components_loop.py: build_tuple() returned a tuple; return "
                                       "trainbench.Components(model=..., loss_fn=..., batches=...)"),
])
def test_invalid_function_or_return(function, field, text):
    _, reply = session(function=function)
    assert reply["status"] == "invalid" and reply["field"] == field
    assert reply["error"].startswith(text)


def test_a_dict_with_the_components_keys_is_accepted():
    w, reply = session(function="build_dict")
    assert reply["built"]["mode"] == "components"
    assert len(run(w)["segment"]["step_s"]) == 2


def test_syntax_error_is_invalid_file(tmp_path):
    bad = tmp_path / "broken.py"
    bad.write_text("def build(settings):\n    return (\n")
    _, reply = session(file=str(bad))
    assert reply["status"] == "invalid" and reply["field"] == "python.file"
    assert reply["type"] == "SyntaxError" and reply["where"].startswith("broken.py:")


def test_generator_batches_fail_when_exhausted():
    w, _ = session(user={"generator": True})  # 4 micro-batches, then nothing
    error = run(w, {"run": {"warmup": 0, "min_steps": 8, "max_steps": 8}})
    assert error["status"] == "failed" and "re-iterable" in error["error"]


@pytest.mark.parametrize("overrides, text", [
    ({"precision": "tf32"}, "TF32 is a CUDA tensor-core mode"),
    ({"precision": "amp_fp16"}, "use amp_bf16 on CPU"),
    ({"cuda_graphs": True}, "cuda_graphs needs a CUDA device"),
])
def test_cpu_refusals_are_skipped(overrides, text):
    w, reply = session(**overrides)
    assert reply["status"] == "skipped" and text in reply["error"]
    assert run(w) == reply


def test_bad_settings_name_the_key():
    _, reply = session(optimizer="lamb")
    assert reply["status"] == "invalid" and reply["field"] == "settings.optimizer"
    assert "adam, adamw, sgd" in reply["error"]


def test_accumulation_bf16_channels_last_and_optimizers_run():
    for overrides in ({"precision": "amp_bf16", "accumulation": 4}, {"optimizer": "sgd", "optimizer_impl": "foreach"},
                      {"optimizer": "adamw", "optimizer_impl": "fused", "memory_format": "channels_last"}):
        w, reply = session(**overrides)
        assert reply["built"]["samples_per_step"] == 8 * overrides.get("accumulation", 1), overrides
        segment = run(w)["segment"]
        assert len(segment["loss"]) == 2 and all(0 < x < 10 for x in segment["loss"])
        assert sorted(segment["phase_s"]) == sorted(trainbench.PHASES)


def test_phase_names_and_no_op_outside_a_step():
    with pytest.raises(ValueError, match="allowed: data_wait, h2d, forward, backward, optimizer"):
        trainbench.phase("fwd")
    assert trainbench.PHASES == ("data_wait", "h2d", "forward", "backward", "optimizer")
    scope = trainbench.phase("forward")
    start = time.perf_counter()
    for _ in range(10000):
        with scope:
            pass
    assert (time.perf_counter() - start) / 10000 < 20e-6  # a few hundred ns, generous for a loaded CI


def test_cpu_timer_sums_repeated_and_nested_marks():
    timer = CpuStepTimer(2)
    set_recorder(timer)
    try:
        for _ in range(2):
            timer.start_step()
            for _ in range(3):
                with trainbench.phase("forward"):
                    with trainbench.phase("forward"):  # nested in itself: counted once
                        time.sleep(0.002)
            timer.end_step()
    finally:
        set_recorder(None)
    step_s, phase_s = timer.finish()
    assert list(phase_s) == ["forward"] and len(step_s) == 2
    for step, forward in zip(step_s, phase_s["forward"]):
        assert 0.006 <= forward <= step < 0.2


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device: CudaStepTimer needs one")
def test_cuda_timer_matches_host_order():
    from trainbench.timing import CudaEventPool, CudaStepTimer
    timer = CudaStepTimer(3, CudaEventPool(), 5)
    x = torch.randn(1024, 1024, device="cuda")
    for _ in range(3):
        timer.start_step()
        timer.enter(2)
        x = x @ x / 1024
        timer.exit(2)
        timer.end_step()
    step_s, phase_s = timer.finish()
    assert all(0 < f <= s for f, s in zip(phase_s["forward"], step_s))


def test_error_classification_and_encoding():
    assert errors.classify(RuntimeError("CUDA error: out of memory\nmore")).status == "oom"
    e = errors.classify(ValueError("x" * 400 + "\nsecond line"))
    assert e.status == "failed" and len(e.message) == 300 and "second" not in e.message
    assert errors.classify(ValueError("")).message == "ValueError"
    assert worker.encode({"loss": [1.0, float("nan"), float("inf")]}) == '{"loss":[1.0,null,null]}'


def test_cuda_graph_refusals():
    from trainbench.settings import Settings
    from trainbench.step_runner import build_optimizer, graph_refusal
    params = [torch.nn.Parameter(torch.zeros(2))]
    plain_adam = torch.optim.Adam(params)
    graphs = Settings(device="cuda", cuda_graphs=True)
    assert "capturable=True" in graph_refusal(graphs, plain_adam)
    assert "amp_fp16" in graph_refusal(Settings(device="cuda", cuda_graphs=True, precision="amp_fp16"), plain_adam)
    assert "reduce-overhead" in graph_refusal(Settings(device="cuda", cuda_graphs=True, compile="default"), plain_adam)
    # trainbench's own optimizers are capturable (Adam, AdamW) or need nothing (SGD).
    assert build_optimizer(None, params, graphs).defaults["capturable"] is True
    assert graph_refusal(graphs, build_optimizer(None, params, graphs)) is None
    assert graph_refusal(graphs, torch.optim.SGD(params, lr=0.1)) is None


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device: a CUDA graph needs one")
def test_cuda_graph_step_runs_and_learns():
    w, reply = session(device="cuda", cuda_graphs=True, accumulation=2)
    assert reply["built"]["mode"] == "components"
    segment = run(w, {"run": {"warmup": 1, "min_steps": 20, "max_steps": 20, "budget_s": 0}})["segment"]
    assert segment["loss"][-1] < segment["loss"][0]
    phases = segment["phase_s"]
    assert all(b < f for b, f in zip(phases["backward"], phases["forward"]))  # the replay is in forward
