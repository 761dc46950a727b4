#!/usr/bin/env bash
# The main job: builds mlf and takes the bundled example through pack,
# inspect, verify, keygen, sign and signed verification. Output goes to out/demo/.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
bazel build //tools/mlf:mlf
mlf=bazel-bin/tools/mlf/mlf
out=out/demo
rm -rf "$out"
mkdir -p "$out"

step() { printf '\n== %s\n' "$*"; }

step "pack examples/tiny_dense"
# The example is hand-written; archives carry their own copy of the ABI header.
cp -r examples/tiny_dense "$out/tiny_dense"
mkdir -p "$out/tiny_dense/codegen/host/include/mlf"
cp schemas/model_abi.h "$out/tiny_dense/codegen/host/include/mlf/"
"$mlf" pack "$out/tiny_dense" -o "$out/tiny.mlf.tar"

step "inspect"
"$mlf" inspect "$out/tiny.mlf.tar"

step "verify"
"$mlf" verify "$out/tiny.mlf.tar"

step "keygen + sign"
"$mlf" keygen -o "$out/release"
"$mlf" sign "$out/tiny.mlf.tar" --key "$out/release.key" -o "$out/tiny.signed.mlf.tar"

step "verify the signature"
"$mlf" verify "$out/tiny.signed.mlf.tar" --key "$out/release.pub" --require-signature

step "run on the host (sources compiled once into the cache), check against expected"
"$mlf" run "$out/tiny.signed.mlf.tar" --key "$out/release.pub" --random-inputs 1 --output-dir "$out/outputs"
"$mlf" run "$out/tiny.signed.mlf.tar" --random-inputs 1 --expect-dir "$out/outputs"

step "bench"
"$mlf" bench "$out/tiny.signed.mlf.tar" --iterations 10000 --threads 2

step "unpack"
"$mlf" unpack "$out/tiny.signed.mlf.tar" -o "$out/unpacked"
find "$out/unpacked" -type f | sort

step "firmware: the signed archive as a Cortex-M3 project (mps2-an385), built and run in QEMU"
# One sample input, as a NumPy .npy file; the host and the firmware must print the same values.
python3 - "$out/x.npy" <<'PY'
import struct, sys
header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 4), }"
header += " " * (64 - 10 - len(header) - 1) + "\n"
with open(sys.argv[1], "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
    f.write(struct.pack("<4f", 0.5, -1.0, 2.0, 0.25))
PY
"$mlf" run "$out/tiny.signed.mlf.tar" --input x="$out/x.npy"
"$mlf" project "$out/tiny.signed.mlf.tar" --key "$out/release.pub" -o "$out/firmware" \
  --platform mps2-an385 --sample-input x="$out/x.npy" --build --run

printf '\ndemo: all steps passed; archives in %s\n' "$out"
