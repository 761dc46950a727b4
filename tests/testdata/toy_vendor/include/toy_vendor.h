/* A vendor library of our own for the --vendor-source tests (issue 16):
 * what an archive's BYOC code includes and no archive carries. */
#ifndef TOY_VENDOR_H_
#define TOY_VENDOR_H_

#include <stdint.h>

/* Adds `value` to each of the `n` floats at `data`. */
void toy_vendor_add(float* data, int32_t n, float value);

#endif /* TOY_VENDOR_H_ */
