#!/usr/bin/env bash
# The SDK as a user installs and uses it (sdk/README.md): the tree Bazel made
# is installed into a scratch prefix by install_tree.sh, as scripts/sdk.sh does
# (so the tree must be relocatable), then applications
# outside Bazel are built against it and run:
#   1. examples/run_model with CMake, shared libmlfkit: exports tiny_cnn,
#      runs it, and its output equals `mlf run`'s bit for bit;
#   2. the same with CMake and MLFKIT_USE_STATIC_LIBS (no libmlfkit.so needed);
#   3. the same with pkg-config and a plain compiler command;
#   4. examples/static_model: mlfkit_add_model links the model's code
#      statically; its printed outputs equal `mlf run`'s.
# Argument: the version the SDK files must carry.
set -euo pipefail
want_version=$1
runfiles=${RUNFILES_DIR:-$0.runfiles}/${TEST_WORKSPACE:-mlfkit}
tmp=${TEST_TMPDIR:-$(mktemp -d)}
prefix=$tmp/prefix
# Installed in one place and used from another: nothing may hold the first path.
"$runfiles/sdk/install_tree.sh" "$runfiles/sdk/mlfkit_sdk" "$tmp/staging"
mv "$tmp/staging" "$prefix"
examples=$runfiles/sdk/examples
model=$runfiles/examples/tiny_cnn/model.yaml
mlf=$prefix/bin/mlf
fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "--- $*"; }
# A pipe into `grep -q` fails under pipefail when grep exits at its first match
# and the writer gets SIGPIPE (ldd does, now and then), so output is captured
# first and searched afterwards.
# has_line REGEX TEXT: TEXT has a line matching REGEX.
has_line() { grep -q -- "$1" <<<"$2"; }

# expect_usage_error WANT ARGS...: scripts/sdk.sh ARGS exits 2 printing WANT.
expect_usage_error() {
  local want=$1; shift
  local got status=0
  got=$("$runfiles/scripts/sdk.sh" "$@" 2>&1) || status=$?
  [ "$status" = 2 ] && [ "$got" = "$want" ] || fail "sdk.sh $*: exit $status, '$got' (want 2, '$want')"
}

step "sdk.sh usage errors"
expect_usage_error "sdk.sh: --prefix DIR is required"
expect_usage_error "sdk.sh: --prefix needs a directory" --prefix
expect_usage_error "sdk.sh: unknown argument '--bogus' (usage: scripts/sdk.sh --prefix DIR)" --bogus
touch "$tmp/a-file"
expect_usage_error "sdk.sh: --prefix $tmp/a-file exists and is not a directory" --prefix "$tmp/a-file"

step "versions agree"
mlf_version=$("$mlf" --version)
mlf_version=${mlf_version%%$'\n'*}
pc_version=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --modversion mlfkit)
[ "$pc_version" = "$want_version" ] || fail "mlfkit.pc says $pc_version, BUILD says $want_version"
case "$mlf_version" in
  *" $want_version"*) ;;
  *) fail "mlf --version says '$mlf_version', the SDK files $want_version" ;;
esac
for f in include/mlfkit/loader.h include/mlfkit/compiler.h include/mlfkit/version.h \
         share/mlfkit/bazel/mlf_model.bzl lib/libmlfkit.a; do
  [ -f "$prefix/$f" ] || fail "$f missing"
done
[ -L "$prefix/lib/libmlfkit.so" ] || fail "lib/libmlfkit.so is not a link to the versioned library"

# A fixed input for tiny_cnn's image [1, 1, 8, 8]: element k = (k % 17) * 0.125 - 1.
/usr/bin/python3 - "$tmp/input.npy" <<'PY'
import sys, numpy as np
k = np.arange(64)
np.save(sys.argv[1], ((k % 17) * 0.125 - 1.0).astype(np.float32).reshape(1, 1, 8, 8))
PY

# check_demo NAME DEMO: export with the demo, run it, compare with mlf run.
check_demo() {
  local name=$1 demo=$2 out=$tmp/$1
  mkdir -p "$out"
  local printed
  printed=$("$demo" export "$model" "$out/model.tar")
  has_line '^wrote .*model.tar (metadata version 9)$' "$printed" || fail "$name: export printed something else"
  "$mlf" verify "$out/model.tar" > /dev/null || fail "$name: mlf verify refused the exported archive"
  printed=$("$demo" run "$out/model.tar" "$tmp/input.npy" "$out/output.npy")
  has_line "^ran default with mlfkit $want_version: output " "$printed" || fail "$name: run printed something else"
  "$mlf" run "$out/model.tar" --input image="$tmp/input.npy" \
    --expect logits="$out/output.npy" --rtol 0 --atol 0 \
    > "$out/mlf_run.txt" || { cat "$out/mlf_run.txt"; fail "$name: output differs from mlf run"; }
  echo "$name: output equals mlf run's"
}

