#!/usr/bin/env python3
"""Export a PyTorch nn.Module for trainbench ("model": "torchscript") and print the matrix to run it.

    python scripts/export_model.py my_model.py:MyNet --input-shape 3,32,32 --out mynet.pt
    python scripts/export_model.py my_model.py:MyNet --init-args '{"width": 64}' \\
        --input-shape 3,32,32 --out mynet.pt --matrix mynet.json
    scripts/trainbench run mynet.json --out results/mynet

The module is exported with torch.jit.script; when scripting fails (Python the TorchScript
compiler does not understand) it falls back to torch.jit.trace on an example batch, and says
which one it used. A traced module replays the operations of that one call: control flow that
depends on the data is frozen, and it is traced in training mode (batch norm uses batch
statistics, dropout is on), which is how trainbench trains it.

The loss: "cross_entropy" (the output is [N, classes] logits, or [N, T, vocab] for int64 token
inputs), "mse" (the output is shaped like the targets), or "output" when the module's
forward(input, target) returns the loss itself. By default it is "output" for a forward that
takes two arguments and "cross_entropy" otherwise.

The matrix printed (or written with --matrix) trains the model on trainbench's synthetic data
of the right shape and number of classes (token data for int64 inputs) with fp32 against bf16
autocast. To train on your own tensors, save them from Python,
    torch.save({"inputs": inputs, "targets": targets}, "data.pt")   # Tensor[N, ...] each
and use "dataset": "tensors", "dataset_options": {"path": "data.pt"} instead.

TorchScript is deprecated upstream, but in torch 2.11 it is still the only format a C++ program
can train (torch.export / AOTInductor packages run inference only); trainbench loads it behind
an interface (trainbench/training/torch/model_loader.hpp) so a future format can plug in.
"""
import argparse
import importlib.util
import inspect
import json
import os
import sys


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="export_model.py",
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("model", metavar="FILE.py:CLASS", help="the Python file defining the nn.Module and its class name")
    p.add_argument("--init-args", default="{}", metavar="JSON",
                   help="constructor arguments: a JSON object (keywords) or list (positional); default {}")
    p.add_argument("--input-shape", required=True, metavar="D1,D2,...",
                   help="shape of ONE sample, without the batch dimension, e.g. 3,32,32 or 128")
    p.add_argument("--input-dtype", choices=["float32", "int64"], default="float32",
                   help="float32 (features, images) or int64 (token ids); default float32")
    p.add_argument("--loss", choices=["auto", "cross_entropy", "mse", "output"], default="auto",
                   help="how trainbench turns the output into a loss; default auto (see above)")
    p.add_argument("--classes", type=int, default=None,
                   help="classes of the synthetic targets (default: the output's last dimension); "
                        "required for a forward that returns the loss")
    p.add_argument("--vocab", type=int, default=256, help="vocabulary of int64 inputs; default 256")
    p.add_argument("--batch", type=int, default=32, help="batch of the matrix printed; default 32")
    p.add_argument("--out", required=True, help="where to write the TorchScript archive (.pt)")
    p.add_argument("--matrix", default=None, help="also write the matrix to this file instead of only printing it")
    p.add_argument("--trace", action="store_true", help="skip torch.jit.script and trace directly")
    return p.parse_args(argv)


def fail(message):
    print(f"export_model.py: {message}", file=sys.stderr)
    sys.exit(2)


