// Small bounds shared by the fuzz targets: an input of at most a few hundred
// KiB can then reach every limit check (and no input makes a target allocate
// more than a few MiB or spend more than milliseconds).
#ifndef MLFKIT_FUZZ_LIMITS_H_
#define MLFKIT_FUZZ_LIMITS_H_

#include "artifact/archive/archive_reader.h"

namespace mlf::fuzz {

inline ReaderLimits SmallReaderLimits() {
  ReaderLimits limits;
  limits.max_members = 64;
  limits.max_member_bytes = 1 << 20;
  limits.max_total_bytes = 4 << 20;
  limits.max_compression_ratio = 100;
  limits.ratio_grace_bytes = 256 << 10;
  limits.max_name_length = 512;
  return limits;
}

}  // namespace mlf::fuzz

#endif  // MLFKIT_FUZZ_LIMITS_H_
