#!/bin/sh
# Builds and runs the archive benchmark (bench/archive_bench.cc): mlfkit pack
# vs `tar cf` and mlfkit verify vs `sha256sum` / `openssl dgst -sha256`, on a
# generated MLF model directory with a 1 GiB parameter blob by default.
# Every argument is passed to the benchmark; see --help.
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
case "${1:-}" in
  -h|--help)
    cat <<'USAGE'
usage: bench/run_archive_bench.sh [--dir DIR] [--size-mib N] [--repeat N] [--json] [--keep]

Builds //bench:archive_bench with bazel (optimised, per .bazelrc) and runs it
with these arguments. Needs about 3x the blob size free in DIR (default /tmp)
and as much free RAM for the page cache. Prints a table (ratio = baseline
seconds / mlfkit seconds; the goal is >= 0.9), the spread over the rounds and
a final JSON line; --json prints only the JSON line. Takes ~1 min at 1 GiB.

  --dir DIR       create the work directory (a fresh archive_bench.XXXXXX) in DIR
  --size-mib N    parameter blob size in MiB (default 1024)
  --repeat N      rounds; the best time of each operation counts (default 3)
  --json          print only the machine-readable JSON line
  --keep          keep the work directory
USAGE
    exit 0 ;;
esac
# The bazel-bin symlink follows whichever configuration was built last (other
# builds may use another one): ask bazel for this configuration's directory.
# Runs from the caller's directory, so a relative --dir means what it says.
bin=$(cd "$repo" && bazel build //bench:archive_bench >&2 && bazel info bazel-bin 2>/dev/null)
exec "$bin/bench/archive_bench" "$@"
