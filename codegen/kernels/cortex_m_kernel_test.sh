#!/bin/bash
# The kernel families' unit tests on a Cortex-M (issue 13: the portable C that
# firmware builds is tested where it runs). Each <family>_test.c is
# cross-compiled with arm-none-eabi-gcc for two cores, with the flags
# `mlf project` uses for their boards, and run under qemu-system-arm:
#   - the Cortex-M4F of mps2-an386 (the portable C, with the DSP paths), and
#   - the Cortex-M55 of mps3-an547 (the Helium paths, issue 19),
# with -DMLFK_TEST_QUICK (the largest sizes left out: QEMU runs the naive
# double-precision references in software floating point), linked with
# testing/cortex_m.ld or cortex_m55.ld and testing/cortex_m_startup.c; a test
# passes when QEMU exits 0 and the test printed "<family>_test: all passed".
set -u
here=$(dirname "$0")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
common=(-mthumb -mfloat-abi=hard -std=c99 -O2 -Wall -Wextra -Werror -DMLFK_TEST_QUICK -I "$here"
        -L "$here/testing" -nostartfiles --specs=rdimon.specs)
failed=0

# run_family FAMILY MACHINE LINKER_SCRIPT CPU_FLAGS...
run_family() {
  local family=$1 machine=$2 script=$3
  shift 3
  local elf="$out/$family-$machine.elf" log="$out/$family-$machine.log"
  if ! arm-none-eabi-gcc "$@" "${common[@]}" "$here/${family}_test.c" "$here/testing/cortex_m_startup.c" \
      -T "$here/testing/$script" -lm -o "$elf"; then
    echo "FAIL $family: does not build for $machine"
    failed=1
    return
  fi
  local start=$(date +%s)
  timeout 900 qemu-system-arm -M "$machine" -nographic -semihosting-config enable=on,target=native \
    -kernel "$elf" > "$log" 2>&1
  local status=$?
  sed 's/^/  /' "$log"
  if [ "$status" -ne 0 ] || ! grep -q "^${family}_test: all passed" "$log"; then
    echo "FAIL $family on $machine (QEMU exit status $status)"
    failed=1
  else
    echo "ok $family on $machine ($(( $(date +%s) - start )) s)"
  fi
}

for family in "$@"; do
  run_family "$family" mps2-an386 cortex_m.ld -mcpu=cortex-m4 -mfpu=fpv4-sp-d16
  run_family "$family" mps3-an547 cortex_m55.ld -mcpu=cortex-m55 -mfpu=auto
done
exit $failed
