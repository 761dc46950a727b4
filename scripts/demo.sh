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

printf '\ndemo: all steps passed; archives in %s\n' "$out"
