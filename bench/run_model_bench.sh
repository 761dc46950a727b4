#!/usr/bin/env bash
# mlfkit against ONNX Runtime on torchvision ResNet18, MobileNetV2, SqueezeNet
# 1.1, LeNet-5 and an MLP (bench/models): latency, ratio, GMAC/s, and a check
# that both give the same outputs. See --help and bench/README.md.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)

usage() {
  cat <<'USAGE'
usage: bench/run_model_bench.sh [--models M,M...] [--iterations N] [--warmup W]
                                [--rounds R] [--threads T,T...] [--json]
                                [--work-dir DIR] [--mlf PATH --models-dir DIR]

Builds mlf and the ONNX models with bazel (the models are exported once by
PyTorch and then come from the disk cache), installs ONNX Runtime for Node
into its cache directory when missing (bench/ort/install_ort.sh: the npm
registry is needed once), then for each model:
  1. mlf export MODEL.onnx (timed; archive size; MACs from the metadata)
  2. mlf run and ONNX Runtime on one random input (seed 0): outputs must match
     within rtol 1e-3 / atol 1e-4
  3. R rounds of `mlf bench --json` and bench/ort/time_session.js, interleaved
     (ONNX Runtime: intraOpNumThreads T, interOpNumThreads 1, sequential,
     graphOptimizationLevel all), W warm-up and N timed runs each
Prints the date, CPU model and flags, the load average before and after (the
figures vary with other work on the machine), a table of p50 latency (the
median of the rounds' p50), ratio mlfkit/ONNX Runtime and GMAC/s, then one
JSON line. Exit status 1 when a model fails, lacks a figure or its outputs
differ; 2 on bad usage. All five models took 8.5 min with --iterations 30 on a
loaded 2-core machine (load average 12).

  --models M,M...   of resnet18, mobilenet_v2, squeezenet1_1, mobilenet_v2_int8,
                    lenet5, mlp (default all); the int8 model's outputs are
                    compared by correlation (>= 0.95) with ONNX Runtime's
  --iterations N    timed runs per round and side (default 50)
  --warmup W        untimed runs before them (default 10)
  --rounds R        rounds per model and thread count (default 3)
  --threads T,T...  intra-op threads of both sides, one table row each
                    (default 1): ONNX Runtime's intraOpNumThreads and `mlf
                    bench --threads` (an mlf from before intra-op threads
                    runs on 1, and the report says so)
  --json            print only the JSON line
  --work-dir DIR    keep archives, inputs and outputs in DIR (default: a
                    temporary directory, removed)
  --mlf PATH, --models-dir DIR   use this mlf and these MODEL.onnx files
                    instead of building them (both or neither; no bazel runs)

Environment: MLF_ORT_DIR, ONNX Runtime's cache directory (default
~/.cache/mlfkit-ort).
USAGE
}

args=()
mlf=""
models_dir=""
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --mlf|--models-dir)
      if [ $# -lt 2 ]; then echo "run_model_bench: $1 needs a value" >&2; exit 2; fi
      if [ "$1" = --mlf ]; then mlf=$2; else models_dir=$2; fi
      shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
if { [ -n "$mlf" ] && [ -z "$models_dir" ]; } || { [ -z "$mlf" ] && [ -n "$models_dir" ]; }; then
  echo "run_model_bench: --mlf and --models-dir go together" >&2
  exit 2
fi

if [ -z "$mlf" ]; then
  # The bazel-bin symlink follows whichever configuration was built last:
  # ask bazel for this configuration's directory.
  bin=$(cd "$repo" && bazel build //tools/mlf:mlf //bench/models:all_models >&2 &&
        bazel info bazel-bin 2>/dev/null)
  mlf=$bin/tools/mlf/mlf
  models_dir=$bin/bench/models
fi

NODE_PATH=$("$repo/bench/ort/install_ort.sh" --print-dir)
export NODE_PATH
exec /usr/bin/python3 "$repo/bench/model_bench.py" --mlf "$mlf" --models-dir "$models_dir" \
  --time-session "$repo/bench/ort/time_session.js" ${args[@]+"${args[@]}"}
