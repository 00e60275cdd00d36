"""my_loop.py's training step written out by hand: the CustomStep form.

trainbench calls ``step()`` for every step and times it; the parts inside ``trainbench.phase``
are timed as phases, the rest counts in the step's time only. Here the step applies the
scenario's axes itself: autocast for precision, a GradScaler for amp_fp16 on CUDA, accumulation
(settings.accumulation micro-batches, loss / k), pinned memory + non_blocking copies,
channels_last, the compile axis (trainbench.compile_model). Point a matrix's "python.function"
at ``build`` in this file to measure it.
"""
import torch

import trainbench
from my_loop import SmallCNN, image_loader  # a neighbour: the file's folder is on sys.path


def build(settings: trainbench.Settings) -> trainbench.CustomStep:
    device = torch.device(settings.device)
    channels_last = settings.memory_format == "channels_last"
    model = SmallCNN().to(device, memory_format=torch.channels_last if channels_last else torch.preserve_format)
    step_model = trainbench.compile_model(model, settings)
    optimizer = torch.optim.AdamW(model.parameters(), lr=settings.learning_rate)
    loss_fn = torch.nn.CrossEntropyLoss()
    dtype = {"amp_bf16": torch.bfloat16, "amp_fp16": torch.float16}.get(settings.precision)
    scaler = torch.amp.GradScaler(device.type, enabled=settings.precision == "amp_fp16" and device.type == "cuda")
    loader = image_loader(settings)
    batches = iter(loader)
    k = settings.accumulation

    def next_batch():
        nonlocal batches
        try:
            return next(batches)
        except StopIteration:
            batches = iter(loader)
            return next(batches)

    def step():
        total = torch.zeros((), device=device)
        for _ in range(k):
            with trainbench.phase("data_wait"):
                images, labels = next_batch()
            with trainbench.phase("h2d"):
                images = images.to(device, non_blocking=settings.pin_memory,
                                   memory_format=torch.channels_last if channels_last else torch.preserve_format)
                labels = labels.to(device, non_blocking=settings.pin_memory)
            with trainbench.phase("forward"), torch.autocast(device.type, dtype=dtype, enabled=dtype is not None):
                loss = loss_fn(step_model(images), labels) / k
            with trainbench.phase("backward"):
                scaler.scale(loss).backward()
            total += loss.detach()
        with trainbench.phase("optimizer"):
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad(set_to_none=True)
        return total  # read once by trainbench, after the step's time is taken

    return trainbench.CustomStep(step=step)
