# Sourced by scripts/test and scripts/trainbench: installs what is missing, then configures and
# builds. Quick when everything is there. Honours:
#   TRAINBENCH_VENV   virtual environment holding the torch wheel (default ~/.cache/trainbench/venv,
#                     outside the checkout so every clone and CI reuse it)
#   TRAINBENCH_PYTHON a python whose torch to use instead (e.g. the GPU machine's python3)
#   TRAINBENCH_BUILD  build directory (default <repo>/build)
#   TRAINBENCH_CMAKE_ARGS extra CMake arguments
set -euo pipefail

TB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TB_TORCH_VERSION=2.11.0
# The torchvision release built against that torch: its ResNet-50 is the reference the native
# one is tested against (tests/training/torch/test_standard_models.cpp).
TB_TORCHVISION_VERSION=0.26.0
TB_VENV=${TRAINBENCH_VENV:-$HOME/.cache/trainbench/venv}
TB_BUILD=${TRAINBENCH_BUILD:-$TB_ROOT/build}
TB_APT_PACKAGES=(cmake ninja-build ccache g++ lld nlohmann-json3-dev libgtest-dev libbenchmark-dev
  libbenchmark-tools libgloo-dev libsqlite3-dev zlib1g-dev libjpeg-dev libjs-chart.js python3-venv python3-jsonschema python3-yaml
  libpq-dev postgresql)

tb_log() { printf '[trainbench] %s\n' "$*" >&2; }

tb_install_apt() {
  # The GPU machine has no package registry: scripts/device-check.sh carries unpacked .debs.
  [ -n "${TRAINBENCH_SKIP_APT:-}" ] && return 0
  local missing=()
  for p in "${TB_APT_PACKAGES[@]}" "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  tb_log "installing Debian packages: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
}

tb_python() {
  if [ -n "${TRAINBENCH_PYTHON:-}" ]; then echo "$TRAINBENCH_PYTHON"; return; fi
  echo "$TB_VENV/bin/python"
}

tb_install_torch() {
  if [ -n "${TRAINBENCH_PYTHON:-}" ]; then return 0; fi
  if [ -x "$TB_VENV/bin/python" ] &&
     "$TB_VENV/bin/python" -c "import torch,torchvision,scipy,pytest,sys; sys.exit(0 if torch.__version__.startswith('$TB_TORCH_VERSION') and torchvision.__version__.startswith('$TB_TORCHVISION_VERSION') else 1)" 2>/dev/null; then
    return 0
  fi
  tb_log "installing torch==$TB_TORCH_VERSION (LibTorch) and torchvision==$TB_TORCHVISION_VERSION into $TB_VENV (first use only)"
  local py
  py=$(command -v python3)
  mkdir -p "$(dirname "$TB_VENV")"
  "$py" -m venv "$TB_VENV"
  "$TB_VENV/bin/pip" install -q --disable-pip-version-check "torch==$TB_TORCH_VERSION" "torchvision==$TB_TORCHVISION_VERSION" numpy scipy pytest >&2
}

# The Python loop package (python/trainbench, docs/python-loop.md) importable in the venv: a .pth
# file naming this checkout's python/ folder. trainbench's own workers do not need it (they are
# started with this checkout's package first on PYTHONPATH); a user's own scripts do.
tb_link_python_package() {
  [ -n "${TRAINBENCH_PYTHON:-}" ] && return 0
  local site
  site=$("$TB_VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  [ "$(cat "$site/trainbench-python.pth" 2>/dev/null)" = "$TB_ROOT/python" ] && return 0
  echo "$TB_ROOT/python" >"$site/trainbench-python.pth"
}

tb_configure_and_build() {
  local py prefix
  py=$(tb_python)
  prefix=$("$py" -c 'import torch; print(torch.utils.cmake_prefix_path)')
  export CCACHE_BASEDIR="$TB_ROOT" CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/trainbench/ccache}
  export CCACHE_SLOPPINESS=${CCACHE_SLOPPINESS:-pch_defines,time_macros,include_file_mtime,include_file_ctime}
  export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
  if [ ! -f "$TB_BUILD/build.ninja" ]; then
    tb_log "configuring $TB_BUILD"
    cmake -S "$TB_ROOT" -B "$TB_BUILD" -G Ninja -DCMAKE_PREFIX_PATH="$prefix${TRAINBENCH_EXTRA_PREFIX:+;$TRAINBENCH_EXTRA_PREFIX}" \
      -DTRAINBENCH_PYTHON="$py" \
      ${TRAINBENCH_CMAKE_ARGS:-} >"$TB_BUILD.configure.log" 2>&1 ||
      { cat "$TB_BUILD.configure.log" >&2; return 1; }
  fi
  local jobs=${TRAINBENCH_JOBS:-$(nproc)}
  cmake --build "$TB_BUILD" -j "$jobs" "$@" >&2
}

tb_setup() {
  tb_install_apt
  tb_install_torch
  tb_link_python_package
  tb_configure_and_build "$@"
}
