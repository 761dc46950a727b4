#!/usr/bin/env bash
# Runs the whole mlfkit test suite: installs what is missing, then `bazel test //...`.
# Ends with one summary line "tests: N passed, M failed" counted over every
# GoogleTest case of every test target.
set -uo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh || { echo "setup failed" >&2; exit 1; }

bazel test //... "$@"
status=$?
log_dirs=("$(readlink -f bazel-testlogs)")

# The concurrency tests again under ThreadSanitizer (own output directory).
bazel test --config=tsan //tests:host_loader_concurrency_test "$@" || status=1
log_dirs+=("$(readlink -f bazel-testlogs)")

# Count individual test cases from the JUnit XML files Bazel leaves behind.
passed=0
failed=0
while IFS= read -r xml; do
  read -r t f e < <(python3 - "$xml" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
suites = [root] if root.tag == "testsuite" else root.iter("testsuite")
t = f = e = 0
for s in suites:
    if s.get("tests") is None:
        continue
    t += int(s.get("tests", 0)); f += int(s.get("failures", 0)); e += int(s.get("errors", 0))
print(t, f, e)
PY
)
  passed=$((passed + t - f - e))
  failed=$((failed + f + e))
done < <(find -L "${log_dirs[@]}" -name test.xml 2>/dev/null | sort -u)

if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
echo "tests: ${passed} passed, ${failed} failed"
exit "$status"
