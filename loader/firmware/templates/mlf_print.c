/*
 * mlf_print.c - exact "%.9g" and integer output without printf or a heap.
 * See mlf_print.h for the format and the reasons.
 *
 * Floating point: a finite element is exactly m * 2^e. For e < 0 that is
 * m * 5^-e / 10^-e, so the integer m * 2^e (e >= 0) or m * 5^-e (e < 0) holds
 * every decimal digit of the value. It is built as an array of decimal
 * digits (multiplying by a few factors of 2 or 5 at a time), and the exact
 * digits below the ninth decide the rounding: up above one half, to even at
 * one half, as glibc rounds. No floating-point instruction and no 64-bit
 * division is used, so the code is small, does not depend on the FPU or on
 * soft-float routines, and prints the correctly rounded value printf prints.
 * Digit counts: a float32 needs at most 112 digits (2^-149 has 105 decimals),
 * a float64 at most 767; the float64 path (and its larger buffer) is only in
 * the image when some output is float64 (the build drops unused functions).
 */
#ifndef MLF_SEMIHOSTING
#define _POSIX_C_SOURCE 200112L /* write(2) under -std=c99 */
#endif

#include "mlf_print.h"

#include <string.h>

#ifdef MLF_SEMIHOSTING
/* librdimon's system call, straight to the semihosting console. newlib's
 * write() would go through _write_r, whose errno handling links newlib's
 * reentrancy clean-up and, through it, malloc. */
extern int _write(int fd, const void* buffer, int size);
#define MLF_RAW_WRITE(fd, text, size) _write((fd), (text), (int)(size))
#else
#include <unistd.h>
#define MLF_RAW_WRITE(fd, text, size) write((fd), (text), (size))
#endif

/* ---- decimal digits ---------------------------------------------------- */

/* digits = digits * factor + addend, for a number held as `count` decimal
 * digits (0-9), least significant first, with zeros above them. Returns the
 * new count: at least one digit, and the top one is not 0 unless the number
 * is. Needs 10 * factor + addend < 2^32; the divisions are by the constant 10,
 * which compilers turn into a multiplication. */
static int mul_add(uint8_t* digits, int count, uint32_t factor, uint32_t addend) {
  int i = 0;
  do {
    addend += digits[i] * factor;
    digits[i] = (uint8_t)(addend % 10);
    addend /= 10;
  } while (++i < count || addend != 0);
  return i;
}

/* Appends the digits of value. */
static char* put_u32(char* out, uint32_t value) {
  if (value >= 10) out = put_u32(out, value / 10);
  *out = (char)('0' + value % 10);
  return out + 1;
}

static char* put_i32(char* out, int32_t value) {
  if (value < 0) *out++ = '-';
  return put_u32(out, value < 0 ? 0u - (uint32_t)value : (uint32_t)value);
}

/* ---- "%.9g" ------------------------------------------------------------ */

/* Digits a float32's scaled mantissa can take, with room for the padding
 * (below) and a carry out of the rounding; the same for a float64. */
#define MLF_F32_DIGITS 128
#define MLF_F64_DIGITS 784
/* The number sits above this many zero digits, so that the ninth significant
 * digit always has ten digits below it (the rounding needs no special case). */
#define MLF_PAD 9

/* Writes m * 2^e as "%.9g" does, where digits[MLF_PAD...] holds m (count
 * digits, zeros above them and in the MLF_PAD digits below). */
