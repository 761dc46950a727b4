// Reads test data through a DecompressionStream to its end, for the gzip and
// zstd stream tests: what came out, how it ended, how much went in.
#ifndef MLFKIT_ARTIFACT_ARCHIVE_TESTING_DECOMPRESSION_TESTING_H_
#define MLFKIT_ARTIFACT_ARCHIVE_TESTING_DECOMPRESSION_TESTING_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "artifact/archive/archive_source.h"
#include "artifact/archive/decompression_stream.h"
#include "artifact/base/status.h"

namespace mlf {
namespace testutil {

struct StreamOutcome {
  std::string data;   // everything returned before the end or the error
  std::string error;  // "ok" at a clean end, else the error's ToString()
  DecompressionStream::Fault fault = DecompressionStream::Fault::kNone;
  uint64_t bytes_in = 0;
};

// Reads `stream` to its clean end or its first error. Fails the running test
// when a Read returns more than `max_read` bytes, when an error does not
// repeat on the next Read (errors are sticky), or when bytes_out() is not the
// number of bytes returned.
StreamOutcome ReadToEnd(DecompressionStream* stream, size_t max_read);

// `bytes` as the file $TEST_TMPDIR/stream.in, opened as an ArchiveSource.
Result<std::unique_ptr<ArchiveSource>> FileSource(const std::string& bytes);

// `compressed` decompressed by a new `Stream` (GzipStream, ZstdStream) from
// the start of a file holding it; a file or stream that cannot be opened
// gives its error as the outcome's.
template <typename Stream>
StreamOutcome Decompress(const std::string& compressed, size_t max_read) {
  const Result<std::unique_ptr<ArchiveSource>> source = FileSource(compressed);
  if (!source.ok()) return {"", source.status().ToString()};
  SourceReader input(**source);
  Result<std::unique_ptr<Stream>> stream = Stream::Create(&input);
  if (!stream.ok()) return {"", stream.status().ToString()};
  return ReadToEnd(stream->get(), max_read);
}

}  // namespace testutil
}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_ARCHIVE_TESTING_DECOMPRESSION_TESTING_H_
