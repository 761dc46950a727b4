// Streaming, bounded reader for untrusted Model Library Format archives.
//
// Reads POSIX tar (ustar, pax, GNU), uncompressed or gzip/zstd-compressed
// (auto-detected), through libarchive. Every other format (zip, cpio, 7z,
// bzip2/xz-compressed tar, ...) is refused. Regular files are returned one by
// one; directory entries are checked and skipped (TVM archives contain them).
//
// gzip is decompressed with zlib (GzipStream), not by libarchive's filter,
// because only zlib checks each gzip member's trailer (CRC-32 and length);
// zstd with libzstd (ZstdStream), so that the whole stream is read and what
// follows the last frame refused (libarchive's filter stops with the tar).
// Concatenated gzip members and zero padding after the last one are accepted;
// other bytes after it are refused.
//
// Nothing but zero bytes may follow the tar end-of-archive marker (zero
// padding to a record, as GNU tar writes): `tar -i` would extract an archive
// appended there, unsigned and unchecked. Next() refuses such data when it
// reaches the end: "data after the end-of-archive marker at offset N (only
// zero padding may follow it)", N being where the marker ends (in the
// decompressed tar for compressed archives, "... at offset N of the
// decompressed tar ..."). The last trailer is checked when Next()
// reaches the end of the archive (it reads the rest of the gzip stream first,
// under the same ratio and total bounds): a caller that stops early has not
// had the whole stream checked.
//
// Refused with an error naming the member: absolute paths, '..' components,
// symbolic and hard links, character and block devices, FIFOs, sockets,
// sparse files, duplicate members (after normalisation, "./a" == "a"), names,
// sizes, member counts and total sizes over the limits, decompression bombs
// (decompressed/compressed ratio over the limit), truncated archives and
// corrupt tar headers or gzip/zstd data.
//
// Accounting: a member's size is checked against the limits from its header
// (pax `size` included, before any data is read), and the data delivered is
// checked again as it streams. In compressed archives data the caller does not
// read is decompressed through the same checks, so skipping cannot bypass them.
//
// The archive's bytes come from an ArchiveSource (artifact/archive/archive_source.h:
// a file, a mapped file or memory); messages name it by source.name().
//
//   MLF_ASSIGN_OR_RETURN(auto reader, ArchiveReader::Open(source));
//   for (;;) {
//     MLF_ASSIGN_OR_RETURN(std::optional<EntryInfo> e, reader->Next());
//     if (!e) break;
//     MLF_RETURN_IF_ERROR(reader->ReadData([&](const void* p, size_t n) {
//       ...;
//       return Status::Ok();
//     }));
//   }
#ifndef MLFKIT_ARTIFACT_ARCHIVE_ARCHIVE_READER_H_
#define MLFKIT_ARTIFACT_ARCHIVE_ARCHIVE_READER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "artifact/archive/archive_source.h"
#include "artifact/archive/archive_writer.h"  // Compression
#include "artifact/archive/decompression_stream.h"
#include "artifact/base/status.h"

struct archive;
struct archive_entry;

