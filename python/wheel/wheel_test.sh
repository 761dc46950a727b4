#!/usr/bin/env bash
# The wheel as a user installs it: made from the package Bazel built, installed
# offline with pip into a fresh venv (--system-site-packages, for Debian's
# NumPy), imported from outside the source tree, and used to export and run a
# model. Also: the wheel is deterministic and holds exactly the package.
set -euo pipefail
root="${TEST_SRCDIR}/mlfkit"
work="${TEST_TMPDIR}"
cd "$work"

# Bad use: each error exact, with its exit status, and no wheel written.
expect_refusal() {  # STATUS MESSAGE-START ARGS...
  local want_status=$1 want=$2 status=0 got
  shift 2
  got=$(/usr/bin/python3 "$root/python/wheel/make_wheel.py" "$@" 2>&1 >/dev/null) || status=$?
  [ "$status" = "$want_status" ] || { echo "make_wheel $*: exit $status, want $want_status"; exit 1; }
  case "$got" in
    "$want"*) ;;
    *) echo "make_wheel $*: printed '$got', want '$want...'"; exit 1 ;;
  esac
}
mkdir incomplete && cp "$root/python/mlfkit/__init__.py" incomplete/
expect_refusal 1 "make_wheel: error: incomplete has no __init__.pyi: build //python:mlfkit first" \
  incomplete refused
[ ! -e refused ] || { echo "make_wheel wrote refused/ for an incomplete package"; exit 1; }
# Usage: the script's help, exit 2.
expect_refusal 2 "Writes the mlfkit wheel from the package Bazel built (bazel-bin/python/mlfkit)." \
  only-one-argument
/usr/bin/python3 "$root/python/wheel/make_wheel.py" "$root/python/mlfkit" dist1 > wheel1.txt
/usr/bin/python3 "$root/python/wheel/make_wheel.py" "$root/python/mlfkit" dist2 > /dev/null
wheel=$(cat wheel1.txt)
[ "$(basename "$wheel")" = "mlfkit-0.1.0-cp311-cp311-linux_x86_64.whl" ] || { echo "unexpected name $wheel"; exit 1; }
cmp "$wheel" "dist2/$(basename "$wheel")" || { echo "the wheel is not deterministic"; exit 1; }
/usr/bin/python3 - "$wheel" <<'PY'
import sys, zipfile
names = sorted(zipfile.ZipFile(sys.argv[1]).namelist())
want = sorted(["mlfkit/__init__.py", "mlfkit/__init__.pyi", "mlfkit/_errors.py", "mlfkit/py.typed",
               "mlfkit/_native.so", "mlfkit-0.1.0.dist-info/METADATA",
               "mlfkit-0.1.0.dist-info/WHEEL", "mlfkit-0.1.0.dist-info/RECORD"])
assert names == want, names
PY
/usr/bin/python3 -m venv --system-site-packages venv
# Offline: --no-index, so pip would fail rather than fetch anything.
venv/bin/pip install --quiet --no-index --no-cache-dir "$wheel"
mkdir elsewhere && cd elsewhere
env -u PYTHONPATH MLF_CACHE_DIR="$work/cache" ../venv/bin/python - "$root/examples/mnist_mlp/model.yaml" <<'PY'
import sys
import numpy as np
import mlfkit
assert "/venv/" in mlfkit.__file__, mlfkit.__file__
mlfkit.export(sys.argv[1], "mlp.tar")
ex = mlfkit.load("mlp.tar").executor()
ex.set_input(0, np.ones((1, 784), np.float32))
ex.run()
y = ex.get_output(0)
assert y.shape == (1, 10) and abs(float(y.sum()) - 1.0) < 1e-5, y  # softmax
print("wheel ok:", mlfkit.__file__)
PY