step "CMake, shared libmlfkit"
cmake -S "$examples/run_model" -B "$tmp/cmake-shared" -DCMAKE_PREFIX_PATH="$prefix" > "$tmp/cmake-shared.log" \
  || { cat "$tmp/cmake-shared.log"; fail "cmake configure (shared)"; }
cmake --build "$tmp/cmake-shared" -j 2 > "$tmp/build-shared.log" 2>&1 \
  || { cat "$tmp/build-shared.log"; fail "cmake build (shared)"; }
has_line "libmlfkit.so.0 => $prefix/lib/libmlfkit.so.0" "$(ldd "$tmp/cmake-shared/mlfkit_demo")" \
  || fail "the shared demo does not load libmlfkit.so.0 from the prefix"
check_demo cmake-shared "$tmp/cmake-shared/mlfkit_demo"

step "CMake, static libmlfkit"
cmake -S "$examples/run_model" -B "$tmp/cmake-static" -DCMAKE_PREFIX_PATH="$prefix" \
  -DMLFKIT_USE_STATIC_LIBS=ON > "$tmp/cmake-static.log" || { cat "$tmp/cmake-static.log"; fail "cmake configure (static)"; }
cmake --build "$tmp/cmake-static" -j 2 > "$tmp/build-static.log" 2>&1 \
  || { cat "$tmp/build-static.log"; fail "cmake build (static)"; }
if has_line libmlfkit "$(ldd "$tmp/cmake-static/mlfkit_demo")"; then fail "the static demo loads libmlfkit.so"; fi
check_demo cmake-static "$tmp/cmake-static/mlfkit_demo"

step "pkg-config"
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
# shellcheck disable=SC2046
g++ -std=c++17 -O1 -o "$tmp/pkgconfig_demo" "$examples/run_model/mlfkit_demo.cc" \
  $(pkg-config --cflags --libs mlfkit) -Wl,-rpath,"$prefix/lib" || fail "building with pkg-config"
check_demo pkg-config "$tmp/pkgconfig_demo"

step "mlfkit_add_model"
cmake -S "$examples/static_model" -B "$tmp/static-model" -DCMAKE_PREFIX_PATH="$prefix" \
  -DMODEL="$model" > "$tmp/static-model.log" || { cat "$tmp/static-model.log"; fail "cmake configure (static_model)"; }
cmake --build "$tmp/static-model" -j 2 > "$tmp/build-static-model.log" 2>&1 \
  || { cat "$tmp/build-static-model.log"; fail "cmake build (static_model)"; }
"$tmp/static-model/static_model" > "$tmp/static_model.txt" || fail "static_model failed"
"$mlf" run "$tmp/static-model/tiny_model.mlfkit/tiny_model.tar" --input image="$tmp/input.npy" \
  --output-dir "$tmp/static-ref" > /dev/null || fail "mlf run of the static model's archive"
/usr/bin/python3 - "$tmp/static-ref" "$tmp/static_model.txt" <<'PY' || fail "static_model's outputs differ from mlf run"
import glob, sys, numpy as np
want = np.concatenate([np.load(p).ravel() for p in sorted(glob.glob(sys.argv[1] + "/*.npy"))])
got = np.array([float(line) for line in open(sys.argv[2])], dtype=np.float32)
assert got.shape == want.shape, (got.shape, want.shape)
assert np.array_equal(got, want), np.abs(got - want).max()
print("static_model: %d outputs equal mlf run's" % got.size)
PY
step "mlfkit_add_model errors"
expect_cmake_error() {
  local want=$1 dir=$2; shift 2
  local status=0
  cmake -S "$examples/static_model" -B "$dir" -DCMAKE_PREFIX_PATH="$prefix" "$@" > "$dir.log" 2>&1 || status=$?
  [ "$status" != 0 ] || fail "cmake $* succeeded"
  grep -qF -- "$want" <<<"$(tr -s ' \n' ' ' < "$dir.log")" || { cat "$dir.log"; fail "cmake $*: no '$want'"; }
}
expect_cmake_error "mlfkit_add_model(tiny_model): MODEL <file> is required" "$tmp/no-model"
expect_cmake_error "mlfkit_add_model(tiny_model): MODEL $tmp/missing.yaml does not exist" \
  "$tmp/missing-model" -DMODEL="$tmp/missing.yaml"
echo "PASS"