namespace mlf {

struct ReaderLimits {
  uint64_t max_members = 100000;              // entries of any type, directories included
  uint64_t max_member_bytes = 64ull << 30;    // size of one member
  uint64_t max_total_bytes = 256ull << 30;    // sum of member sizes
  double max_compression_ratio = 1000;        // decompressed / compressed bytes
  uint64_t ratio_grace_bytes = 256ull << 20;  // ratio enforced beyond this many decompressed bytes
  uint64_t max_name_length = 4096;            // bytes
};

inline constexpr uint64_t kUnknownOffset = UINT64_MAX;

struct EntryInfo {
  // Normalised: "./" prefixes, "." and empty components removed ("./a//b" -> "a/b").
  std::string name;
  uint64_t size = 0;
  // Offset of the data in the archive file for uncompressed archives (so it
  // can be mmapped or copied with MemberSource::FileRange), else kUnknownOffset.
  uint64_t data_offset = kUnknownOffset;
};

// What the tar reader was given of a stream it cannot seek in (decompressed
// data, or a pipe), so that the bytes after the end-of-archive marker can be
// checked though libarchive buffered some of them (internal to ArchiveReader).
struct DecompressedFeed {
  DecompressionStream* stream = nullptr;  // gzip or zstd; exactly one of the two is set
  SourceReader* pipe = nullptr;           // an uncompressed archive read from a pipe or FIFO
  std::unique_ptr<unsigned char[]> pipe_buffer;
  Status pipe_error;
  uint64_t offset = 0;       // (decompressed) bytes delivered so far
  uint64_t nonzero_end = 0;  // offset just past the last non-zero byte delivered
  bool active() const { return stream != nullptr || pipe != nullptr; }
  Status Read(const void** data, size_t* size);
  bool Faulted() const;       // a decompression fault (pipe errors are libarchive's)
  uint64_t bytes_in() const;  // compressed bytes consumed
};

class ArchiveReader {
 public:
  // Reads `source` from its start (it must outlive the reader) and detects
  // its compression. Not-a-tar input is reported by the first Next()
  // (libarchive detects the format from the first header), except corrupt
  // compressed data that already fails here.
  static Result<std::unique_ptr<ArchiveReader>> Open(const ArchiveSource& source,
                                                     const ReaderLimits& limits = {});
  // The same for the file at `path` (ArchiveSource::OpenFile), owned by the reader.
  static Result<std::unique_ptr<ArchiveReader>> Open(const std::string& path,
                                                     const ReaderLimits& limits = {});
  ~ArchiveReader();
  ArchiveReader(const ArchiveReader&) = delete;
  ArchiveReader& operator=(const ArchiveReader&) = delete;

  Compression compression() const { return compression_; }

  // The next regular-file member, or nullopt at the end of the archive.
  // Unread data of the previous member is skipped. After an error the reader
  // is unusable and keeps returning that error.
  Result<std::optional<EntryInfo>> Next();

  // Streams the current member's data to `sink` in chunks (for uncompressed
  // archives the chunks point into libarchive's read buffer: no copy). A sink
  // error stops reading and is returned as is. Callable once per member.
  Status ReadData(const std::function<Status(const void* data, size_t size)>& sink);

  // The current member's data as a string; fails without reading anything if
  // the member is larger than `max_bytes`.
  Result<std::string> ReadAll(uint64_t max_bytes);

 private:
  ArchiveReader(const ArchiveSource& source, const ReaderLimits& limits)
      : source_(source), limits_(limits) {}

  Status OpenStream();
  Result<std::optional<EntryInfo>> NextEntry();
  Status DrainStream();
  Status CheckNothingAfter(uint64_t end);
  Status ReadBlocks(const std::function<Status(const void*, size_t)>& sink);
  Status AddParentDirectories(const std::string& raw, const std::string& name);
  Status CheckEntry(struct archive_entry* entry, const std::string& raw);
  Status AcceptFile(struct archive_entry* entry, const std::string& raw, const std::string& name);
  Status CheckRatio(const std::string& member) const;
  Status LibarchiveError(const std::string& member, bool in_header) const;
  Status ReadError(const std::string& member, const std::string& where) const;
  Status StreamError(const std::string& member, const std::string& where) const;
  Status Fail(Status s);

  std::unique_ptr<ArchiveSource> owned_source_;  // Open(path) only
  const ArchiveSource& source_;
  ReaderLimits limits_;
  std::unique_ptr<SourceReader> input_;  // the source from its start
  struct archive* archive_ = nullptr;
  std::unique_ptr<DecompressionStream> stream_;  // feeds archive_ for compressed archives
  DecompressedFeed feed_;                        // through this
  Compression compression_ = Compression::kNone;
  Status broken_;
  bool at_end_ = false;
  uint64_t members_ = 0;
  uint64_t total_declared_ = 0;
  std::set<std::string> files_;
  std::set<std::string> dirs_;
  std::optional<EntryInfo> current_;
  std::string current_raw_;  // its name as written in the archive, for errors
  uint64_t delivered_ = 0;   // data bytes of the current member read so far
  bool data_read_ = true;    // the current member's data was (being) streamed
  std::string last_name_;    // for errors between members
};

}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_ARCHIVE_ARCHIVE_READER_H_
