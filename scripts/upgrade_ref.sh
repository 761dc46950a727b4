#!/usr/bin/env bash
# Upgrades every TVM fixture archive with a given mlf binary into a directory,
# for byte comparison of two mlf builds: `diff -r` of two output directories
# shows nothing when they behave the same (outputs are named relative to OUT,
# so messages do not depend on it).
#
# Usage: scripts/upgrade_ref.sh MLF FIXTURES OUT
#   FIXTURES: written by `bazel run //tests/tvm_fixtures:write_tvm_fixtures -- DIR`
# For each fixture F: F.v8.tar (host library built), F.nolib.v8.tar
# (--no-host-lib), F.zst.v8.tar (--compress zstd), and F*.status, F*.stdout, F*.stderr
# with the exit status and output of each run.
set -u
mlf=$(realpath "$1"); fixtures=$(realpath "$2"); out=$3
mkdir -p "$out" && cd "$out" || exit 1
export SOURCE_DATE_EPOCH=1700000000
run() {  # run NAME ARGS...: records status and output of `mlf ARGS...`
  local name=$1; shift
  "$mlf" "$@" >"$name.stdout" 2>"$name.stderr"
  echo $? >"$name.status"
}
for f in "$fixtures"/*.tar; do
  b=$(basename "$f" .tar)
  run "$b" upgrade "$f" -o "$b.v8.tar"
  run "$b.nolib" upgrade "$f" -o "$b.nolib.v8.tar" --no-host-lib
  run "$b.zst" upgrade "$f" -o "$b.zst.v8.tar" --compress zstd
done
ls | wc -l
