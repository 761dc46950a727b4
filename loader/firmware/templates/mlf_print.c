/*
 * mlf_print.c - exact "%.9g" and integer output without printf or a heap.
 * See mlf_print.h for the format and the reasons.
 *
 * Floating point: an element is an exact binary value m * 2^e. It is scaled
 * into a ratio r / s of two big integers with 1 <= r / s < 10, then nine
 * decimal digits are produced by long division, and the exact remainder
 * decides the rounding (half to even, as glibc does). No floating-point
 * instruction is used, so the result does not depend on the FPU or on
 * soft-float routines, and it is the correctly rounded value that printf
 * prints.
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

/* ---- integers ---------------------------------------------------------- */

static size_t format_u32(char* out, uint32_t value) {
  char reversed[10];
  size_t n = 0, i;
  do {
    reversed[n++] = (char)('0' + value % 10);
    value /= 10;
  } while (value != 0);
  for (i = 0; i < n; ++i) out[i] = reversed[n - 1 - i];
  return n;
}

static size_t format_i32(char* out, int32_t value) {
  if (value >= 0) return format_u32(out, (uint32_t)value);
  out[0] = '-';
  return 1 + format_u32(out + 1, 0u - (uint32_t)value);
}

/* Splits off the last nine decimal digits with 32-bit divisions only (64-bit
 * division would pull in a library routine on Cortex-M): value = high * 2^32
 * + low, and 2^32 = 4 * 10^9 + 294967296. */
static uint32_t split_last_9_digits(uint64_t* value) {
  uint32_t high = (uint32_t)(*value >> 32), low = (uint32_t)*value;
  uint64_t quotient = 0;
  uint32_t rest;
  while (high != 0) {
    /* high * 2^32 + low = high * 4 * 10^9 + high * 294967296 + low */
    const uint64_t carry = (uint64_t)high * 294967296u + low;
    quotient += (uint64_t)high * 4u;
    high = (uint32_t)(carry >> 32);
    low = (uint32_t)carry;
  }
  quotient += low / 1000000000u;
  rest = low % 1000000000u;
  *value = quotient;
  return rest;
}

size_t mlf_format_unsigned(char* out, uint64_t value) {
  uint32_t last9;
  size_t n, i;
  if (value >> 32 == 0) return format_u32(out, (uint32_t)value);
  last9 = split_last_9_digits(&value); /* value was >= 2^32 > 10^9: digits remain */
  n = mlf_format_unsigned(out, value);
  for (i = 9; i > 0; --i) {
    out[n + i - 1] = (char)('0' + last9 % 10);
    last9 /= 10;
  }
  return n + 9;
}

size_t mlf_format_signed(char* out, int64_t value) {
  if (value >= 0) return mlf_format_unsigned(out, (uint64_t)value);
  out[0] = '-';
  return 1 + mlf_format_unsigned(out + 1, 0u - (uint64_t)value);
}

#define MLF_INTEGER_FORMAT(suffix, type, convert)                                    \
  size_t mlf_format_##suffix(char* out, const void* data, uint32_t index) {          \
    type value;                                                                      \
    memcpy(&value, (const uint8_t*)data + (size_t)index * sizeof value, sizeof value); \
    return convert(out, value);                                                      \
  }

MLF_INTEGER_FORMAT(i8, int8_t, format_i32)
MLF_INTEGER_FORMAT(i16, int16_t, format_i32)
MLF_INTEGER_FORMAT(i32, int32_t, format_i32)
MLF_INTEGER_FORMAT(i64, int64_t, mlf_format_signed)
MLF_INTEGER_FORMAT(u8, uint8_t, format_u32)
MLF_INTEGER_FORMAT(u16, uint16_t, format_u32)
MLF_INTEGER_FORMAT(u32, uint32_t, format_u32)
MLF_INTEGER_FORMAT(u64, uint64_t, mlf_format_unsigned)

/* ---- big unsigned integers -------------------------------------------- */

/* 36 words of 32 bits, least significant first: the largest intermediate
 * (the smallest subnormal double scaled by 10^324) stays below 2^1090.
 * Every operation runs over all words: slower than tracking the length, but
 * the code is a few dozen bytes, which matters more on a microcontroller. */
