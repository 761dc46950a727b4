#include "artifact/archive/testing/decompression_testing.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

namespace mlf {
namespace testutil {

StreamOutcome ReadToEnd(DecompressionStream* stream, size_t max_read) {
  StreamOutcome o;
  for (;;) {
    const void* p = nullptr;
    size_t n = 0;
    const Status st = stream->Read(&p, &n);
    if (!st.ok()) {
      o.error = st.ToString();
      EXPECT_EQ(stream->Read(&p, &n).ToString(), o.error);  // sticky
      break;
    }
    EXPECT_LE(n, max_read);
    if (n == 0) {
      o.error = "ok";
      break;
    }
    o.data.append(static_cast<const char*>(p), n);
  }
  o.fault = stream->fault();
  o.bytes_in = stream->bytes_in();
  EXPECT_EQ(stream->bytes_out(), o.data.size());
  return o;
}

Result<std::unique_ptr<ArchiveSource>> FileSource(const std::string& bytes) {
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/stream.in";
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  return ArchiveSource::OpenFile(path);
}

}  // namespace testutil
}  // namespace mlf