static char* put_g9(char* out, uint8_t* digits, int count, int e) {
  int exponent = -MLF_PAD, len, p, top, q;
  if (digits[MLF_PAD + count - 1] == 0) e = 0; /* zero */
  /* m * 2^e = m * 2^e * 10^0 (e >= 0) = m * 5^-e * 10^e (e < 0): an integer
   * times a power of ten. A few factors are multiplied in at once. */
  while (e != 0) {
    uint32_t factor = 1;
    while (e != 0 && factor < (1u << 26)) { /* 10 * 5 * 2^26 < 2^32 */
      if (e > 0) {
        factor *= 2;
        --e;
      } else {
        factor *= 5;
        ++e;
        --exponent;
      }
    }
    count = mul_add(digits + MLF_PAD, count, factor, 0);
  }
  /* Round to nine significant digits, half to even: add half a unit of the
   * ninth digit; at an exact tie (all digits below it now zero) the ninth
   * digit went up by one from even to odd, or from 9 to 0: make it even. */
  len = count + MLF_PAD;
  p = len - 10;
  len = p + mul_add(digits + p, 10, 1, 5); /* a carry out: 999999999.5 -> 1000000000 */
  while (p >= 0 && digits[p] == 0) --p;
  if (p < 0) digits[count - 1 + MLF_PAD - 8] &= (uint8_t)~1u;
  exponent += len - 1; /* of the leading digit */
  /* %g: fixed notation for -4 <= exponent < 9, else d.dddde+XX. Position q
   * is the digit of 10^q in the notation (top is the leading one's): from
   * 10^0 or the leading digit down to the ninth, with the point after 10^0.
   * Digits above the number are the zeros above it in the buffer. Then
   * trailing zeros and a bare point are dropped. */
  top = exponent < -4 || exponent >= 9 ? 0 : exponent;
  for (q = top > 0 ? top : 0; q >= top - 8; --q) {
    *out++ = (char)('0' + digits[len - 1 - top + q]);
    if (q == 0) *out++ = '.';
  }
  while (out[-1] == '0') --out;
  if (out[-1] == '.') --out;
  if (exponent != top) {
    *out++ = 'e';
    *out++ = exponent < 0 ? '-' : '+';
    if (exponent < 0) exponent = -exponent;
    if (exponent < 10) *out++ = '0';
    out = put_u32(out, (uint32_t)exponent);
  }
  return out;
}

/* "inf" or "nan" after the sign. */
static char* put_special(char* out, int nan) {
  memcpy(out, "naninf" + (nan ? 0 : 3), 3);
  return out + 3;
}

size_t mlf_format_f32(char* out, const void* data, uint32_t index) {
  uint8_t digits[MLF_F32_DIGITS] = {0};
  uint32_t bits, biased, m;
  char* end = out;
  memcpy(&bits, (const uint8_t*)data + (size_t)index * 4, 4);
  biased = (bits >> 23) & 0xffu;
  m = bits & 0x7fffffu;
  if (bits >> 31) *end++ = '-';
  if (biased == 0xffu) {
    end = put_special(end, m != 0);
  } else {
    if (biased != 0) m |= 1u << 23; /* else a subnormal: exponent as for biased 1 */
    end = put_g9(end, digits, mul_add(digits + MLF_PAD, 0, 1, m),
                 (int)(biased + (biased == 0)) - 150);
  }
  return (size_t)(end - out);
}

/* bfloat16 is the top half of a float32. */
size_t mlf_format_bf16(char* out, const void* data, uint32_t index) {
  uint16_t half;
  uint32_t bits;
  memcpy(&half, (const uint8_t*)data + (size_t)index * 2, 2);
  bits = (uint32_t)half << 16;
  return mlf_format_f32(out, &bits, 0);
}

/* float16 widens exactly to float32: the exponent is rebiased (15 -> 127),
 * a subnormal is normalised, infinities and NaNs keep their fraction. */
size_t mlf_format_f16(char* out, const void* data, uint32_t index) {
  uint16_t half;
  uint32_t bits, biased, fraction;
  memcpy(&half, (const uint8_t*)data + (size_t)index * 2, 2);
  biased = (half >> 10) & 0x1fu;
  fraction = half & 0x3ffu;
  if (biased == 0x1fu) {
    biased = 0xffu;
  } else if (biased != 0) {
    biased += 127 - 15;
  } else if (fraction != 0) {
    for (biased = 127 - 14; !(fraction & 0x400u); --biased) fraction <<= 1;
    fraction &= 0x3ffu;
  }
  bits = (uint32_t)(half >> 15) << 31 | biased << 23 | fraction << 13;
  return mlf_format_f32(out, &bits, 0);
}

/* float64: the same algorithm with a 53-bit mantissa, loaded in two parts,
 * and a larger digit buffer (784 bytes of stack). */
size_t mlf_format_f64(char* out, const void* data, uint32_t index) {
  uint8_t digits[MLF_F64_DIGITS] = {0};
  uint64_t bits;
  uint32_t biased;
  char* end = out;
  int count;
  memcpy(&bits, (const uint8_t*)data + (size_t)index * 8, 8);
  biased = (uint32_t)(bits >> 52) & 0x7ffu;
  if (bits >> 63) *end++ = '-';
  bits &= 0xfffffffffffffull;
  if (biased == 0x7ffu) {
    end = put_special(end, bits != 0);
  } else {
    if (biased != 0) bits |= 1ull << 52;
    count = mul_add(digits + MLF_PAD, 0, 1, (uint32_t)(bits >> 26));
    count = mul_add(digits + MLF_PAD, count, 1u << 26, (uint32_t)bits & 0x3ffffffu);
    end = put_g9(end, digits, count, (int)(biased + (biased == 0)) - 1075);
  }
  return (size_t)(end - out);
}

