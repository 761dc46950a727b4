#!/usr/bin/env bash
# install_tree.sh TREE PREFIX: copies the SDK tree Bazel made (//sdk:mlfkit_sdk)
# into PREFIX, file by file with ordinary modes (the Bazel output is
# read-only), keeping the libmlfkit.so link. Used by scripts/sdk.sh and by
# //sdk:sdk_test, so the test installs exactly as users do. Files of an
# earlier installation are replaced; nothing else in PREFIX is touched.
set -euo pipefail
tree=$1
prefix=$2
mkdir -p "$prefix"
(cd "$tree" && find . -type d) | while read -r d; do mkdir -p "$prefix/$d"; done
(cd "$tree" && find . -type f) | while read -r f; do
  mode=0644
  case "$f" in ./bin/*|./lib/libmlfkit.so.*) mode=0755 ;; esac
  install -m "$mode" "$tree/$f" "$prefix/$f"
done
(cd "$tree" && find . -type l) | while read -r l; do
  ln -sfn "$(readlink "$tree/$l")" "$prefix/$l"
done
