#!/usr/bin/env bash
# Builds the mlfkit Python package and writes its wheel (Debian 12, CPython 3.11,
# x86-64; linked against Debian's shared libraries, no dependency pip would fetch).
#
#   scripts/wheel.sh [OUT_DIR]          default OUT_DIR: dist/
#   python3 -m venv --system-site-packages venv   # NumPy from python3-numpy
#   venv/bin/pip install --no-index dist/mlfkit-*.whl
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
  sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
out="${1:-dist}"
scripts/setup.sh
bazel build //python:mlfkit >&2
/usr/bin/python3 python/wheel/make_wheel.py bazel-bin/python/mlfkit "$out"