#define MLF_BIG_WORDS 36

typedef struct {
  uint32_t word[MLF_BIG_WORDS];
} mlf_big;

static void big_set(mlf_big* b, uint32_t value) {
  memset(b, 0, sizeof *b);
  b->word[0] = value;
}

static void big_mul_small(mlf_big* b, uint32_t factor) {
  uint64_t carry = 0;
  int i;
  for (i = 0; i < MLF_BIG_WORDS; ++i) {
    carry += (uint64_t)b->word[i] * factor;
    b->word[i] = (uint32_t)carry;
    carry >>= 32;
  }
}

static int big_compare(const mlf_big* a, const mlf_big* b) {
  int i;
  for (i = MLF_BIG_WORDS - 1; i >= 0; --i) {
    if (a->word[i] != b->word[i]) return a->word[i] < b->word[i] ? -1 : 1;
  }
  return 0;
}

/* a -= b, for a >= b. */
static void big_subtract(mlf_big* a, const mlf_big* b) {
  uint64_t borrow = 0;
  int i;
  for (i = 0; i < MLF_BIG_WORDS; ++i) {
    borrow = (uint64_t)a->word[i] - b->word[i] - borrow;
    a->word[i] = (uint32_t)borrow;
    borrow >>= 63;
  }
}

/* ---- "%.9g" ------------------------------------------------------------ */

/* %g layout of the digits d0.d1...d8 x 10^exponent10 ('0'-'9'): fixed
 * notation for -4 <= exponent10 < 9, else d.ddde+XX; trailing zeros dropped. */
static size_t layout_g9(char* out, const char digits[9], int exponent10) {
  const int scientific = exponent10 < -4 || exponent10 >= 9;
  const int point = scientific ? 1 : exponent10 + 1; /* digits before the '.' */
  int last = 8, i;
  size_t n = 0;
  while (last > 0 && digits[last] == '0') --last;
  if (point <= 0) {
    out[n++] = '0';
    out[n++] = '.';
    for (i = point; i < 0; ++i) out[n++] = '0';
  }
  for (i = 0; i <= last || i < point; ++i) {
    if (i == point && i > 0) out[n++] = '.';
    out[n++] = digits[i];
  }
  if (scientific) {
    const int magnitude = exponent10 < 0 ? -exponent10 : exponent10;
    out[n++] = 'e';
    out[n++] = exponent10 < 0 ? '-' : '+';
    if (magnitude < 10) out[n++] = '0';
    n += format_u32(out + n, (uint32_t)magnitude);
  }
  return n;
}

size_t mlf_format_g9(char* out, int negative, uint64_t mantissa, int exponent2) {
  mlf_big r, s;
  char digits[9];
  int exponent10, power, i, half;
  size_t n = 0;
  if (negative) out[n++] = '-';
  if (mantissa == 0) {
    out[n++] = '0';
    return n;
  }
  big_set(&r, (uint32_t)mantissa);
  r.word[1] = (uint32_t)(mantissa >> 32);
  big_set(&s, 1);
  /* The decimal exponent, estimated from the binary one: never too small,
   * at most three too big (1233/4096 is just below log10(2); GCC's >> of a
   * negative int rounds down). */
  for (power = exponent2; mantissa != 0; mantissa >>= 1) ++power;
  exponent10 = ((power * 1233) >> 12) + 1;
  /* r / s = value / 10^exponent10, exactly ... */
  for (power = exponent2; power > 0; --power) big_mul_small(&r, 2);
  for (; power < 0; ++power) big_mul_small(&s, 2);
  for (power = exponent10; power > 0; --power) big_mul_small(&s, 10);
  for (; power < 0; ++power) big_mul_small(&r, 10);
  /* ... then 1 <= r / s < 10. */
  while (big_compare(&r, &s) < 0) {
    big_mul_small(&r, 10);
    --exponent10;
  }
  for (i = 0; i < 9; ++i) {
    digits[i] = '0';
    if (i > 0) big_mul_small(&r, 10);
    while (big_compare(&r, &s) >= 0) {
      big_subtract(&r, &s);
      ++digits[i];
    }
  }
  /* Round on the exact remainder r / s: up above one half, to even at one half. */
  big_mul_small(&r, 2);
  half = big_compare(&r, &s);
  if (half > 0 || (half == 0 && (digits[8] & 1))) {
    for (i = 8; i >= 0 && digits[i] == '9'; --i) digits[i] = '0';
    if (i >= 0) {
      ++digits[i];
    } else {
      digits[0] = '1';
      ++exponent10;
    }
  }
  return n + layout_g9(out + n, digits, exponent10);
}

