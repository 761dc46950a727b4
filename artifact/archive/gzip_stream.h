// Checked gzip decompression of an archive file, for ArchiveReader.
//
// libarchive's gzip filter never looks at the gzip trailer, so a stream whose
// CRC-32 or ISIZE is wrong (which `gzip -t` rejects) would be accepted. This
// stream inflates with zlib instead, which verifies both at the end of every
// gzip member.
//
// Accepted: one gzip member or several concatenated (`cat a.gz b.gz`, pigz),
// read as one stream; after the last member, zero bytes (padding to a tape
// block; `gzip -t` accepts them too). Any other byte after the last member is
// refused, as is a stream that ends inside a member (trailer included).
//
//   MLF_ASSIGN_OR_RETURN(std::unique_ptr<GzipStream> gz, GzipStream::Create(&source_reader));
//   for (;;) {
//     const void* data;
//     size_t size;
//     MLF_RETURN_IF_ERROR(gz->Read(&data, &size));
//     if (size == 0) break;  // clean end: every trailer checked
//     Use(data, size);
//   }
#ifndef MLFKIT_ARTIFACT_ARCHIVE_GZIP_STREAM_H_
#define MLFKIT_ARTIFACT_ARCHIVE_GZIP_STREAM_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "artifact/archive/archive_source.h"
#include "artifact/base/status.h"

struct z_stream_s;

namespace mlf {

class GzipStream {
 public:
  // Size of the input and of the output buffer (one Read returns at most this).
  static constexpr size_t kBufferSize = 1 << 20;

  // What a failed Read found, so that callers can word their message.
  enum class Fault {
    kNone,
    kTruncated,  // the input ends inside a gzip member (DataLoss)
    kCorrupt,    // bad header, deflate data, trailer or trailing bytes (DataLoss)
    kOther,      // read error or zlib failure, as the Status says
  };

  // Reads `input` (not owned; it must outlive the stream) from its current offset.
  static Result<std::unique_ptr<GzipStream>> Create(SourceReader* input);
  ~GzipStream();
  GzipStream(const GzipStream&) = delete;
  GzipStream& operator=(const GzipStream&) = delete;

  // Decompresses the next bytes into the stream's buffer: `*data` stays valid
  // until the next call. `*size` is 0 only at the clean end of the stream.
  // An error found after some output is returned by the following call, so
  // that the caller consumes the good bytes first and reports the error where
  // it is. Errors are sticky. The status message is a detail such as
  // "CRC-32 mismatch in the gzip trailer", without the file name.
  Status Read(const void** data, size_t* size);

  Fault fault() const { return fault_; }
  const Status& error() const { return error_; }     // what the failed Read returned
  uint64_t bytes_in() const { return bytes_in_; }    // compressed bytes consumed
  uint64_t bytes_out() const { return bytes_out_; }  // decompressed bytes returned

 private:
  enum class Phase { kMember, kBetweenMembers, kEnd };

  explicit GzipStream(SourceReader* input);
  Status Step();
  Status Inflate();
  Status StartNextMember();
  Status SkipZeroPadding();
  Status Fill(size_t need);
  Status Failed(Fault fault, Status status);

  SourceReader* input_;
  std::unique_ptr<z_stream_s> z_;
  bool z_ready_ = false;  // inflateInit2 succeeded: inflateEnd is due
  std::unique_ptr<unsigned char[]> in_;
  std::unique_ptr<unsigned char[]> out_;
  bool eof_ = false;
  Phase phase_ = Phase::kMember;
  Fault fault_ = Fault::kNone;
  Status error_;
  uint64_t bytes_in_ = 0;
  uint64_t bytes_out_ = 0;
};

}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_ARCHIVE_GZIP_STREAM_H_
