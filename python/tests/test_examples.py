"""examples/python_loop builds and runs under the worker (small settings, in this process)."""
import json
import pathlib

import pytest

from conftest import settings

from trainbench import worker

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples" / "python_loop"
RUN = {"run": {"warmup": 1, "warmup_budget_s": 30, "min_steps": 2, "max_steps": 2, "budget_s": 0}}


@pytest.mark.parametrize("file, function, overrides, mode, parameters", [
    ("my_loop.py", "build", {"batch": 16, "accumulation": 2, "precision": "amp_bf16"}, "components", 94762),
    ("custom_step.py", "build", {"batch": 16}, "custom", 0),
    ("crosscheck.py", "build_mlp", {"batch": 64, "dataset_options": {"samples": 256}}, "components", 1585162),
    ("crosscheck.py", "build_transformer", {"batch": 8, "dataset_options": {"samples": 64}}, "components", 470784),
    ("crosscheck.py", "build", {"model": "transformer", "batch": 8, "dataset_options": {"samples": 64}}, "components",
     470784),
])
def test_example_builds_and_runs(tmp_path, file, function, overrides, mode, parameters):
    overrides.setdefault("dataset_options", {})
    overrides["dataset_options"].setdefault("path", str(tmp_path / "images"))
    w = worker.Worker()
    reply, _ = w.handle(json.dumps({"build": {"file": str(EXAMPLES / file), "function": function,
                                              "settings": settings(**overrides)}}))
    assert reply["built"]["mode"] == mode and reply["built"]["parameters"] == parameters
    segment = w.handle(json.dumps(RUN))[0]["segment"]
    assert len(segment["loss"]) == 2 and all(0 < x < 20 for x in segment["loss"])


def test_matrix_names_the_factory():
    matrix = json.loads((EXAMPLES / "matrix.json").read_text())
    assert matrix["loop"] == "python"
    assert (EXAMPLES / matrix["python"]["file"]).is_file()


def test_image_generation_is_deterministic_and_idempotent(tmp_path):
    import importlib.util
    spec = importlib.util.spec_from_file_location("my_loop_for_test", EXAMPLES / "my_loop.py")
    my_loop = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(my_loop)
    a, b = my_loop.make_images(str(tmp_path / "a")), my_loop.make_images(str(tmp_path / "b"))
    files = sorted(p.relative_to(a) for p in pathlib.Path(a).rglob("*.jpg"))
    assert len(files) == 300
    assert all((pathlib.Path(a) / f).read_bytes() == (pathlib.Path(b) / f).read_bytes() for f in files)
    assert my_loop.make_images(a) == a  # present: left as it is
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "b"]  # no temporary folder left
