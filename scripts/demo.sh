#!/usr/bin/env bash
# The main job: the bundled example model (examples/mnist_mlp/model.yaml) through
# export, inspect, verify, sign, host run, bench and a firmware build run in QEMU;
# then a hand-written module directory through pack. Output goes to out/demo/.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
bazel build //tools/mlf:mlf
mlf=bazel-bin/tools/mlf/mlf
out=out/demo
rm -rf "$out"
mkdir -p "$out"
export MLF_CACHE_DIR="$out/cache"

step() { printf '\n== %s\n' "$*"; }

step "export examples/mnist_mlp/model.yaml (YAML model -> C99 code, parameters, metadata)"
"$mlf" export examples/mnist_mlp/model.yaml -o "$out/mnist.mlf.tar"

step "inspect"
"$mlf" inspect "$out/mnist.mlf.tar"

step "verify"
"$mlf" verify "$out/mnist.mlf.tar"

step "keygen + sign, verify the signature"
"$mlf" keygen -o "$out/release"
"$mlf" sign "$out/mnist.mlf.tar" --key "$out/release.key" -o "$out/mnist.signed.mlf.tar"
"$mlf" verify "$out/mnist.signed.mlf.tar" --key "$out/release.pub" --require-signature

step "a sample input (a NumPy .npy file)"
/usr/bin/python3 - "$out/image.npy" <<'PY'
import math, struct, sys
header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 784), }"
header += " " * (128 - 10 - len(header) - 1) + "\n"
pixels = [0.5 + 0.5 * math.sin(i * 0.1) for i in range(784)]
with open(sys.argv[1], "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
    f.write(struct.pack("<784f", *pixels))
PY
echo "wrote $out/image.npy"

step "run on the host (signed archive, key required), then check against the saved outputs"
"$mlf" run "$out/mnist.signed.mlf.tar" --key "$out/release.pub" --input image="$out/image.npy" \
  --output-dir "$out/outputs"
"$mlf" run "$out/mnist.signed.mlf.tar" --input image="$out/image.npy" --expect-dir "$out/outputs"

step "bench on the host"
"$mlf" bench "$out/mnist.signed.mlf.tar" --iterations 2000 --threads 2

step "firmware: a Cortex-M3 project (mps2-an385), built and run in QEMU with the same input"
"$mlf" project "$out/mnist.signed.mlf.tar" --key "$out/release.pub" -o "$out/firmware" \
  --platform mps2-an385 --sample-input image="$out/image.npy" --build --run

step "pack a hand-written module directory (examples/tiny_dense), verify and run it"
# The example is hand-written; archives carry their own copy of the ABI header.
cp -r examples/tiny_dense "$out/tiny_dense"
mkdir -p "$out/tiny_dense/codegen/host/include/mlf"
cp schemas/model_abi.h "$out/tiny_dense/codegen/host/include/mlf/"
"$mlf" pack "$out/tiny_dense" -o "$out/tiny.mlf.tar"
"$mlf" verify "$out/tiny.mlf.tar"
"$mlf" run "$out/tiny.mlf.tar" --random-inputs 1

printf '\ndemo: all steps passed; archives in %s\n' "$out"
