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
// Read as any DecompressionStream (decompression_stream.h): a clean end
// means that every trailer was checked.
#ifndef MLFKIT_ARTIFACT_ARCHIVE_GZIP_STREAM_H_
#define MLFKIT_ARTIFACT_ARCHIVE_GZIP_STREAM_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "artifact/archive/archive_source.h"
#include "artifact/archive/decompression_stream.h"
#include "artifact/base/status.h"

struct z_stream_s;

namespace mlf {

class GzipStream : public DecompressionStream {
 public:
  // Size of the input and of the output buffer (one Read returns at most this).
  static constexpr size_t kBufferSize = 1 << 20;

  // Reads `input` (not owned; it must outlive the stream) from its current offset.
  static Result<std::unique_ptr<GzipStream>> Create(SourceReader* input);
  ~GzipStream() override;

  // As DecompressionStream::Read. Faults: kTruncated, the input ends inside a
  // gzip member; kCorrupt, a bad header, deflate data, trailer or trailing
  // bytes. An error found after some output is returned by the following
  // call, so that the caller consumes the good bytes first and reports the
  // error where it is. Messages are details such as "CRC-32 mismatch in the
  // gzip trailer".
  Status Read(const void** data, size_t* size) override;

 private:
  enum class Phase { kMember, kBetweenMembers, kEnd };

  explicit GzipStream(SourceReader* input);
  Status Step();
  Status Inflate();
  Status StartNextMember();
  Status SkipZeroPadding();
  Status Fill(size_t need);

  SourceReader* input_;
  std::unique_ptr<z_stream_s> z_;
  bool z_ready_ = false;  // inflateInit2 succeeded: inflateEnd is due
  std::unique_ptr<unsigned char[]> in_;
  std::unique_ptr<unsigned char[]> out_;
  bool eof_ = false;
  Phase phase_ = Phase::kMember;
};

}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_ARCHIVE_GZIP_STREAM_H_
