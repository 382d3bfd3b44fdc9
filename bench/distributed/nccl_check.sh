#!/usr/bin/env bash
# The NCCL path of frost/distributed on a real GPU (issue 21), world size 1 (one lent GPU): the
# collectives of CUDA tensors through libnccl.so.2 (the nvidia-nccl-cu12 wheel, or NEVE_NCCL_LIB),
# and 5 SGD steps of the test MLP through DataParallel on cuda against the same steps on the CPU
# (parameters to 1e-4 relative: the device GEMM rounds differently). bench/gpu_check.sh runs it;
# alone: bench/distributed/nccl_check.sh (PY, NSM and OUT as there). Exit 2: no libnccl found.
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=${PY:-.venv/bin/python}
[ -x "$PY" ] || PY=python3
NSM=("$PY" -m nsm.cli)
OUT=${OUT:-bench/out/gpu}
mkdir -p "$OUT"
DRIVER=tests/frost/dist_driver.nv
SITE=$("$PY" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
if [ -z "${NEVE_NCCL_LIB:-}" ] && ! ls "$SITE"/nvidia/nccl/lib/libnccl.so.2 "$SITE"/nvidia/cu13/lib/libnccl.so.2 \
        2>/dev/null | grep -q . && ! ldconfig -p | grep -q libnccl.so.2; then
    echo "nccl_check: no libnccl.so.2 (pip install nvidia-nccl-cu12, or set NEVE_NCCL_LIB)" >&2
    exit 2
fi
export NEVE_DEVICE=cuda
want='nccl cuda:0 sum [1.0, 0.0] avg [1.0, 0.0] bcast [1.0, 0.0] gather ["cuda:0 [1.0, 0.0]"]'
got=$("${NSM[@]}" run "$DRIVER" nccl_ops | tee "$OUT/nccl_ops.txt")
[ "$got" = "$want" ] || { echo "nccl_check: collectives gave: $got" >&2; exit 1; }
"${NSM[@]}" run "$DRIVER" nccl_mlp "$OUT/nccl_mlp.safetensors" sgd 0.004 16 5 | tee "$OUT/nccl_mlp.txt"
NEVE_DEVICE=cpu "${NSM[@]}" run "$DRIVER" mlp "$OUT/cpu_mlp.safetensors" sgd 25 16 5
"$PY" - "$OUT" <<'PYEOF'
import sys
import numpy as np
from safetensors.numpy import load_file
a, b = (load_file(f"{sys.argv[1]}/{n}_mlp.safetensors") for n in ("nccl", "cpu"))
rel = max(float(np.abs(a[k] - b[k]).max() / np.abs(b[k]).max()) for k in b)
print(f"nccl_check: DataParallel over NCCL on cuda vs the CPU: max relative difference {rel:.1e}")
sys.exit(0 if rel < 1e-4 else 1)
PYEOF
echo "nccl_check: passed"