/* ---- integers ---------------------------------------------------------- */

size_t mlf_format_unsigned(char* out, uint64_t value) {
  uint8_t digits[20] = {0};
  char* end = out;
  int count = mul_add(digits, 0, 1, (uint32_t)(value >> 44));
  count = mul_add(digits, count, 1u << 22, (uint32_t)(value >> 22) & 0x3fffffu);
  count = mul_add(digits, count, 1u << 22, (uint32_t)value & 0x3fffffu);
  while (count > 0) *end++ = (char)('0' + digits[--count]);
  return (size_t)(end - out);
}

size_t mlf_format_signed(char* out, int64_t value) {
  if (value >= 0) return mlf_format_unsigned(out, (uint64_t)value);
  out[0] = '-';
  return 1 + mlf_format_unsigned(out + 1, 0u - (uint64_t)value);
}

#define MLF_INTEGER_FORMAT(suffix, type, convert)                                      \
  size_t mlf_format_##suffix(char* out, const void* data, uint32_t index) {            \
    type value;                                                                        \
    memcpy(&value, (const uint8_t*)data + (size_t)index * sizeof value, sizeof value); \
    return (size_t)(convert - out);                                                    \
  }

MLF_INTEGER_FORMAT(i8, int8_t, put_i32(out, value))
MLF_INTEGER_FORMAT(i16, int16_t, put_i32(out, value))
MLF_INTEGER_FORMAT(i32, int32_t, put_i32(out, value))
MLF_INTEGER_FORMAT(i64, int64_t, out + mlf_format_signed(out, value))
MLF_INTEGER_FORMAT(u8, uint8_t, put_u32(out, value))
MLF_INTEGER_FORMAT(u16, uint16_t, put_u32(out, value))
MLF_INTEGER_FORMAT(u32, uint32_t, put_u32(out, value))
MLF_INTEGER_FORMAT(u64, uint64_t, out + mlf_format_unsigned(out, value))

size_t mlf_format_bool(char* out, const void* data, uint32_t index) {
  out[0] = ((const uint8_t*)data)[index] != 0 ? '1' : '0';
  return 1;
}

/* ---- output ------------------------------------------------------------ */

#ifdef MLF_UART_CONSOLE
/* platform/startup.c: the board's UART, polled. */
extern void mlf_console_write(const char* text, size_t size);
#endif

void mlf_write(int fd, const char* text, size_t size) {
#if defined(MLF_UART_CONSOLE)
  /* One console for both streams, as a serial line is. */
  (void)fd;
  mlf_console_write(text, size);
#elif defined(MLF_SEMIHOSTING)
  /* SYS_WRITE is synchronous: the debugger (or QEMU) takes all of it or
   * fails, and then there is nowhere left to report it. */
  MLF_RAW_WRITE(fd, text, size);
#else
  while (size > 0) {
    const long written = (long)MLF_RAW_WRITE(fd, text, size);
    if (written <= 0) return; /* nowhere left to report it */
    text += written;
    size -= (size_t)written;
  }
#endif
}

static void put_text(int fd, const char* text) { mlf_write(fd, text, strlen(text)); }

void mlf_print_output(const char* label, const void* data, uint32_t count, mlf_format_fn format) {
  char line[128];
  char* end;
  uint32_t i;
  put_text(1, "output ");
  put_text(1, label);
  line[0] = ' ';
  end = put_u32(line + 1, count);
  /* Elements are collected in `line`, written out whenever the next one
   * might not fit. */
  for (i = 0; i < count; ++i) {
    if (end > line + sizeof line - MLF_ELEMENT_TEXT_MAX - 2) {
      mlf_write(1, line, (size_t)(end - line));
      end = line;
    }
    *end++ = ' ';
    end += format(end, data, i);
  }
  *end++ = '\n';
  mlf_write(1, line, (size_t)(end - line));
}

void mlf_print_failure(const char* module, int32_t status) {
  char number[16];
  char* end = put_i32(number, status);
  *end++ = '\n';
  put_text(2, "error: tvmgen_");
  put_text(2, module);
  put_text(2, "_run returned ");
  mlf_write(2, number, (size_t)(end - number));
}
