"""A oneDNN bug in plain PyTorch, kept as the smallest reproducer of what took trainbench's whole
field matrix down (scenarios/field.json shrunk to width 4: the fp32 channels_last scenarios).

A 1x1 convolution with stride 2 and 4 input channels on channels-last input: its weight
gradient runs oneDNN's jit_avx2_1x1_convolution_bwd_weights_t (ONEDNN_VERBOSE: jit_1x1:avx2,
weights blocked ABcd8b8a, i.e. the 4 input channels padded to 8). With two intra-op threads the
gradient is wrong (59% off a float64 reference on an 8x8 input); with one thread the kernel writes
past its buffer (valgrind: "Invalid write of size 8" in that kernel) and glibc aborts ("free():
invalid next size", "double free or corruption") or the process segfaults. Seen with torch
2.11.0 on an AMD EPYC without AVX-512, and on an Intel Xeon with ONEDNN_MAX_CPU_ISA=AVX2;
8 or more input channels, or a CPU class whose oneDNN picks another kernel, are fine.

Exit 0 and "ok" when this LibTorch has neither fault here; 3 when the gradient is wrong but
nothing crashed; killed by a signal when it crashes.
Run: python onednn_channels_last_1x1_conv.py
"""
import copy
import sys

import torch

torch.manual_seed(0)
conv = torch.nn.Conv2d(4, 8, kernel_size=1, stride=2, bias=False)

# Two threads: compare the weight gradient with a float64 reference.
torch.set_num_threads(2)
x = torch.randn(4, 4, 8, 8, dtype=torch.float64)
reference = copy.deepcopy(conv).double()
reference(x).square().sum().backward()
nhwc = copy.deepcopy(conv).to(memory_format=torch.channels_last)
nhwc(x.float().to(memory_format=torch.channels_last)).square().sum().backward()
error = ((nhwc.weight.grad.double() - reference.weight.grad).abs().max() / reference.weight.grad.abs().max()).item()
wrong = error > 1e-4
print(f"weight gradient, 2 threads: relative error {error:.2e} against float64", flush=True)

# One thread: the heap corruption.
torch.set_num_threads(1)
x = torch.randn(8, 4, 16, 16).to(memory_format=torch.channels_last).requires_grad_()
conv = conv.to(memory_format=torch.channels_last)
for _ in range(3):
    conv(x).sum().backward()
print("wrong gradient, no crash" if wrong else "ok", flush=True)
sys.exit(3 if wrong else 0)
