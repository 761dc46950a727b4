// What the checked decompression streams of ArchiveReader share (GzipStream,
// ZstdStream): one Read loop, the kind of the first failure, the byte counts.
//
// ArchiveReader reads either stream through this interface and words its
// messages from fault() and error(); each stream documents what it accepts.
//
//   MLF_ASSIGN_OR_RETURN(std::unique_ptr<GzipStream> s, GzipStream::Create(&source_reader));
//   for (;;) {
//     const void* data;
//     size_t size;
//     MLF_RETURN_IF_ERROR(s->Read(&data, &size));
//     if (size == 0) break;  // clean end: the whole stream checked
//     Use(data, size);
//   }
#ifndef MLFKIT_ARTIFACT_ARCHIVE_DECOMPRESSION_STREAM_H_
#define MLFKIT_ARTIFACT_ARCHIVE_DECOMPRESSION_STREAM_H_

#include <cstddef>
#include <cstdint>

#include "artifact/base/status.h"

namespace mlf {

class DecompressionStream {
 public:
  // What a failed Read found, so that callers can word their message.
  enum class Fault {
    kNone,
    kTruncated,  // the input ends inside a member or frame (DataLoss)
    kCorrupt,    // the data is not valid for the format, or trailing bytes (DataLoss)
    kOther,      // read error or library failure, as the Status says
  };

  virtual ~DecompressionStream() = default;
  DecompressionStream(const DecompressionStream&) = delete;
  DecompressionStream& operator=(const DecompressionStream&) = delete;

  // Decompresses the next bytes into the stream's buffer: `*data` stays valid
  // until the next call. `*size` is 0 only at the clean end of the stream.
  // Errors are sticky: once a Read fails, every later one returns that error.
  // The status message is a detail without the file name.
  virtual Status Read(const void** data, size_t* size) = 0;

  Fault fault() const { return fault_; }
  const Status& error() const { return error_; }     // what the failed Read returned
  uint64_t bytes_in() const { return bytes_in_; }    // compressed bytes consumed
  uint64_t bytes_out() const { return bytes_out_; }  // decompressed bytes returned

 protected:
  DecompressionStream() = default;

  // Records the failure (kept by fault() and error()) and returns `status`.
  Status Failed(Fault fault, Status status);
  void CountIn(uint64_t n) { bytes_in_ += n; }
  void CountOut(uint64_t n) { bytes_out_ += n; }

 private:
  Fault fault_ = Fault::kNone;
  Status error_;
  uint64_t bytes_in_ = 0;
  uint64_t bytes_out_ = 0;
};

}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_ARCHIVE_DECOMPRESSION_STREAM_H_
