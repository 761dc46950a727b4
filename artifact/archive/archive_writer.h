// Deterministic POSIX tar (pax) writer for Model Library Format archives.
//
// Layout guarantees (docs/archive-format.md, "Container"):
//  - members appear in the order given: `first` (metadata.json), then `rest`
//    in the caller's order (the caller sorts);
//  - every header has mode 0644, uid/gid 0, empty uname/gname, the caller's
//    mtime, typeflag '0'; no directory entries are written;
//  - names that do not fit the ustar name/prefix fields get a pax `path`
//    record; sizes >= 8 GiB a pax `size` record; an mtime outside the ustar
//    range a pax `mtime` record;
//  - the data of members with `align_data` starts at an offset that is a
//    multiple of kDataAlignment (4096) in the uncompressed archive, so loaders
//    can mmap it. The gap is filled by a pax extended header ('x') whose
//    records end with a `comment` record of the right length: POSIX says
//    readers ignore `comment`, so GNU tar, bsdtar/libarchive and Python's
//    tarfile list and extract such archives unchanged;
//  - the archive ends with two zero blocks and is a multiple of 512 bytes.
//    We use 512-byte blocking (no padding to 10240-byte records as GNU tar
//    does by default): records only mattered for tape drives, every reader
//    accepts it, and it keeps the output minimal and independent of tools.
//
// Identical inputs and options give byte-identical output, compressed or not.
// gzip: raw deflate (zlib) wrapped in a header written here: no name, mtime 0,
// XFL 0, OS 3 (Unix) whatever the host, like `gzip -n` on Unix. zstd: the
// frame records the content size and a checksum. zstd compresses with worker
// threads; libzstd's streaming output is identical for any number of workers
// >= 1 (it differs from single-threaded mode, which we therefore never use when
// the library supports threads), so the thread count does not affect the bytes.
// Both are reproducible for a given zlib / libzstd version and level.
//
// Digests: every member's SHA-256 is computed from the very bytes written to
// the archive. For an uncompressed archive each source is read once: one
// thread reads a chunk and writes it while another hashes it; the first
// member's space is reserved and its bytes are requested from `make_first`
// (with the digests of all other members) at the end and written in place.
// A compressed stream cannot be patched, so there the sources are hashed in
// a first pass, then `make_first` is called and everything is streamed in
// order; the second pass re-hashes and fails if a source changed in between.
//
// The output goes through AtomicFile: on any error (including a `make_first`
// error) `dest` is left as it was.
#ifndef MLFKIT_ARTIFACT_ARCHIVE_ARCHIVE_WRITER_H_
#define MLFKIT_ARTIFACT_ARCHIVE_ARCHIVE_WRITER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "artifact/base/atomic_file.h"  // FileOwnership
#include "artifact/base/status.h"

namespace mlf {

class ArchiveSource;

enum class Compression { kNone, kGzip, kZstd };

// "none", "gzip" or "zstd".
const char* CompressionName(Compression c);

// Data alignment of `align_data` members in the uncompressed archive.
inline constexpr uint64_t kDataAlignment = 4096;

// Where a member's bytes come from. Files are streamed, never loaded whole;
// their size is taken when WriteArchive starts and must not change.
class MemberSource {
 public:
  enum class Kind { kBytes, kFile, kFileRange };

  // In-memory bytes.
  static MemberSource Bytes(std::string data);
  // The whole regular file at `path`.
  static MemberSource File(std::string path);
  // `length` bytes of the file at `path` starting at `offset` (e.g. a member's
  // data inside an existing uncompressed archive, see EntryInfo::data_offset).
  static MemberSource FileRange(std::string path, uint64_t offset, uint64_t length);
  // `length` bytes of `archive` (artifact/archive/archive_source.h) starting
  // at `offset`; a kFileRange whose path() is archive.name(), for messages.
  // The source must outlive WriteArchive and be rereadable.
  static MemberSource ArchiveRange(const ArchiveSource& archive, uint64_t offset,
                                   uint64_t length);

  Kind kind() const { return kind_; }
  const std::string& bytes() const { return bytes_; }
  const std::string& path() const { return path_; }
  uint64_t offset() const { return offset_; }
  uint64_t length() const { return length_; }  // only for kFileRange
  // The archive an ArchiveRange reads; nullptr for every other source.
  const ArchiveSource* archive() const { return archive_; }

 private:
  Kind kind_ = Kind::kBytes;
  std::string bytes_;
  std::string path_;
  uint64_t offset_ = 0;
  uint64_t length_ = 0;
  const ArchiveSource* archive_ = nullptr;
};

struct ArchiveMember {
  std::string name;  // relative, '/'-separated, no '.', '..' or empty components
  MemberSource source;
  bool align_data = false;  // data starts on kDataAlignment (parameters/*.bin)
};

struct MemberDigest {
  uint64_t size = 0;
  std::string sha256;  // 64 lower-case hex digits
  bool operator==(const MemberDigest& o) const { return size == o.size && sha256 == o.sha256; }
};

using DigestMap = std::map<std::string, MemberDigest>;

struct WriteOptions {
  Compression compression = Compression::kNone;
  // Modification time of every member (seconds since the epoch): pass
  // SOURCE_DATE_EPOCH when set, else 0.
  int64_t mtime = 0;
  // 0 selects the default: gzip 6, zstd 3.
  int compression_level = 0;
  // zstd worker threads; 0 = one per core (at most 8). Does not change output.
  int zstd_workers = 0;
  // Called from the writing thread with bytes of member data processed so
  // far and the total. A compressed archive processes data twice (hash pass,
  // then write pass), so there `total` is twice the data size.
  std::function<void(uint64_t done, uint64_t total)> progress;
  // Set for a rewrite in place (sign): the new archive gets this owner,
  // group and mode (AtomicFile::KeepOwnerAndMode) instead of 0644.
  std::optional<FileOwnership> keep_ownership;
};

// Produces the first member's bytes once the digests of all other members
// are known. Must return exactly the announced size.
using FirstMemberFn = std::function<Result<std::string>(const DigestMap& rest_digests)>;

// Writes the archive `dest`: first the member `first_name`, whose content is
// `make_first(digests of rest)` and exactly `first_size` bytes, then `rest`.
// Returns the size and SHA-256 of every member, `first_name` included.
// Errors: invalid, duplicate member names (InvalidArgument / AlreadyExists,
// naming the member); unreadable or changing sources (IoError / DataLoss);
// `make_first` errors, or a size other than `first_size` (FailedPrecondition).
Result<DigestMap> WriteArchive(const std::string& dest, const std::string& first_name,
                               uint64_t first_size, const FirstMemberFn& make_first,
                               const std::vector<ArchiveMember>& rest,
                               const WriteOptions& options = {});

// Checks a member name: not empty, relative, no NUL byte, no empty, '.' or
// '..' components. The error names the member.
Status ValidateMemberName(const std::string& name);

// The header blocks (optional pax 'x' header + ustar header) for a regular
// file member whose header starts at `offset` (a multiple of 512) of the
// uncompressed archive. With `align_data`, offset + result.size() is a
// multiple of kDataAlignment. Exposed for tests and layout tools.
std::string EncodeMemberHeader(const std::string& name, uint64_t size, int64_t mtime,
                               uint64_t offset, bool align_data);

}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_ARCHIVE_ARCHIVE_WRITER_H_
