#!/bin/bash
# The kernel families' unit tests on a Cortex-M (issue 13: the portable C that
# firmware builds is tested where it runs). Each <family>_test.c is
# cross-compiled with arm-none-eabi-gcc for the Cortex-M4F of mps2-an386
# (the flags `mlf project --platform mps2-an386` uses) with -DMLFK_TEST_QUICK
# (the largest sizes left out: QEMU runs the naive double-precision
# references in software floating point), linked with testing/cortex_m.ld
# and testing/cortex_m_startup.c, and run under qemu-system-arm; a test
# passes when QEMU exits 0 and the test printed "<family>_test: all passed".
set -u
here=$(dirname "$0")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
flags=(-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 -std=c99 -O2 -Wall -Wextra
       -Werror -DMLFK_TEST_QUICK -I "$here")
failed=0
for family in "$@"; do
  elf="$out/$family.elf"
  if ! arm-none-eabi-gcc "${flags[@]}" "$here/${family}_test.c" "$here/testing/cortex_m_startup.c" \
      -T "$here/testing/cortex_m.ld" -nostartfiles --specs=rdimon.specs -lm -o "$elf"; then
    echo "FAIL $family: does not build for Cortex-M4F"
    failed=1
    continue
  fi
  start=$(date +%s)
  timeout 900 qemu-system-arm -M mps2-an386 -nographic -semihosting-config enable=on,target=native \
    -kernel "$elf" > "$out/$family.log" 2>&1
  status=$?
  sed 's/^/  /' "$out/$family.log"
  if [ "$status" -ne 0 ] || ! grep -q "^${family}_test: all passed" "$out/$family.log"; then
    echo "FAIL $family on mps2-an386 (QEMU exit status $status)"
    failed=1
  else
    echo "ok $family on mps2-an386 ($(( $(date +%s) - start )) s)"
  fi
done
exit $failed
