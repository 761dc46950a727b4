/* Start-up of the kernel unit tests on a Cortex-M under QEMU (see
 * cortex_m_kernel_test.sh): a four-entry vector table at address 0, then
 * reset enables the FPU (where the core has one), copies .data, zeroes .bss,
 * opens the semihosting console and runs exit(main()), whose status reaches
 * QEMU. Unlike generated firmware, the tests use printf and calloc: newlib's
 * stdio and heap (from `end` up to the stack) stay in. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

extern int main(void);
extern void initialise_monitor_handles(void);
extern uint32_t __data_load[], __data_start[], __data_end[];
extern uint32_t __bss_start__[], __bss_end__[], __stack_top[];

void reset_handler(void);
void fault_handler(void);

typedef void (*vector_entry)(void);

__attribute__((section(".vectors"), used)) static const vector_entry vectors[4] = {
    (vector_entry)__stack_top, reset_handler, fault_handler, fault_handler};

void reset_handler(void) {
#if defined(__ARM_FP)
  *(volatile uint32_t*)0xE000ED88u |= 0xFu << 20; /* CPACR: coprocessors 10, 11 */
  __asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
  memcpy(__data_start, __data_load, (size_t)((char*)__data_end - (char*)__data_start));
  memset(__bss_start__, 0, (size_t)((char*)__bss_end__ - (char*)__bss_start__));
  initialise_monitor_handles();
  exit(main());
}

/* Semihosting SYS_WRITE0 "fault", then SYS_EXIT with a run-time error: a
 * fault fails the test instead of hanging it. */
void fault_handler(void) {
  register uint32_t r0 __asm__("r0") = 0x04;
  register const void* r1 __asm__("r1") = "fault\n";
  __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  r0 = 0x18;
  r1 = (const void*)0x20023;
  __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  for (;;) {
  }
}

/* -nostartfiles leaves out crti.o's; nothing needs to run at either point. */
void _init(void) {}
void _fini(void) {}
