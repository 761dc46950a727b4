#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/) and runs each for a while.
#
# usage: scripts/fuzz.sh [--seconds N] [--jobs J] [--workers W] [--build-only|--no-build]
#                        [TARGET...]
#
#   --seconds N   fuzz each target for N seconds (default 60)
#   --jobs J      targets fuzzed at the same time (default 2)
#   --workers W   fuzzer processes per target, sharing its corpus (default 1);
#                 J x W processes run at once
#   --build-only  build the fuzzers and the seed corpora, fuzz nothing
#   --no-build    reuse the fuzzers and seeds of an earlier run as they are
#   TARGET        archive_reader verify metadata tvm_params tvm_graph npy onnx
#                 yaml
#                 (default: all of them)
#
# Prints one line per target, "fuzz: <target>: <E> executions in <S> s, <C> crashes",
# then a total line; exits 1 when any target crashed (or could not run).
#
# The fuzzers are built with clang-14 (-fsanitize=fuzzer,address,undefined,
# flags in fuzz/bazelrc) in an output base of their own, so the normal gcc
# build is never invalidated. Seeds are made from valid inputs by
# fuzz/make_seeds.sh with `mlf` and //fuzz:seed_gen from the normal build.
# Everything the runs produce lives under $MLF_FUZZ_DIR (default
# ~/.cache/mlfkit-fuzz-data): corpus/<target>/ (grows from run to run),
# seeds/<target>/, crashes/<target>/ (crash-*, leak-*, timeout-*, oom-* inputs)
# and logs/<target>.log. See fuzz/README.md to reproduce and minimise a crash.
#
# Environment: MLF_FUZZ_DIR, MLF_FUZZ_OUTPUT_BASE (default ~/.cache/mlfkit-fuzz),
# MLF_SEED_OUTPUT_BASE (output base for building mlf and seed_gen; default:
# Bazel's own for this workspace, i.e. the normal build).
set -uo pipefail
cd "$(dirname "$0")/.."

ALL_TARGETS=(archive_reader verify metadata tvm_params tvm_graph npy onnx yaml)
seconds=60
jobs=2
workers=1
build_only=0
no_build=0
targets=()

usage() { sed -n '4,18p' "$0" | sed 's/^# \{0,1\}//'; }

while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=${2:?--seconds needs a value}; shift 2 ;;
    --seconds=*) seconds=${1#*=}; shift ;;
    --jobs) jobs=${2:?--jobs needs a value}; shift 2 ;;
    --jobs=*) jobs=${1#*=}; shift ;;
    --workers) workers=${2:?--workers needs a value}; shift 2 ;;
    --workers=*) workers=${1#*=}; shift ;;
    --build-only) build_only=1; shift ;;
    --no-build) no_build=1; shift ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "fuzz.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
    *)
      if [[ " ${ALL_TARGETS[*]} " != *" $1 "* ]]; then
        echo "fuzz.sh: unknown target '$1' (targets: ${ALL_TARGETS[*]})" >&2
        exit 2
      fi
      targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -eq 0 ] && targets=("${ALL_TARGETS[@]}")
# (libFuzzer reads -max_total_time=0 as "no limit": refused here.)
if ! [[ "$seconds" =~ ^[1-9][0-9]*$ && "$jobs" =~ ^[1-9][0-9]*$ && "$workers" =~ ^[1-9][0-9]*$ ]]
then
  echo "fuzz.sh: --seconds, --jobs and --workers take whole numbers of at least 1" >&2
  exit 2
fi

data_dir=${MLF_FUZZ_DIR:-$HOME/.cache/mlfkit-fuzz-data}
fuzz_base=${MLF_FUZZ_OUTPUT_BASE:-$HOME/.cache/mlfkit-fuzz}
fuzz_bazel=(bazel "--output_base=$fuzz_base" --bazelrc=fuzz/bazelrc)
seed_bazel=(bazel)
[ -n "${MLF_SEED_OUTPUT_BASE:-}" ] && seed_bazel+=("--output_base=$MLF_SEED_OUTPUT_BASE")

if ! command -v clang-14 >/dev/null; then
  echo "fuzz.sh: clang-14 is missing (scripts/setup.sh installs it)" >&2
  exit 1
fi

# --- build: fuzzers (clang, own output base) and seed tools (normal build) ---
fuzzers=()
for t in "${targets[@]}"; do fuzzers+=("//fuzz:${t}_fuzzer"); done
if [ "$no_build" -eq 0 ] && ! "${fuzz_bazel[@]}" build --config=fuzz "${fuzzers[@]}"; then
  echo "fuzz.sh: building the fuzzers failed" >&2
  exit 1
