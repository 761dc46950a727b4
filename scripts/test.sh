#!/usr/bin/env bash
# Runs the whole mlfkit test suite: installs what is missing, then
#   1. bazel test //...                            the normal (gcc) build
#   2. the concurrency tests under ThreadSanitizer (--config=tsan)
#   3. bazel test //... under ASan + UBSan         (--config=asan; tests tagged
#      no-asan are left out)
#   4. a fuzz smoke run: every libFuzzer target for 20 s (scripts/fuzz.sh)
# Prints each stage's wall time and one line per run, then the summary line
# "tests: N passed, M failed, K skipped": every GoogleTest case of every test
# target, counted once per run that ran it (a test in both the normal and the
# ASan run counts twice), plus one per fuzz target (failed when it crashed).
# Skipped (GTEST_SKIP) and disabled (DISABLED_) cases are counted as skipped,
# never as passed, and listed by name; with CI=true any skip fails the suite.
# A test target that ran without leaving GoogleTest results (it did not build,
# crashed or timed out) counts as one failed test.
#
# Environment: MLF_TEST_ASAN=0 skips step 3, MLF_TEST_FUZZ_SECONDS=N changes
# step 4's time per target (0 skips it). Arguments go to every `bazel test`.
set -uo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh || { echo "setup failed" >&2; exit 1; }

status=0
summary=()
total_passed=0
total_failed=0
total_skipped=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Counts the GoogleTest cases of one `bazel test` invocation from its build
# event file: for each test (and shard) the test.xml of its last attempt,
# whether it ran now or was cached. Every <testcase> is one of passed, failed
# (a <failure> or <error>), skipped (GTEST_SKIP) or disabled (DISABLED_, not
# run). Prints "<passed> <failed> <skipped>" (skipped includes disabled) and
# writes "<label> <suite>.<case> (skipped|disabled): <message>" lines to $2.
count_tests() {
  /usr/bin/python3 - "$1" "$2" <<'PY'
import json, sys, urllib.parse, xml.etree.ElementTree as ET
results = {}   # (label, run, shard) -> (attempt, status, test.xml path)
summaries = {}  # label -> overall status
with open(sys.argv[1]) as f:
    for line in f:
        event = json.loads(line)
        eid = event.get("id", {})
        if "testResult" in eid and "testResult" in event:
            i = eid["testResult"]
            key = (i["label"], i.get("run", 1), i.get("shard", 1))
            xml = None
            for out in event["testResult"].get("testActionOutput", []):
                if out.get("name") == "test.xml" and out.get("uri", "").startswith("file://"):
                    xml = urllib.parse.unquote(out["uri"][len("file://"):])
            attempt = i.get("attempt", 1)
            if key not in results or results[key][0] < attempt:
                results[key] = (attempt, event["testResult"].get("status"), xml)
        elif "testSummary" in eid and "testSummary" in event:
            summaries[eid["testSummary"]["label"]] = event["testSummary"].get("overallStatus")
passed = failed = skipped = 0
skipped_names = []
labels_with_results = {key[0] for key in results}
for (label, _, _), (_, status, xml) in sorted(results.items()):
    counted = False
    if xml:
        try:
            root = ET.parse(xml).getroot()
            for case in root.iter("testcase"):
                counted = True
                name = "%s.%s" % (case.get("classname", ""), case.get("name", ""))
                if case.find("failure") is not None or case.find("error") is not None:
                    failed += 1
                elif case.find("skipped") is not None or case.get("result") == "skipped":
                    skipped += 1
                    why = case.find("skipped")
                    message = (why.get("message") or why.text or "") if why is not None else ""
                    skipped_names.append("%s %s (skipped): %s" % (label, name, message.strip().splitlines()[0] if message.strip() else ""))
                elif case.get("status") == "notrun" or case.get("result") == "suppressed":
                    skipped += 1
                    skipped_names.append("%s %s (disabled)" % (label, name))
                else:
                    passed += 1
        except (OSError, ET.ParseError):
            pass
    if status != "PASSED" and not counted:
        failed += 1
# Test targets that never ran (did not build): one failure each.
for label, overall in summaries.items():
    if label not in labels_with_results and overall != "PASSED":
        failed += 1
with open(sys.argv[2], "a") as out:
    for line in skipped_names:
        out.write(line + "\n")
print(passed, failed, skipped)
PY
}