def load_class(spec):
    path, _, name = spec.rpartition(":")
    if not path or not name:
        fail(f"'{spec}': give FILE.py:CLASS, e.g. my_model.py:MyNet")
    if not os.path.isfile(path):
        fail(f"'{path}': no such file")
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))  # its own local imports
    module_spec = importlib.util.spec_from_file_location(os.path.splitext(os.path.basename(path))[0], path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    if not hasattr(module, name):
        fail(f"'{path}' defines no '{name}'")
    return getattr(module, name)


def instantiate(cls, init_args):
    try:
        args = json.loads(init_args)
    except json.JSONDecodeError as e:
        fail(f"--init-args: not JSON ({e})")
    if isinstance(args, dict):
        return cls(**args)
    if isinstance(args, list):
        return cls(*args)
    fail("--init-args: give a JSON object (keywords) or a list (positional arguments)")


def forward_arity(model):
    params = [p for p in inspect.signature(model.forward).parameters.values()
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty]
    return len(params)


def main(argv):
    import torch

    a = parse_args(argv)
    try:
        shape = [int(d) for d in a.input_shape.split(",")]
    except ValueError:
        fail(f"--input-shape: '{a.input_shape}' is not a comma-separated list of integers")
    if not shape or min(shape) < 1:
        fail(f"--input-shape: '{a.input_shape}' must be positive sizes")
    model = instantiate(load_class(a.model), a.init_args)
    if not isinstance(model, torch.nn.Module):
        fail(f"{a.model} is not a torch.nn.Module")
    model.train()
    arity = forward_arity(model)
    loss = a.loss if a.loss != "auto" else ("output" if arity == 2 else "cross_entropy")
    if loss == "output" and arity != 2:
        fail(f"--loss output needs forward(input, target); {a.model}'s forward takes {arity} argument(s)")
    if loss != "output" and arity != 1:
        fail(f"--loss {loss} needs forward(input); {a.model}'s forward takes {arity} arguments")
    tokens = a.input_dtype == "int64"
    if tokens and len(shape) != 1:
        fail("--input-shape: int64 (token) inputs are one sequence per sample, e.g. 64")

    # The example forwards below move batch-norm statistics: the archive gets these, as constructed.
    initial_state = {k: v.clone() for k, v in model.state_dict().items()}
    torch.manual_seed(0)
    example_batch = 2
    if tokens:
        example = torch.randint(0, a.vocab, [example_batch] + shape)
    else:
        example = torch.randn([example_batch] + shape)
    classes = a.classes
    if loss == "output":
        if classes is None and not tokens:
            fail("--classes: give the number of classes of the targets of a forward that returns the loss")
        target = (torch.randint(0, a.vocab, [example_batch] + shape) if tokens
                  else torch.randint(0, classes, [example_batch]))
        example_inputs = (example, target)
    else:
        example_inputs = (example,)
        with torch.no_grad():
            out = model(*example_inputs)
        if loss == "cross_entropy":
            if classes is None:
                classes = int(out.shape[-1])
            elif out.shape[-1] < classes:
                fail(f"--classes {classes}: the model's output has only {out.shape[-1]} logits")

    how = "torch.jit.script"
    scripted = None
    if not a.trace:
        try:
            scripted = torch.jit.script(model)
        except Exception as e:  # the TorchScript compiler's errors have no common type
            first = str(e).strip().splitlines()[0].rstrip(":") if str(e).strip() else type(e).__name__
            print(f"torch.jit.script failed ({first}); falling back to torch.jit.trace", file=sys.stderr)
    if scripted is None:
        how = f"torch.jit.trace on an example input of shape {list(example.shape)}"
        scripted = torch.jit.trace(model, example_inputs, check_trace=False)
    scripted.load_state_dict(initial_state)
    scripted.train()
    out_path = os.path.abspath(a.out)
    os.makedirs(os.path.dirname(out_path), exist_ok=True)
    scripted.save(out_path)
    print(f"exported {a.model} with {how} to {out_path}", file=sys.stderr)

    name = os.path.splitext(os.path.basename(a.out))[0]
    model_options = {"path": out_path, "loss": loss}
    if tokens:
        dataset, dataset_options = "tokens", {"samples": 1024, "seq_len": shape[0], "vocab": a.vocab}
        model_options["input_dtype"] = "int64"
    else:
        dataset, dataset_options = "synthetic", {"samples": 1024, "shape": shape, "classes": classes}
    matrix = {
        "name": name,
        "description": f"{os.path.basename(a.model)} exported with {how.split(' on ')[0]}: fp32 against bf16 autocast",
        "model": "torchscript",
        "model_options": model_options,
        "dataset": dataset,
        "dataset_options": dataset_options,
        "device": "auto",
        "optimizer": "adam",
        "steps": {"warmup": 3, "min": 20, "max": 200, "target_rel_ci": 0.05, "time_budget_s": 5, "rounds": 4},
        "axes": {"precision": ["fp32", "amp_bf16"], "batch": [a.batch]},
        "baseline": {"precision": "fp32"},
    }
    if loss == "mse":
        matrix["dataset"], matrix["dataset_options"] = "tensors", {"path": "data.pt"}
        print('loss mse: the matrix reads your tensors from data.pt: save them with '
              'torch.save({"inputs": inputs, "targets": targets}, "data.pt")', file=sys.stderr)
    text = json.dumps(matrix, indent=2) + "\n"
    if a.matrix:
        with open(a.matrix, "w") as f:
            f.write(text)
        print(f"matrix written to {a.matrix}: run it with  scripts/trainbench run {a.matrix}", file=sys.stderr)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main(sys.argv[1:])