fi
fuzz_bin=$("${fuzz_bazel[@]}" info --config=fuzz bazel-bin 2>/dev/null)/fuzz
if [ "$no_build" -eq 0 ]; then
  if ! "${seed_bazel[@]}" build //tools/mlf:mlf //fuzz:seed_gen; then
    echo "fuzz.sh: building mlf and seed_gen failed" >&2
    exit 1
  fi
  seed_bin=$("${seed_bazel[@]}" info bazel-bin 2>/dev/null)
  mkdir -p "$data_dir"
  if ! fuzz/make_seeds.sh "$data_dir/seeds" "$seed_bin/tools/mlf/mlf" "$seed_bin/fuzz/seed_gen"; then
    echo "fuzz.sh: making the seed corpora failed" >&2
    exit 1
  fi
fi
[ "$build_only" -eq 1 ] && exit 0
for t in "${targets[@]}"; do
  if [ ! -x "$fuzz_bin/${t}_fuzzer" ] || [ ! -d "$data_dir/seeds/$t" ]; then
    echo "fuzz.sh: no fuzzer or seeds for $t yet: run without --no-build first" >&2
    exit 1
  fi
done

# --- fuzz ---
# Runs one fuzzer process of target $1 (worker $2) with its log in $3.
run_worker() {
  local t=$1 log=$3
  local dirs=("$data_dir/corpus/$t" "$data_dir/seeds/$t")
  [ -d "fuzz/regressions/$t" ] && dirs+=("fuzz/regressions/$t")
  # -timeout: one input may take 25 s at most (hang); -rss_limit_mb: memory bound;
  # stdin is /dev/null so that no input can make a target wait for a terminal.
  # Workers write new inputs to the first directory, the shared corpus, and
  # pick up each other's while they run (libFuzzer's -reload, on by default).
  "$fuzz_bin/${t}_fuzzer" -max_total_time="$seconds" -print_final_stats=1 -timeout=25 \
    -rss_limit_mb=2560 -artifact_prefix="$data_dir/crashes/$t/" "${dirs[@]}" \
    </dev/null >"$log" 2>&1
}

# Runs one target with $workers processes; leaves "<executions> <crashes>
# <exit status>" in logs/<t>.result (executions summed over the workers, the
# first non-zero exit status). Worker i > 1 logs to logs/<t>.<i>.log.
run_target() {
  local t=$1
  local crashes=$data_dir/crashes/$t
  mkdir -p "$data_dir/corpus/$t" "$crashes" "$data_dir/logs"
  local before
  before=$(find "$crashes" -type f | wc -l)
  local logs=("$data_dir/logs/$t.log") pids=() i
  for ((i = 2; i <= workers; i++)); do logs+=("$data_dir/logs/$t.$i.log"); done
  for ((i = 0; i < workers; i++)); do
    run_worker "$t" "$i" "${logs[$i]}" &
    pids+=($!)
  done
  local rc=0 status
  for i in "${pids[@]}"; do
    wait "$i"; status=$?
    [ "$rc" -eq 0 ] && rc=$status
  done
  local execs=0 n log
  for log in "${logs[@]}"; do
    n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    execs=$((execs + ${n:-0}))
  done
  local after
  after=$(find "$crashes" -type f | wc -l)
  echo "$execs $((after - before)) $rc" >"$data_dir/logs/$t.result"
}

# At most $jobs targets at a time.
running=0
for t in "${targets[@]}"; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n
    running=$((running - 1))
  fi
  run_target "$t" &
  running=$((running + 1))
done
wait

total_execs=0
total_crashes=0
failed=0
for t in "${targets[@]}"; do
  read -r execs crashes rc <"$data_dir/logs/$t.result"
  line="fuzz: $t: $execs executions in $seconds s, $crashes crashes"
  if [ "$crashes" -gt 0 ]; then
    newest=$(ls -t "$data_dir/crashes/$t")
    newest=${newest%%$'\n'*}
    line+=" (newest: $data_dir/crashes/$t/$newest; log: $data_dir/logs/$t.log)"
    failed=1
  elif [ "$rc" -ne 0 ]; then
    line+=" (fuzzer exited with status $rc; log: $data_dir/logs/$t.log)"
    failed=1
  fi
  echo "$line"
  total_execs=$((total_execs + execs))
  total_crashes=$((total_crashes + crashes))
done
echo "fuzz: ${#targets[@]} targets, $total_execs executions, $total_crashes crashes"
exit "$failed"