# Wall time of each stage, printed as it ends and again in the summary.
stage_start=0
start_stage() { stage_start=$(date +%s); }
end_stage() {
  local seconds=$(( $(date +%s) - stage_start ))
  echo "stage $1: ${seconds} s"
  timings+=("stage $1: ${seconds} s")
}
timings=()
skipped_list=$work/skipped.txt
: > "$skipped_list"

# bazel_test NAME ARGS...: one `bazel test` run, counted under NAME.
bazel_test() {
  local name=$1
  shift
  local bep=$work/$name.bep.json
  start_stage
  bazel test --nocache_test_results --build_event_json_file="$bep" "$@" || status=1
  local passed=0 failed=0 skipped=0
  if [ -s "$bep" ]; then
    read -r passed failed skipped < <(count_tests "$bep" "$skipped_list")
  fi
  summary+=("tests ($name): ${passed} passed, ${failed} failed, ${skipped} skipped")
  total_passed=$((total_passed + passed))
  total_failed=$((total_failed + failed))
  total_skipped=$((total_skipped + skipped))
  end_stage "$name"
}

bazel_test gcc //... "$@"

# The concurrency tests again under ThreadSanitizer (own output directory):
# every test whose name says it runs threads, in the targets that have one.
# (Generated model code compiled at run time is not instrumented; the loaders,
# the TVM compatibility runtime and the executors around it are.)
bazel_test tsan --config=tsan --test_filter='*Concurren*:*Thread*:*Reentr*' \
  //tests:host_loader_concurrency_test //tests:tvm_archive_test //tests:tvm_upgrade_test \
  //tvm/compat:compat_runtime_test //tvm/compat:graph_plan_test \
  //codegen/frontend:onnx_shape_inference_test "$@"

# Every test again under AddressSanitizer + UndefinedBehaviorSanitizer (own
# output directory; every finding is fatal: .bazelrc build:asan). -O0: gcc
# compiles with both sanitizers about 13 times slower at -O2 (elementwise.cc:
# 366 s against 27 s plain), at -O0 about as fast as a plain -O2 build, and
# -O0 hides nothing from the sanitizers; the tests take ~1.4x longer.
if [ "${MLF_TEST_ASAN:-1}" != 0 ]; then
  bazel_test asan+ubsan --config=asan --copt=-O0 --test_tag_filters=-no-asan //... "$@"
fi

# A short fuzz run of every libFuzzer target (clang build in its own output
# base; fuzz/README.md). A crash fails the suite.
fuzz_seconds=${MLF_TEST_FUZZ_SECONDS:-20}
if [ "$fuzz_seconds" != 0 ]; then
  start_stage
  scripts/fuzz.sh --seconds "$fuzz_seconds" --jobs 2 | tee "$work/fuzz.out"
  fuzz_status=${PIPESTATUS[0]}
  [ "$fuzz_status" -ne 0 ] && status=1
  fuzz_targets=$(grep -cE '^fuzz: [a-z_]+: ' "$work/fuzz.out")
  fuzz_clean=$(grep -cE '^fuzz: [a-z_]+: .*, 0 crashes$' "$work/fuzz.out")
  # A fuzz.sh that failed before fuzzing (build, seeds) is one failure.
  fuzz_failed=$((fuzz_targets - fuzz_clean))
  [ "$fuzz_status" -ne 0 ] && [ "$fuzz_failed" -eq 0 ] && fuzz_failed=1
  summary+=("tests (fuzz ${fuzz_seconds} s): ${fuzz_clean} passed, ${fuzz_failed} failed")
  total_passed=$((total_passed + fuzz_clean))
  total_failed=$((total_failed + fuzz_failed))
  end_stage "fuzz"
fi

if [ -s "$skipped_list" ]; then
  echo "skipped or disabled tests:"
  sed 's/^/  /' "$skipped_list"
  # CI has every package setup.sh installs, so nothing it runs may skip: a
  # skip there hides a test that did not run.
  if [ "${CI:-}" = true ]; then
    echo "CI: ${total_skipped} tests skipped; every test must run in CI" >&2
    status=1
  fi
fi
if [ "$status" -ne 0 ] && [ "$total_failed" -eq 0 ]; then total_failed=1; fi
printf '%s\n' "${timings[@]}"
printf '%s\n' "${summary[@]}"
echo "tests: ${total_passed} passed, ${total_failed} failed, ${total_skipped} skipped"
exit "$status"
