#!/usr/bin/env bash
# Runs python/tests with pytest under Debian's /usr/bin/python3 (which has
# NumPy and PyTorch; the first python3 on PATH may not), on the package as
# Bazel built it, with the examples as data.
set -euo pipefail
root="${TEST_SRCDIR:-$PWD/..}/mlfkit"
export PYTHONPATH="$root/python"
export MLFKIT_EXAMPLES="$root/examples"
export MLFKIT_MLF="$root/tools/mlf/mlf"
export MLF_CACHE_DIR="${TEST_TMPDIR:-$(mktemp -d)}/cache"
cd "${TEST_TMPDIR:-/tmp}"
exec /usr/bin/python3 -m pytest -p no:cacheprovider -q "$root/python/tests/test_mlfkit.py" \
  --junitxml="${XML_OUTPUT_FILE:-/dev/null}"
