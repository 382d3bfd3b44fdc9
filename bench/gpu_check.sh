#!/usr/bin/env bash
# GPU check (issues 7 and 19), for when a machine with an NVIDIA GPU is at hand. The run ends
# within GPU_CHECK_TIMEOUT seconds (default 290, inside a 5-minute device call): each step has
# its own time limit (seconds, below; GPU_CHECK_<STEP>_S overrides one, e.g. GPU_CHECK_HGEMM_S=60),
# cut to the time left, and its build is counted in it (`nsm run --release` builds first). The
# most important numbers come first:
#   doctor       (10) nsm doctor: toolchain, ptxas, libdevice, GPU, driver, compute capability;
#   frost_device (65) Frost's device tests (test_device.py, test_device_ops.py) with CI=true:
#                     nothing may skip, the GPU execution tests included;
#   hgemm        (45) HGEMM at 4096^3 (issue 20, bench/kernels/hgemm_gpu.py): Neve's
#                     bench/kernels/hgemm.nv against the nvcc-built mma.sync kernel of the same
#                     tiling (goal >= 0.60) and cuBLAS;
#   nccl         (30) frost/distributed's NCCL path at world size 1 (bench/distributed/
#                     nccl_check.sh; SKIP when no libnccl.so.2 is installed);
#   kernels      (40) the kernel tests with CI=true;
#   gemm         (25) Frost's GEMM in TFLOP/s through cuBLAS and through its own kernel
#                     (NEVE_CUBLAS_LIB=none), bench/gpu/gemm.nv;
#   bandwidth    (20) saxpy and reduction bandwidth as fractions of device-to-device copy
#                     bandwidth, and one AdamW step through Frost (bench/gpu/adamw.nv);
#   resnet18     (25) nsm bench resnet18 --device cuda --steps 50, against torch on the same GPU
#                     when a CUDA torch is importable (its version is recorded);
#   mnist        (15) MNIST MLP and CNN on cuda for 1 epoch against the CPU run (accuracy
#                     within 0.5 points).
# Then one line per step, PASS, FAIL, TIMEOUT or SKIP with its seconds (also $OUT/summary.txt);
# the exit status is 0 when none failed or timed out. Fails fast, with the reason, when no GPU
# is usable (exit 2). Results go to bench/out/gpu/ ($OUT). --dry-run runs no step (each says
# what it is; GPU_CHECK_DRY_FAIL / GPU_CHECK_DRY_HANG name steps that fail / hang instead), to
# check this script without a GPU. On a lent machine without a venv: PY=python3 with the carried
# build, see bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
DRY=
if [ "${1:-}" = "--dry-run" ]; then
    DRY=1
    shift
fi
PY=${PY:-.venv/bin/python}
[ -x "$PY" ] || PY=python3
OUT=${OUT:-bench/out/gpu}
mkdir -p "$OUT"
TOTAL=${GPU_CHECK_TIMEOUT:-290}
if [ -z "${GPU_CHECK_INNER:-}" ]; then        # a backstop: the step limits end the run before
    GPU_CHECK_INNER=1 exec timeout --kill-after=5 "$TOTAL" "$0" ${DRY:+--dry-run} "$@"
fi
T0=$(date +%s)
DEADLINE=$((T0 + TOTAL - 8))                  # the summary's margin
KILL_AFTER=3
export PY OUT
stamp() { echo "== [$(( $(date +%s) - T0 )) s] $*"; }
nsm_() { "$PY" -m nsm.cli "$@"; }

if [ -z "$DRY" ]; then
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
fi

# ------------------------------------------------------------------ the steps

step_doctor() {
    nsm_ doctor | tee "$OUT/doctor.txt"
}

no_skips() {      # FILE: the GPU tests ran rather than skipped
    if grep -qE "SKIPPED.*(test_gpu|test_device|test_frost_ptx|test_warp_ptx)" "$1"; then
        echo "gpu_check: tests were skipped" >&2
        return 1
    fi
}

step_frost_device() {
    CI=true "$PY" -m pytest -q -rs tests/frost/test_device.py tests/frost/test_device_ops.py "$@" \
        | tee "$OUT/frost_device.txt"
    no_skips "$OUT/frost_device.txt"
}

step_hgemm() {
    "$PY" bench/kernels/hgemm_gpu.py --size "${HGEMM_SIZE:-4096}" --json "$OUT/hgemm.json" \
        | tee "$OUT/hgemm.txt"
}

