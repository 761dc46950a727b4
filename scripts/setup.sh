#!/usr/bin/env bash
# Installs every Debian package mlfkit needs to build, test and run its main job,
# then ONNX Runtime for Node from npm, the model benchmark's baseline
# (bench/ort/install_ort.sh, into ~/.cache/mlfkit-ort or $MLF_ORT_DIR).
# Idempotent: when everything is present it prints nothing and exits 0.
set -euo pipefail

PACKAGES=(
  # build
  bazel-bootstrap bazel-rules-java g++ gcc make cmake
  # the SDK's consumers are built with CMake and with pkg-config (sdk/sdk_test.sh)
  pkgconf
  # libraries linked by the project
  libarchive-dev libyaml-cpp-dev nlohmann-json3-dev libssl-dev libgtest-dev
  libdlpack-dev libonnx-dev libprotobuf-dev libzstd-dev zlib1g-dev
  # test data and tools used by tests and benchmarks
  json-schema-test-suite libonnx-testdata tar gzip zstd coreutils python3 python3-numpy
  # QOperator and contrib-domain test models written with the ONNX helper API
  python3-onnx
  # model benchmark (bench/run_model_bench.sh): torchvision models exported by
  # PyTorch, ONNX Runtime from npm (bench/ort/install_ort.sh) run by Node
  python3-torch python3-torchvision npm
  # the Python package (python/): pybind11, the interpreter's headers, pytest;
  # python3-venv for installing the wheel into a virtual environment
  pybind11-dev python3-dev python3-pytest python3-venv
  # firmware projects: Cortex-M cross compiler, its C library, the MPS2 boards in QEMU
  gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm
  # fuzzing (scripts/fuzz.sh): clang with libFuzzer and its ASan/UBSan runtimes
  clang-14 libclang-rt-14-dev
)

# Virtual packages an installed package provides count as present (a Node.js
# build from another source provides npm and conflicts with Debian's package).
provided=" $(dpkg-query -W -f='${Status}|${Provides}\n' 2>/dev/null |
  sed -n 's/^install ok installed|//p' | sed 's/ *([^)]*)//g; s/ *, */ /g' | tr '\n' ' ') "

missing=()
for pkg in "${PACKAGES[@]}"; do
  if [[ "$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null)" != "install ok installed" ]] &&
     [[ "$provided" != *" $pkg "* ]]; then
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  echo "setup: installing ${missing[*]}" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

"$(dirname "$0")/../bench/ort/install_ort.sh"
