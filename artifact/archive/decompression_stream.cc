#include "artifact/archive/decompression_stream.h"

namespace mlf {

Status DecompressionStream::Failed(Fault fault, Status status) {
  fault_ = fault;
  error_ = status;
  return status;
}

}  // namespace mlf
