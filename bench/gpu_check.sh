#!/usr/bin/env bash
# GPU check for issue 7, for when a machine with an NVIDIA GPU is at hand (a few minutes):
#   1. nsm doctor (toolchain, ptxas, libdevice, GPU, driver, compute capability);
#   2. every kernel test with CI=true (ptxas must be present; nothing may skip for want of it),
#      including the GPU execution tests that CI skips;
#   3. the golden kernel programs run by their executables on the GPU back end;
#   4. saxpy and reduction bandwidth as fractions of the device's copy bandwidth.
# Fails fast, with the reason, when no GPU is usable. Results also go to bench/out/gpu/.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
[ -x "$PY" ] || PY=python3
OUT=${OUT:-bench/out/gpu}
mkdir -p "$OUT"

"$PY" - <<'PYEOF' || { echo "gpu_check: no usable GPU; nothing checked" >&2; exit 2; }
import sys
sys.path[:0] = [".", "tests"]
from kernels.gpu_harness import Gpu
g = Gpu.open()
if g is None:
    print(f"gpu_check: {Gpu.why}", file=sys.stderr)
    sys.exit(1)
print(f"gpu_check: using {g.name()}")
PYEOF

echo "== nsm doctor"
"$PY" -m nsm.cli doctor | tee "$OUT/doctor.txt"

echo "== kernel tests (CI=true: ptxas required; GPU tests must run, not skip)"
CI=true "$PY" -m pytest -q -rs tests/kernels "$@" | tee "$OUT/tests.txt"
if grep -q "SKIPPED.*test_gpu" "$OUT/tests.txt"; then
    echo "gpu_check: GPU tests were skipped" >&2
    exit 1
fi

echo "== bandwidth (saxpy, reduction) vs cuMemcpyDtoD"
"$PY" bench/gpu_bench.py --n "${N:-50000000}" --json "$OUT/bandwidth.json" | tee "$OUT/bandwidth.txt"
echo "gpu_check: all passed; results in $OUT/"
