// Precompiled once per build and used by every unit that links LibTorch: trainbench's torch/
// folders, the commands and the torch tests (cmake/precompiled_headers.cmake). ATen.h, which
// nearly every such unit reaches through torch/nn or torch/optim, is 8-10 s of parsing per unit;
// the module, optimizer and data headers add most of the rest. Units still include what they
// use: the build without precompiled headers (TRAINBENCH_PCH=OFF) checks that they do.
#pragma once

#include "core.hpp"

#include <ATen/ATen.h>
#include <torch/data/example.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/optim/optimizer.h>
