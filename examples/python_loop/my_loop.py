"""The seed article's four techniques on a Python training loop, measured by trainbench.

A small CNN learns 10 classes of generated images (an ImageFolder of small JPEGs) through a real
torch.utils.data.DataLoader with torchvision transforms. The factory returns Components, so
trainbench runs the step and applies the matrix's axes the way the article does:

  precision     autocast (amp_bf16 on the CPU; amp_fp16 with a GradScaler on CUDA)
  workers       DataLoader(num_workers=settings.workers): decoding and augmenting in parallel
  accumulation  settings.accumulation micro-batches of settings.batch per optimizer step
  batch         DataLoader(batch_size=settings.batch)

(pin_memory and channels_last follow settings.pin_memory and settings.memory_format.)

The images are generated on first use (300 JPEGs of 48x48, 30 per class, deterministic) into
settings.dataset_options["path"] or ~/.cache/trainbench/python-loop-images; two processes doing it
at once is safe (each writes a temporary folder, the first rename wins).

Try it without trainbench: python my_loop.py  (a few eager steps on the CPU).
"""
import os
import random
import shutil
import tempfile

import torch
from torch import nn

import trainbench

CLASSES = 10
IMAGES_PER_CLASS = 30
IMAGE_SIZE = 48
CROP = 32
DEFAULT_PATH = os.path.join(os.path.expanduser("~"), ".cache", "trainbench", "python-loop-images")


def make_images(path: str, seed: int = 0) -> str:
    """The image folder at ``path`` (class folders 0..9 of JPEGs), generated when absent."""
    if os.path.isdir(path):
        return path
    from PIL import Image, ImageDraw
    parent = os.path.dirname(os.path.abspath(path))
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".images-", dir=parent)
    try:
        for label in range(CLASSES):
            folder = os.path.join(tmp, f"class{label}")
            os.makedirs(folder)
            hue = (label * 37 % 256, label * 91 % 256, label * 153 % 256)
            for i in range(IMAGES_PER_CLASS):
                rng = random.Random(seed * 100003 + label * 1009 + i)
                background = tuple(rng.randrange(256) for _ in range(3))
                image = Image.new("RGB", (IMAGE_SIZE, IMAGE_SIZE), background)
                draw = ImageDraw.Draw(image)
                for _ in range(3 + label % 4):  # the class: a colour and a number of shapes
                    x, y = rng.randrange(IMAGE_SIZE - 12), rng.randrange(IMAGE_SIZE - 12)
                    size = rng.randrange(8, 16)
                    shade = tuple(min(255, max(0, c + rng.randrange(-30, 31))) for c in hue)
                    (draw.ellipse if label % 2 else draw.rectangle)([x, y, x + size, y + size], fill=shade)
                image.save(os.path.join(folder, f"{i:03d}.jpg"), quality=90)
        try:
            os.rename(tmp, path)  # atomic: a reader sees no folder or a complete one
        except OSError:
            if not os.path.isdir(path):
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)  # gone after a rename; the loser's copy otherwise
    return path


class SmallCNN(nn.Module):
    """Three conv blocks (conv, batch norm, ReLU; the last two halve the size), pooling, a classifier."""

    def __init__(self, width: int = 32, classes: int = CLASSES):
        super().__init__()

        def block(cin, cout, stride):
            return [nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU()]

        self.features = nn.Sequential(*block(3, width, 1), *block(width, 2 * width, 2), *block(2 * width, 4 * width, 2))
        self.head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4 * width, classes))

    def forward(self, x):
        return self.head(self.features(x))


def image_loader(settings) -> torch.utils.data.DataLoader:
    """The augmented image DataLoader of ``settings.batch`` images per batch."""
    from torchvision import datasets, transforms
    path = make_images(settings.dataset_options.get("path", DEFAULT_PATH))
    augment = transforms.Compose([
        transforms.RandomResizedCrop(CROP, scale=(0.6, 1.0)),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        transforms.Normalize(mean=[0.5, 0.5, 0.5], std=[0.25, 0.25, 0.25]),
    ])
    return torch.utils.data.DataLoader(
        datasets.ImageFolder(path, transform=augment), batch_size=settings.batch, shuffle=True, drop_last=True,
        num_workers=settings.workers, pin_memory=settings.pin_memory,
        persistent_workers=settings.workers > 0,  # no new worker processes at every pass
        generator=torch.Generator().manual_seed(settings.seed))


def build(settings: trainbench.Settings) -> trainbench.Components:
    """The factory trainbench calls once per scenario."""
    return trainbench.Components(
        model=SmallCNN(width=settings.model_options.get("width", 32)),
        loss_fn=nn.CrossEntropyLoss(),
        batches=image_loader(settings),
        # optimizer=None: trainbench builds settings.optimizer (Adam by default) with settings.learning_rate
    )


if __name__ == "__main__":  # a quick look without trainbench
    parts = build(trainbench.Settings(batch=32))
    optimizer = torch.optim.Adam(parts.model.parameters(), lr=1e-3)
    for step, (images, labels) in zip(range(5), parts.batches):
        loss = parts.loss_fn(parts.model(images), labels)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        print(f"step {step}: loss {loss.item():.3f}")