step_nccl() {
    OUT="$OUT" PY="$PY" bench/distributed/nccl_check.sh
}

step_kernels() {
    CI=true "$PY" -m pytest -q -rs tests/kernels "$@" | tee "$OUT/kernels.txt"
    no_skips "$OUT/kernels.txt"
}

step_gemm() {
    NEVE_DEVICE=cuda nsm_ run --release bench/gpu/gemm.nv "${GEMM_N:-4096}" 10 | tee "$OUT/gemm.txt"
    NEVE_DEVICE=cuda NEVE_CUBLAS_LIB=none nsm_ run --release bench/gpu/gemm.nv "${GEMM_N:-4096}" 2 \
        | tee -a "$OUT/gemm.txt"
}

step_bandwidth() {
    "$PY" bench/gpu_bench.py --n "${N:-50000000}" --json "$OUT/bandwidth.json" | tee "$OUT/bandwidth.txt"
    NEVE_DEVICE=cuda nsm_ run --release bench/gpu/adamw.nv "${ADAMW_N:-16000000}" | tee "$OUT/adamw.txt"
}

step_resnet18() {
    local cmp=()
    if "$PY" -c "import torch, sys; print('torch', torch.__version__); sys.exit(0 if torch.cuda.is_available() else 1)" \
            | tee "$OUT/torch_version.txt"; then
        cmp=(--compare torch)
    fi
    nsm_ bench resnet18 --device cuda --steps 50 --warmup 3 "${cmp[@]}" --out "$OUT/resnet18" \
        | tee "$OUT/resnet18.txt"
}

step_mnist() {
    for ex in mnist_mlp mnist_cnn; do
        for dev in cpu cuda; do
            nsm_ run --release "packages/frost/examples/$ex.nv" epochs=1 device=$dev \
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
}

step_dry() {      # --dry-run: NAME
    case " ${GPU_CHECK_DRY_FAIL:-} " in *" $1 "*) echo "dry run: $1 fails"; return 1 ;; esac
    case " ${GPU_CHECK_DRY_HANG:-} " in *" $1 "*) echo "dry run: $1 hangs"; sleep 600 ;; esac
    echo "dry run: $1"
}

# ------------------------------------------------------------------ running them

export -f stamp nsm_ no_skips step_doctor step_frost_device step_hgemm step_nccl step_kernels \
    step_gemm step_bandwidth step_resnet18 step_mnist step_dry
SUMMARY=()
FAILED=0

run_step() {      # NAME LIMIT [pytest args]: step_NAME under min(LIMIT, the time left)
    local name=$1 limit=$2
    shift 2
    local var="GPU_CHECK_${name^^}_S"
    limit=${!var:-$limit}
    local left=$((DEADLINE - $(date +%s) - KILL_AFTER))
    local t=$((limit < left ? limit : left))
    if [ "$t" -le 0 ]; then
        SUMMARY+=("$(printf '%-13s TIMEOUT   0 s (not started: no time left)' "$name")")
        FAILED=1
        return
    fi
    stamp "$name (at most $t s)"
    local fn="step_$name" s0 rc=0 status
    [ -z "$DRY" ] || set -- "$name"
    [ -z "$DRY" ] || fn=step_dry
    s0=$(date +%s)
    timeout --kill-after=$KILL_AFTER "$t" bash -c 'set -euo pipefail; "$@"' _ "$fn" "$@" || rc=$?
    case "$rc" in
        0) status=PASS ;;
        124|137) status=TIMEOUT ;;
        2) if [ "$name" = nccl ]; then status=SKIP; else status=FAIL; fi ;;
        *) status=FAIL ;;
    esac
    [ "$status" = PASS ] || [ "$status" = SKIP ] || FAILED=1
    SUMMARY+=("$(printf '%-13s %-7s %3d s of %d' "$name" "$status" $(( $(date +%s) - s0 )) "$t")")
}

run_step doctor 10
run_step frost_device 65 "$@"
run_step hgemm 45
run_step nccl 30
run_step kernels 40 "$@"
run_step gemm 25
run_step bandwidth 20
run_step resnet18 25
run_step mnist 15

stamp "summary (results in $OUT/)"
printf '%s\n' "${SUMMARY[@]}" | tee "$OUT/summary.txt"
exit "$FAILED"
