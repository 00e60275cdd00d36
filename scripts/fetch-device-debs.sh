#!/usr/bin/env bash
# Run HERE (not on the GPU machine): downloads the Debian packages the build needs that the GPU
# machine's image lacks (it has torch, nvcc, CMake and ninja but no registry) into .device/debs,
# which .gitignore excludes and the device tool carries (carry: [".device"]).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
mkdir -p .device/debs
cd .device/debs
apt-get download nlohmann-json3-dev libgtest-dev libgmock-dev googletest libbenchmark-dev \
  libbenchmark1debian libsqlite3-dev libsqlite3-0 libjpeg62-turbo-dev libjpeg62-turbo libjpeg-dev \
  zlib1g-dev libjs-chart.js libgloo-dev 2>&1 | tail -2
ls -la
