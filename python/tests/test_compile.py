"""The compile axis on the CPU: torch.compile with inductor and the system compiler (slow: tens of
seconds on a loaded 2-core machine, most of it the first step's compilation)."""
import time

from conftest import FIXTURES, settings


def test_compiled_components_first_step_steady_warmup_and_recompiles(start_worker):
    w = start_worker()
    w.receive()
    built = w.request({"build": {"file": str(FIXTURES / "components_loop.py"), "function": "build",
                                 "settings": settings(compile="default", user={"ragged": True})}})
    assert built["built"]["mode"] == "components"
    started = time.perf_counter()
    segment = w.request({"run": {"warmup": 2, "warmup_budget_s": 30, "min_steps": 4, "max_steps": 4,
                                 "budget_s": 0}})["segment"]
    compile_info = segment["compile"]
    assert 0 < compile_info["first_step_s"] < time.perf_counter() - started
    # The first step is neither warm-up nor measured: its loss is the first unmeasured one.
    assert len(segment["unmeasured_loss"]) == 1 + segment["warmup_steps"]
    assert 2 <= segment["warmup_steps"] <= 52
    assert len(segment["step_s"]) == 4
    # The fourth micro-batch of every pass is smaller: one recompilation, at the first pass.
    assert max(segment["step_s"]) < compile_info["first_step_s"]
    later = w.request({"run": {"warmup": 1, "warmup_budget_s": 30, "min_steps": 8, "max_steps": 8,
                               "budget_s": 0}})["segment"]
    assert "first_step_s" not in later["compile"]
    assert later["compile"]["recompiles"] == 1  # cumulative; dynamic shapes after the first recompile
    assert w.request({"finish": True}) == {"bye": True}
    assert w.proc.wait(60) == 0
