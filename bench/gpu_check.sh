#!/usr/bin/env bash
# GPU check (issues 7 and 19), for when a machine with an NVIDIA GPU is at hand; the whole run
# is bounded by GPU_CHECK_TIMEOUT seconds (default 290, inside a 5-minute device call):
#   1. nsm doctor (toolchain, ptxas, libdevice, GPU, driver, compute capability);
#   2. the kernel tests and Frost's device tests with CI=true (nothing may skip), including
#      the GPU execution tests that CI skips;
#   3. MNIST MLP and CNN on cuda for 1 epoch against the CPU run (accuracy within 0.5 points);
#   4. nsm bench resnet18 --device cuda --steps 50, against torch on the same GPU when a CUDA
#      torch is importable (its version is recorded), else against the CPU figures;
#   5. saxpy and reduction bandwidth as fractions of device-to-device copy bandwidth, and one
#      AdamW step's bandwidth through Frost (bench/gpu/adamw.nv, CUDA events);
#   6. HGEMM at 4096^3 (issue 20, bench/kernels/hgemm_gpu.py): Neve's bench/kernels/hgemm.nv
#      against the nvcc-built mma.sync kernel of the same tiling (goal >= 0.60) and cuBLAS.
#   7. Frost's GEMM in TFLOP/s through cuBLAS (the nvidia-cublas wheel or the system's) and
#      through its own kernel (NEVE_CUBLAS_LIB=none), bench/gpu/gemm.nv.
#   8. frost/distributed's NCCL path at world size 1 (bench/distributed/nccl_check.sh; skipped
#      with a note when no libnccl.so.2 is installed).
# Fails fast, with the reason, when no GPU is usable. Results go to bench/out/gpu/ ($OUT).
# On a lent machine without a venv: PY=python3 with the carried build, see bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
[ -x "$PY" ] || PY=python3
OUT=${OUT:-bench/out/gpu}
mkdir -p "$OUT"
if [ -z "${GPU_CHECK_INNER:-}" ]; then
    GPU_CHECK_INNER=1 exec timeout --kill-after=10 "${GPU_CHECK_TIMEOUT:-290}" "$0" "$@"
fi
NSM=("$PY" -m nsm.cli)
T0=$(date +%s)
stamp() { echo "== [$(( $(date +%s) - T0 )) s] $*"; }

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

stamp "nsm doctor"
"${NSM[@]}" doctor | tee "$OUT/doctor.txt"

stamp "kernel and Frost device tests (CI=true: ptxas required; GPU tests must run, not skip)"
CI=true "$PY" -m pytest -q -rs tests/kernels tests/frost/test_device.py tests/frost/test_device_ops.py "$@" | tee "$OUT/tests.txt"
if grep -qE "SKIPPED.*(test_gpu|test_device|test_frost_ptx|test_warp_ptx)" "$OUT/tests.txt"; then
    echo "gpu_check: tests were skipped" >&2
    exit 1
fi

stamp "MNIST MLP and CNN, 1 epoch, cuda vs cpu"
for ex in mnist_mlp mnist_cnn; do
    for dev in cpu cuda; do
        "${NSM[@]}" run --release "packages/frost/examples/$ex.nv" epochs=1 device=$dev \
            | tee "$OUT/$ex.$dev.txt"
    done
done
"$PY" - "$OUT" <<'PYEOF'
import re, sys
from pathlib import Path
out, ok = Path(sys.argv[1]), True
for ex in ("mnist_mlp", "mnist_cnn"):
    acc = {d: float(re.search(r"summary .* test_accuracy ([\d.]+)%", (out / f"{ex}.{d}.txt").read_text())[1])
           for d in ("cpu", "cuda")}
    good = abs(acc["cuda"] - acc["cpu"]) <= 0.5
    ok &= good
    print(f"{ex}: cpu {acc['cpu']:.2f}%  cuda {acc['cuda']:.2f}%  {'ok' if good else 'DIFFERS'}")
sys.exit(0 if ok else 1)
PYEOF

stamp "nsm bench resnet18 --device cuda --steps 50"
CMP=()
if "$PY" -c "import torch, sys; print('torch', torch.__version__); sys.exit(0 if torch.cuda.is_available() else 1)" \
        | tee "$OUT/torch_version.txt"; then
    CMP=(--compare torch)
fi
"${NSM[@]}" bench resnet18 --device cuda --steps 50 --warmup 3 "${CMP[@]}" --out "$OUT/resnet18" \
    | tee "$OUT/resnet18.txt"

stamp "bandwidth (saxpy, reduction, Frost AdamW) vs cuMemcpyDtoD"
"$PY" bench/gpu_bench.py --n "${N:-50000000}" --json "$OUT/bandwidth.json" | tee "$OUT/bandwidth.txt"
NEVE_DEVICE=cuda "${NSM[@]}" run --release bench/gpu/adamw.nv "${ADAMW_N:-16000000}" | tee "$OUT/adamw.txt"
stamp "HGEMM 4096^3: Neve vs nvcc mma.sync reference vs cuBLAS"
"$PY" bench/kernels/hgemm_gpu.py --size "${HGEMM_SIZE:-4096}" --json "$OUT/hgemm.json" | tee "$OUT/hgemm.txt"
stamp "GEMM TFLOP/s: cuBLAS, then Frost's kernel"
NEVE_DEVICE=cuda "${NSM[@]}" run --release bench/gpu/gemm.nv "${GEMM_N:-4096}" 10 | tee "$OUT/gemm.txt"
NEVE_DEVICE=cuda NEVE_CUBLAS_LIB=none "${NSM[@]}" run --release bench/gpu/gemm.nv "${GEMM_N:-4096}" 2 \
    | tee -a "$OUT/gemm.txt"
stamp "frost/distributed over NCCL, world size 1"
rc=0
OUT="$OUT" PY="$PY" bench/distributed/nccl_check.sh || rc=$?
[ "$rc" = 0 ] || [ "$rc" = 2 ] || exit "$rc"
stamp "gpu_check: all passed; results in $OUT/"
