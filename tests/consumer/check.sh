#!/usr/bin/env bash
# The consumer test: install the trainbench that this build made into a scratch prefix, build
# tests/consumer against it with find_package, and run the user's model through trainbench's
# run command. Arguments: SOURCE_DIR BINARY_DIR TORCH_CMAKE_DIR.
set -euo pipefail
src=$1 build=$2 torch_cmake=$3
work=$build/consumer-test
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
cmake -S "$src/tests/consumer" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$work/prefix;$torch_cmake" ${CMAKE_CXX_COMPILER_LAUNCHER:+-DCMAKE_CXX_COMPILER_LAUNCHER=$CMAKE_CXX_COMPILER_LAUNCHER} \
  > "$work/configure.log" || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/build" > "$work/build.log" || { cat "$work/build.log"; exit 1; }
bin=$work/build/my_bench
# The user's model is listed beside the built-ins, with its declared option.
# (Into a file first: grep -q stops reading at its match, and tee would then fail on the pipe.)
"$bin" models > "$work/models.txt"
grep -q "tiny_linear" "$work/models.txt"
grep -q "model_options.scale" "$work/models.txt"
grep -q "^  mlp " "$work/models.txt"
# A bad option of the user's model is refused by trainbench's validation (exit 2, named).
if "$bin" list "$src/tests/consumer/tiny.json" --set model_options.scale=2 2> "$work/bad.txt"; then
  echo "consumer: model_options.scale=2 was accepted"; exit 1
fi
grep -q "model_options.scale" "$work/bad.txt"
# It runs, every scenario ok, and the results validate.
OMP_NUM_THREADS=1 "$bin" run "$src/tests/consumer/tiny.json" --out "$work/run" --format md --no-history > "$work/run.log" 2>&1 \
  || { cat "$work/run.log"; exit 1; }
python3 - "$work/run/results.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
bad = [(s["id"], s["status"]) for s in r["scenarios"] if s["status"] != "ok"]
assert len(r["scenarios"]) == 2 and not bad, (len(r["scenarios"]), bad)
assert all(s["params"]["model"] == "tiny_linear" for s in r["scenarios"])
print("consumer: 2 scenarios of tiny_linear ok")
PY
