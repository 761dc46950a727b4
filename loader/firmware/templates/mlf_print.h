/*
 * mlf_print.h - prints model outputs as text, with no printf and no heap.
 *
 * One line per output tensor:
 *
 *   output <label> <count> <v0> <v1> ...
 *
 * Floating-point elements are written exactly as the C library's
 * printf("%.9g", (double)value) writes them (correctly rounded, ties to even,
 * "inf", "-inf", "nan", "-nan", "-0"); integers are written in full. This is
 * what `mlf run` and the host loader print, so outputs can be compared as text.
 *
 * Why not printf: newlib's printf of floats (and its stdio buffers) allocate
 * with malloc, which would bring the allocator and a heap into firmware that
 * otherwise has none. The formatter here works on the bits of each element,
 * with the exact decimal digits in a byte array on the stack: printing takes
 * about 400 bytes of stack for float16/bfloat16/float32 and integers, about
 * 1 KiB for float64 (whose code is only in the image when some output is
 * float64).
 *
 * Text goes out through mlf_write(): on Cortex-M boards librdimon's _write
 * (Arm semihosting, shown by QEMU or a debugger), on a host POSIX write(2).
 */
#ifndef MLF_PRINT_H_
#define MLF_PRINT_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The longest text one element can need: "-2.22507386e-308", "-9223372036854775808". */
#define MLF_ELEMENT_TEXT_MAX 24

/* Writes element `index` of `data` as text into `out` (at least
 * MLF_ELEMENT_TEXT_MAX bytes, not NUL-terminated) and returns its length. */
typedef size_t (*mlf_format_fn)(char* out, const void* data, uint32_t index);

size_t mlf_format_f16(char* out, const void* data, uint32_t index);
size_t mlf_format_bf16(char* out, const void* data, uint32_t index);
size_t mlf_format_f32(char* out, const void* data, uint32_t index);
size_t mlf_format_f64(char* out, const void* data, uint32_t index);
size_t mlf_format_i8(char* out, const void* data, uint32_t index);
size_t mlf_format_i16(char* out, const void* data, uint32_t index);
size_t mlf_format_i32(char* out, const void* data, uint32_t index);
size_t mlf_format_i64(char* out, const void* data, uint32_t index);
size_t mlf_format_u8(char* out, const void* data, uint32_t index);
size_t mlf_format_u16(char* out, const void* data, uint32_t index);
size_t mlf_format_u32(char* out, const void* data, uint32_t index);
size_t mlf_format_u64(char* out, const void* data, uint32_t index);
size_t mlf_format_bool(char* out, const void* data, uint32_t index);

/* The building blocks, for tests and for other output formats. */
size_t mlf_format_unsigned(char* out, uint64_t value);
size_t mlf_format_signed(char* out, int64_t value);

/* Prints "output <label> <count> <v0> ... <v[count-1]>\n" on standard output. */
void mlf_print_output(const char* label, const void* data, uint32_t count, mlf_format_fn format);

/* Prints "error: tvmgen_<module>_run returned <status>\n" on standard error. */
void mlf_print_failure(const char* module, int32_t status);

/* Writes `size` bytes to file descriptor 1 (stdout) or 2 (stderr). */
void mlf_write(int fd, const char* text, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* MLF_PRINT_H_ */
