#!/usr/bin/env bash
# Installs the mlfkit SDK (sdk/README.md) into a prefix:
#
#   scripts/sdk.sh --prefix DIR
#
#   DIR/bin/mlf                              the command line
#   DIR/include/mlfkit/{loader,compiler,version}.h
#   DIR/lib/libmlfkit.a, libmlfkit.so(.0)    the loader and the compiler
#   DIR/lib/pkgconfig/mlfkit.pc              pkg-config --cflags --libs mlfkit
#   DIR/lib/cmake/mlfkit/                    find_package(mlfkit); mlfkit::loader,
#                                            mlfkit::compiler, mlfkit_add_model()
#   DIR/share/mlfkit/bazel/mlf_model.bzl     the Bazel rule mlf_model
#
# The tree is relocatable: moving DIR elsewhere keeps it working. Files of an
# earlier installation in DIR are replaced; nothing else in DIR is touched.
set -euo pipefail
cd "$(dirname "$0")/.."
usage() { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; }
prefix=
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) [ $# -ge 2 ] || { echo "sdk.sh: --prefix needs a directory" >&2; exit 2; }
              prefix=$2; shift 2 ;;
    --prefix=*) prefix=${1#--prefix=}; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "sdk.sh: unknown argument '$1' (usage: scripts/sdk.sh --prefix DIR)" >&2; exit 2 ;;
  esac
done
[ -n "$prefix" ] || { echo "sdk.sh: --prefix DIR is required" >&2; exit 2; }
if [ -e "$prefix" ] && [ ! -d "$prefix" ]; then
  echo "sdk.sh: --prefix $prefix exists and is not a directory" >&2
  exit 2
fi
scripts/setup.sh
bazel build //sdk:mlfkit_sdk >&2
sdk/install_tree.sh bazel-bin/sdk/mlfkit_sdk "$prefix"
echo "installed mlfkit $(sed -n 's/^Version: //p' "$prefix/lib/pkgconfig/mlfkit.pc") into $prefix"
