// Checked zstd decompression of an archive file, for ArchiveReader.
//
// ArchiveReader feeds libarchive's tar reader the decompressed bytes itself
// (as it does for gzip) so that it sees every byte after the tar
// end-of-archive marker, and so that the compressed stream is read to its
// very end: libarchive's own zstd filter stops where the tar reader stops,
// leaving whatever follows the frame unread.
//
// Accepted: one zstd frame or several concatenated (`cat a.zst b.zst`;
// skippable frames are skipped, as the zstd tool does). Every frame's content
// checksum, when it has one, is checked by libzstd. Refused: a stream that
// ends inside a frame ("Truncated zstd input") and anything after the last
// frame that is not another frame ("Zstd decompression failed: <libzstd's
// reason>", e.g. "Unknown frame descriptor"); these wordings are libarchive's,
// which this stream replaces. Windows above libzstd's default limit (128 MiB)
// are refused, bounding memory.
//
// Read as any DecompressionStream (decompression_stream.h): a clean end
// means that every frame was complete.
#ifndef MLFKIT_ARTIFACT_ARCHIVE_ZSTD_STREAM_H_
#define MLFKIT_ARTIFACT_ARCHIVE_ZSTD_STREAM_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "artifact/archive/archive_source.h"
#include "artifact/archive/decompression_stream.h"
#include "artifact/base/status.h"

struct ZSTD_DCtx_s;

namespace mlf {

class ZstdStream : public DecompressionStream {
 public:
  // Reads `input` (not owned; it must outlive the stream) from its current offset.
  static Result<std::unique_ptr<ZstdStream>> Create(SourceReader* input);
  ~ZstdStream() override;

  // As DecompressionStream::Read, at most libzstd's recommended output block
  // (ZSTD_DStreamOutSize(), about 128 KiB) at a time. Faults: kTruncated, the
  // input ends inside a frame; kCorrupt, libzstd refused the data, or bytes
  // after the last frame. An error is returned at once, without the bytes of
  // the failing call (as libarchive's filter did).
  Status Read(const void** data, size_t* size) override;

 private:
  explicit ZstdStream(SourceReader* input);
  Status Fill();

  SourceReader* input_;
  ZSTD_DCtx_s* dctx_ = nullptr;
  std::unique_ptr<unsigned char[]> in_;
  size_t in_capacity_;
  size_t in_pos_ = 0;
  size_t in_size_ = 0;
  std::unique_ptr<unsigned char[]> out_;
  size_t out_capacity_;
  bool eof_ = false;
  bool frame_open_ = false;  // libzstd needs more input to finish the current frame
  bool done_ = false;
};

}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_ARCHIVE_ZSTD_STREAM_H_