/* An IEEE 754 binary number from its fields. */
static size_t format_ieee(char* out, int negative, uint64_t fraction, uint32_t biased,
                          int fraction_bits, uint32_t all_ones, int bias) {
  size_t n = 0;
  if (biased == all_ones) {
    if (negative) out[n++] = '-';
    memcpy(out + n, fraction != 0 ? "nan" : "inf", 3);
    return n + 3;
  }
  if (biased == 0) return mlf_format_g9(out, negative, fraction, 1 - bias - fraction_bits);
  return mlf_format_g9(out, negative, fraction | (uint64_t)1 << fraction_bits,
                       (int)biased - bias - fraction_bits);
}

static size_t format_f32_bits(char* out, uint32_t bits) {
  return format_ieee(out, (int)(bits >> 31), bits & 0x7fffffu, (bits >> 23) & 0xffu, 23, 0xffu,
                     127);
}

size_t mlf_format_f16(char* out, const void* data, uint32_t index) {
  uint16_t bits;
  memcpy(&bits, (const uint8_t*)data + (size_t)index * 2, 2);
  return format_ieee(out, bits >> 15, bits & 0x3ffu, (bits >> 10) & 0x1fu, 10, 0x1fu, 15);
}

size_t mlf_format_bf16(char* out, const void* data, uint32_t index) {
  uint16_t bits;
  memcpy(&bits, (const uint8_t*)data + (size_t)index * 2, 2);
  return format_f32_bits(out, (uint32_t)bits << 16); /* bfloat16 is the top half of a float */
}

size_t mlf_format_f32(char* out, const void* data, uint32_t index) {
  uint32_t bits;
  memcpy(&bits, (const uint8_t*)data + (size_t)index * 4, 4);
  return format_f32_bits(out, bits);
}

size_t mlf_format_f64(char* out, const void* data, uint32_t index) {
  uint64_t bits;
  memcpy(&bits, (const uint8_t*)data + (size_t)index * 8, 8);
  return format_ieee(out, (int)(bits >> 63), bits & 0xfffffffffffffull,
                     (uint32_t)(bits >> 52) & 0x7ffu, 52, 0x7ffu, 1023);
}

size_t mlf_format_bool(char* out, const void* data, uint32_t index) {
  out[0] = ((const uint8_t*)data)[index] != 0 ? '1' : '0';
  return 1;
}

/* ---- output ------------------------------------------------------------ */

void mlf_write(int fd, const char* text, size_t size) {
  while (size > 0) {
    const long written = (long)MLF_RAW_WRITE(fd, text, size);
    if (written <= 0) return; /* nowhere left to report it */
    text += written;
    size -= (size_t)written;
  }
}

static void put_text(int fd, const char* text) { mlf_write(fd, text, strlen(text)); }

void mlf_print_output(const char* label, const void* data, uint32_t count, mlf_format_fn format) {
  char line[128];
  size_t used;
  uint32_t i;
  put_text(1, "output ");
  put_text(1, label);
  line[0] = ' ';
  used = 1 + format_u32(line + 1, count);
  /* Elements are collected in `line`, written out whenever the next one
   * might not fit. */
  for (i = 0; i < count; ++i) {
    if (used > sizeof line - MLF_ELEMENT_TEXT_MAX - 2) {
      mlf_write(1, line, used);
      used = 0;
    }
    line[used++] = ' ';
    used += format(line + used, data, i);
  }
  line[used++] = '\n';
  mlf_write(1, line, used);
}

void mlf_print_failure(const char* module, int32_t status) {
  char number[MLF_ELEMENT_TEXT_MAX + 1];
  const size_t n = format_i32(number, status);
  put_text(2, "error: tvmgen_");
  put_text(2, module);
  put_text(2, "_run returned ");
  number[n] = '\n';
  mlf_write(2, number, n + 1);
}
