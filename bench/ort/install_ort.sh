#!/usr/bin/env bash
# Installs ONNX Runtime for Node (npm onnxruntime-node, pinned below) into a
# cache directory, the baseline of bench/run_model_bench.sh. Needs the npm
# registry once; afterwards everything runs offline. Idempotent: when the
# pinned version is already there it prints nothing and exits 0.
#
# Directory: $MLF_ORT_DIR, default ~/.cache/mlfkit-ort; the package lands in
# DIR/<version>/node_modules (the benchmark sets NODE_PATH to that).
# --print-dir prints that node_modules directory (after installing).
# MLF_ORT_NO_INSTALL=1: never install (tests run offline); a missing
# installation is an error naming this script.
#
# --ignore-scripts: the package's install script only downloads GPU (CUDA,
# TensorRT) libraries, which fails offline; the CPU library is in the package.
set -euo pipefail

ORT_VERSION=1.30.0

dir=${MLF_ORT_DIR:-$HOME/.cache/mlfkit-ort}
target=$dir/$ORT_VERSION
modules=$target/node_modules

installed() {
  [ -f "$modules/onnxruntime-node/package.json" ] &&
    grep -q "\"version\": \"$ORT_VERSION\"" "$modules/onnxruntime-node/package.json"
}

if ! installed && [ "${MLF_ORT_NO_INSTALL:-0}" = 1 ]; then
  echo "install_ort: onnxruntime-node $ORT_VERSION is not installed in $target; run" \
    "bench/ort/install_ort.sh (scripts/setup.sh does) with the npm registry reachable" >&2
  exit 1
fi
if ! installed; then
  if ! command -v npm >/dev/null; then
    echo "install_ort: npm not found (scripts/setup.sh installs it)" >&2
    exit 1
  fi
  mkdir -p "$dir"
  # Installed next to its final place and renamed there, so an interrupted
  # install never looks complete.
  staging=$(mktemp -d "$dir/.install-$ORT_VERSION.XXXXXX")
  trap 'rm -rf "$staging"' EXIT
  echo "install_ort: installing onnxruntime-node@$ORT_VERSION into $target" >&2
  if ! npm install --prefix "$staging" --ignore-scripts --no-audit --no-fund --no-save \
      --loglevel=error "onnxruntime-node@$ORT_VERSION" >&2; then
    echo "install_ort: npm install of onnxruntime-node@$ORT_VERSION failed (it needs the npm" \
      "registry once; set MLF_ORT_DIR to use another directory)" >&2
    exit 1
  fi
  rm -rf "$target"
  mv "$staging" "$target"
  trap - EXIT
fi

if [ "${1:-}" = --print-dir ]; then
  echo "$modules"
fi
