#include "artifact/archive/archive_reader.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "artifact/archive/gzip_stream.h"
#include "artifact/archive/zstd_stream.h"
#include "artifact/base/display_text.h"

namespace mlf {
namespace {

// libarchive reads the source in blocks of this size; for uncompressed
// archives data chunks point straight into these blocks (into the source's
// memory, for sources in memory).
constexpr size_t kReadBlock = 1 << 20;
constexpr size_t kMinReadBlock = 4096;

Status MemberError(StatusCode code, const std::string& name, const std::string& what) {
  return Status(code, "member " + QuoteForMessage(name) + ": " + what);
}

// "10737418240 bytes (10.0 GiB)".
std::string SizeText(uint64_t n) {
  std::string s = std::to_string(n) + " bytes";
  static const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(n);
  int unit = -1;
  while (v >= 1024 && unit < 3) {
    v /= 1024;
    ++unit;
  }
  if (unit >= 0) {
    char buf[32];
    snprintf(buf, sizeof buf, " (%.1f %s)", v, kUnits[unit]);
    s += buf;
  }
  return s;
}

bool Contains(const std::string& s, const char* what) { return s.find(what) != std::string::npos; }

// Removes "." and empty components; refuses absolute paths and "..".
Result<std::string> NormaliseName(const std::string& raw) {
  if (raw.empty()) return InvalidArgument("member '': empty name");
  if (raw[0] == '/') return MemberError(StatusCode::kPermissionDenied, raw, "absolute path");
  std::string out;
  size_t start = 0;
  while (start <= raw.size()) {
    size_t end = raw.find('/', start);
    if (end == std::string::npos) end = raw.size();
    const std::string part = raw.substr(start, end - start);
    if (part == "..") {
      return MemberError(StatusCode::kPermissionDenied, raw,
                         "path escapes the destination ('..' component)");
    }
    if (!part.empty() && part != ".") out += (out.empty() ? "" : "/") + part;
    start = end + 1;
  }
  return out;
}

// The first `n` bytes of `source`; false when it has fewer or is a stream
// (a stream's bytes can only be read once: it is taken as an uncompressed tar).
bool Magic(const ArchiveSource& source, unsigned char* m, size_t n) {
  Result<size_t> got = source.ReadAt(0, m, n);
  return got.ok() && *got == n;
}

// Recognises common non-tar inputs by their magic bytes, for a clear error.
const char* OtherFormat(const ArchiveSource& source) {
  unsigned char m[8] = {};
  Result<size_t> got = source.ReadAt(0, m, sizeof m);
  if (!got.ok() || *got < 6) return nullptr;
  if (memcmp(m, "PK\x03\x04", 4) == 0 || memcmp(m, "PK\x05\x06", 4) == 0) return "a zip archive";
  if (memcmp(m, "07070", 5) == 0 || (m[0] == 0xc7 && m[1] == 0x71)) return "a cpio archive";
  if (memcmp(m, "BZh", 3) == 0) return "bzip2-compressed data";
  if (memcmp(m,
             "\xfd"
             "7zXZ",
             5) == 0)
    return "xz-compressed data";
  if (memcmp(m, "7z\xbc\xaf\x27\x1c", 6) == 0) return "a 7-zip archive";
  if (memcmp(m, "Rar!", 4) == 0) return "a RAR archive";
  if (memcmp(m, "\x04\x22\x4d\x18", 4) == 0) return "lz4-compressed data";
  return nullptr;
}

Status NotTar(const std::string& path, const std::string& what) {
  return InvalidArgument("'" + path + "' is " + what +
                         ", not a tar archive (accepted: tar, optionally gzip- or "
                         "zstd-compressed)");
}

// Names the kind of entry if it is not a regular file or directory.
const char* ForbiddenType(archive_entry* e) {
  switch (archive_entry_filetype(e)) {
    case AE_IFREG:
    case AE_IFDIR:
      return nullptr;
    case AE_IFLNK:
      return "symbolic link";
    case AE_IFCHR:
      return "character device file (device files are not allowed)";
    case AE_IFBLK:
      return "block device file (device files are not allowed)";
    case AE_IFIFO:
      return "FIFO (named pipes are not allowed)";
    case AE_IFSOCK:
      return "socket (sockets are not allowed)";
    default:
      return "entry of an unsupported type";
  }
}

bool IsGzip(const ArchiveSource& source) {
  unsigned char m[2] = {};
  return Magic(source, m, sizeof m) && m[0] == 0x1f && m[1] == 0x8b;
}

bool IsZstd(const ArchiveSource& source) {
  unsigned char m[4] = {};
  return Magic(source, m, sizeof m) && memcmp(m, "\x28\xb5\x2f\xfd", 4) == 0;
}

// libarchive's callbacks for uncompressed archives that can be read at an
// offset: blocks of the source (no copy when it is in memory), and skipping
// member data without reading it (never past the end of the source).
la_ssize_t ReadSource(archive* a, void* reader, const void** buffer) {
  Result<size_t> n = static_cast<SourceReader*>(reader)->Next(buffer, kReadBlock);
  if (!n.ok()) {
    archive_set_error(a, EIO, "%s", n.status().message().c_str());
    return ARCHIVE_FATAL;
  }
  return static_cast<la_ssize_t>(*n);
}

la_int64_t SkipSource(archive*, void* reader, la_int64_t request) {
  if (request <= 0) return 0;
  return static_cast<la_int64_t>(
      static_cast<SourceReader*>(reader)->Skip(static_cast<uint64_t>(request)));
}

// libarchive's read callback for compressed archives (it sees the decompressed
// tar) and pipes.
la_ssize_t ReadDecompressed(archive* a, void* feed, const void** buffer) {
  size_t n = 0;
  const Status s = static_cast<DecompressedFeed*>(feed)->Read(buffer, &n);
  if (!s.ok()) {
    // For libarchive's own bookkeeping; messages come from the stream's fault.
    archive_set_error(a, EIO, "%s", s.message().c_str());
    return ARCHIVE_FATAL;
  }
  return static_cast<la_ssize_t>(n);
}

// Offset just past the last non-zero byte of data[0, n), or 0 when all are zero.
size_t NonZeroEnd(const void* data, size_t n) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  while (n > 0 && p[n - 1] == 0) --n;
  return n;
}

}  // namespace

Status DecompressedFeed::Read(const void** data, size_t* size) {
  if (pipe != nullptr) {
    *data = pipe_buffer.get();
    *size = 0;
    if (!pipe_error.ok()) return pipe_error;
    Result<size_t> n = pipe->Read(pipe_buffer.get(), kReadBlock);
    if (!n.ok()) return pipe_error = n.status();
    *size = *n;
  } else {
    MLF_RETURN_IF_ERROR(stream->Read(data, size));
  }
  const size_t end = NonZeroEnd(*data, *size);
  if (end > 0) nonzero_end = offset + end;
  offset += *size;
  return Status::Ok();
}

bool DecompressedFeed::Faulted() const {
  return stream != nullptr && stream->fault() != DecompressionStream::Fault::kNone;
}

uint64_t DecompressedFeed::bytes_in() const {
  return stream != nullptr ? stream->bytes_in() : offset;
}

Result<std::unique_ptr<ArchiveReader>> ArchiveReader::Open(const std::string& path,
                                                           const ReaderLimits& limits) {
  MLF_ASSIGN_OR_RETURN(std::unique_ptr<ArchiveSource> source, ArchiveSource::OpenFile(path));
  MLF_ASSIGN_OR_RETURN(std::unique_ptr<ArchiveReader> r, Open(*source, limits));
  r->owned_source_ = std::move(source);
  return r;
}

Result<std::unique_ptr<ArchiveReader>> ArchiveReader::Open(const ArchiveSource& source,
                                                           const ReaderLimits& limits) {
  auto r = std::unique_ptr<ArchiveReader>(new ArchiveReader(source, limits));
  if (const char* other = OtherFormat(source)) return NotTar(source.name(), other);
  MLF_ASSIGN_OR_RETURN(r->input_, source.NewReader());

  r->archive_ = archive_read_new();
  if (r->archive_ == nullptr) return Internal("cannot create a libarchive reader");
  archive_read_support_format_tar(r->archive_);  // ustar, pax and GNU tar
  MLF_RETURN_IF_ERROR(r->OpenStream());
  return r;
}

// Opening decompresses a first block to detect the format: corrupt or
// truncated compressed data fails here.
Status ArchiveReader::OpenStream() {
  if (IsGzip(source_)) {
    // No libarchive filter: it would decompress without checking trailers,
    // and would also unpack a second compression layer inside ours.
    compression_ = Compression::kGzip;
    MLF_ASSIGN_OR_RETURN(stream_, GzipStream::Create(input_.get()));
  } else if (IsZstd(source_)) {
    // Nor libarchive's zstd filter: it stops reading where the tar reader
    // stops, so nothing after the end-of-archive marker would be checked.
    compression_ = Compression::kZstd;
    MLF_ASSIGN_OR_RETURN(stream_, ZstdStream::Create(input_.get()));
  }
  if (stream_ != nullptr) {
    feed_.stream = stream_.get();
    if (archive_read_open(archive_, &feed_, nullptr, ReadDecompressed, nullptr) != ARCHIVE_OK) {
      return LibarchiveError("", true);
    }
    return Status::Ok();
  }
  if (!source_.rereadable()) {
    // A pipe: what follows the end-of-archive marker cannot be read back
    // at an offset, so it is fed through feed_ as well.
    feed_.pipe = input_.get();
    feed_.pipe_buffer.reset(new unsigned char[kReadBlock]);
    if (archive_read_open(archive_, &feed_, nullptr, ReadDecompressed, nullptr) != ARCHIVE_OK) {
      return LibarchiveError("", true);
    }
    return Status::Ok();
  }
  archive_read_set_callback_data(archive_, input_.get());
  archive_read_set_read_callback(archive_, ReadSource);
  archive_read_set_skip_callback(archive_, SkipSource);
  if (archive_read_open1(archive_) != ARCHIVE_OK) return LibarchiveError("", true);
  return Status::Ok();
}

ArchiveReader::~ArchiveReader() {
  if (archive_ != nullptr) archive_read_free(archive_);
}

Status ArchiveReader::Fail(Status s) {
  broken_ = s;
  return s;
}

Status ArchiveReader::LibarchiveError(const std::string& member, bool in_header) const {
  // Header errors happen between members: say where.
  const std::string where = !in_header           ? ""
                            : last_name_.empty() ? " at the start of the archive"
                                                 : " after member " + QuoteForMessage(last_name_);
  return ReadError(member, where);
}

Status ArchiveReader::ReadError(const std::string& member, const std::string& where) const {
  // A decompression failure first: libarchive may word it as a format error of its own.
  if (feed_.Faulted()) return StreamError(member, where);
  const char* raw = archive_error_string(archive_);
  const std::string msg = raw != nullptr ? raw : "unknown libarchive error";
  if (Contains(msg, "Unrecognized archive format")) return NotTar(source_.name(), "not recognised");
  const std::string prefix = member.empty() ? "" : "member " + QuoteForMessage(member) + ": ";
  std::string what;
  if (Contains(msg, "runcated") || Contains(msg, "Premature end")) {
    what = "truncated archive";
  } else if (compression_ == Compression::kZstd &&
             (Contains(msg, "zstd") || Contains(msg, "Zstd"))) {
    what = "corrupt zstd data";
  } else if (Contains(msg, "Damaged")) {
    what = "corrupt tar header (bad checksum)";
  } else {
    what = "unreadable archive";
  }
  return DataLoss(prefix + what + where + " (" + msg + ")");
}

// Worded like libarchive's errors: "member 'b': corrupt gzip data (...)".
Status ArchiveReader::StreamError(const std::string& member, const std::string& where) const {
  const std::string prefix = member.empty() ? "" : "member " + QuoteForMessage(member) + ": ";
  const Status& cause = stream_->error();
  if (stream_->fault() == DecompressionStream::Fault::kTruncated) {
    return DataLoss(prefix + "truncated archive" + where + " (" + cause.message() + ")");
  }
  if (stream_->fault() == DecompressionStream::Fault::kCorrupt) {
    return DataLoss(prefix + "corrupt " + CompressionName(compression_) + " data" + where + " (" +
                    cause.message() + ")");
  }
  return Status(cause.code(),
                prefix + "unreadable archive" + where + " (" + cause.message() + ")");
}

// `member` empty: the data after the tar end-of-archive marker.
Status ArchiveReader::CheckRatio(const std::string& member) const {
  if (compression_ == Compression::kNone) return Status::Ok();
  // libarchive sees our decompressed output as its input: the counts are ours.
  const int64_t out = static_cast<int64_t>(feed_.offset);
  const int64_t in = std::max<int64_t>(static_cast<int64_t>(feed_.bytes_in()), 1);
  if (out < 0 || static_cast<uint64_t>(out) <= limits_.ratio_grace_bytes) return Status::Ok();
  const double ratio = static_cast<double>(out) / static_cast<double>(in);
  if (ratio <= limits_.max_compression_ratio) return Status::Ok();
  char text[160];
  snprintf(text, sizeof text,
           "compression ratio %.0f:1 exceeds the limit of %.0f:1; possible decompression bomb",
           ratio, limits_.max_compression_ratio);
  const std::string what = "decompressed data exceeds the allowed size for " + std::to_string(in) +
                           " compressed bytes (" + text + ")";
  if (member.empty()) return OutOfRange("after the end of the tar archive: " + what);
  return MemberError(StatusCode::kOutOfRange, member, what);
}

Status ArchiveReader::CheckEntry(archive_entry* e, const std::string& raw) {
  if (const char* target = archive_entry_hardlink(e)) {
    return MemberError(StatusCode::kPermissionDenied, raw,
                       std::string("hard link to '") + target + "' (links are not allowed)");
  }
  if (archive_entry_filetype(e) == AE_IFLNK) {
    const char* target = archive_entry_symlink(e);
    return MemberError(
        StatusCode::kPermissionDenied, raw,
        std::string("symbolic link to '") + (target ? target : "") + "' (links are not allowed)");
  }
  if (const char* kind = ForbiddenType(e)) {
    return MemberError(StatusCode::kPermissionDenied, raw, kind);
  }
  if (archive_entry_sparse_count(e) > 0) {
    return MemberError(StatusCode::kInvalidArgument, raw, "sparse file (not supported)");
  }
  return Status::Ok();
}

Result<std::optional<EntryInfo>> ArchiveReader::Next() {
  if (!broken_.ok()) return broken_;
  if (at_end_) return std::optional<EntryInfo>();
  Result<std::optional<EntryInfo>> r = NextEntry();
  if (!r.ok()) return Fail(r.status());
  return r;
}

Result<std::optional<EntryInfo>> ArchiveReader::NextEntry() {
  // libarchive would skip unread compressed data silently; drain it through
  // the ratio checks instead.
  if (current_ && !data_read_ && compression_ != Compression::kNone) {
    MLF_RETURN_IF_ERROR(ReadBlocks([](const void*, size_t) { return Status::Ok(); }));
  }
  if (current_) last_name_ = current_raw_;
  current_.reset();
  for (;;) {
    archive_entry* e = nullptr;
    const int r = archive_read_next_header(archive_, &e);
    if (r == ARCHIVE_EOF) {
      // The tar reader has consumed the end-of-archive blocks (one or two).
      const uint64_t end = static_cast<uint64_t>(archive_filter_bytes(archive_, 0));
      MLF_RETURN_IF_ERROR(DrainStream());
      MLF_RETURN_IF_ERROR(CheckNothingAfter(end));
      at_end_ = true;
      return std::optional<EntryInfo>();
    }
    // ARCHIVE_WARN: e.g. a name not convertible to the locale; the raw name
    // is still checked below. ARCHIVE_RETRY (damaged header) is an error:
    // libarchive would resynchronise by skipping data.
    if (r != ARCHIVE_OK && r != ARCHIVE_WARN) return LibarchiveError("", true);
    if (++members_ > limits_.max_members) {
      return OutOfRange("archive has more than " + std::to_string(limits_.max_members) +
                        " members");
    }
    const char* utf8 = archive_entry_pathname_utf8(e);
    const char* native = archive_entry_pathname(e);
    const std::string raw = utf8 ? utf8 : native ? native : "";
    if (raw.size() > limits_.max_name_length) {
      return MemberError(StatusCode::kOutOfRange, raw,
                         "name is " + std::to_string(raw.size()) +
                             " bytes, longer than the limit of " +
                             std::to_string(limits_.max_name_length));
    }
    MLF_ASSIGN_OR_RETURN(std::string name, NormaliseName(raw));
    MLF_RETURN_IF_ERROR(CheckEntry(e, raw));
    MLF_RETURN_IF_ERROR(CheckRatio(raw));
    if (archive_entry_filetype(e) == AE_IFDIR) {
      if (files_.count(name)) {
        return MemberError(StatusCode::kAlreadyExists, raw, "directory has the name of a file");
      }
      if (!name.empty()) {
        MLF_RETURN_IF_ERROR(AddParentDirectories(raw, name));
        dirs_.insert(name);
      }
      continue;
    }
    MLF_RETURN_IF_ERROR(AcceptFile(e, raw, name));
    return current_;
  }
}

// libarchive stops reading at the tar end-of-archive marker, but zlib checks
// the last member's trailer (and libzstd the last checksum, and both what
// follows the stream) only when they get there: decompress the rest, bounded
// like member data (the ratio, and the total counting it as data).
Status ArchiveReader::DrainStream() {
  if (!feed_.active()) return Status::Ok();
  const uint64_t allowed =
      limits_.max_total_bytes - std::min(total_declared_, limits_.max_total_bytes);
  uint64_t trailing = 0;
  for (;;) {
    const void* data = nullptr;
    size_t n = 0;
    const Status read = feed_.Read(&data, &n);
    if (!read.ok() && feed_.pipe != nullptr) {
      return Status(read.code(), "unreadable archive at the end of the archive (" +
                                     read.message() + ")");
    }
    if (!read.ok()) return StreamError("", " at the end of the archive");
    if (n == 0) return Status::Ok();
    trailing += n;
    if (trailing > allowed) {
      const std::string limit = SizeText(limits_.max_total_bytes);
      return OutOfRange(
          "data after the end of the tar archive takes the archive over the limit of " + limit);
    }
    MLF_RETURN_IF_ERROR(CheckRatio(""));
  }
}

// Tools that read past the end-of-archive blocks (`tar -i`, libraries that
// resynchronise) would extract whatever follows them, unsigned and unchecked:
// only zero padding (to a tape record) may follow.
Status ArchiveReader::CheckNothingAfter(uint64_t end) {
  bool data = false;
  if (feed_.active()) {
    data = feed_.nonzero_end > end;
  } else {
    std::vector<unsigned char> buf(kMinReadBlock * 16);
    for (uint64_t at = end;;) {
      Result<size_t> n = source_.ReadAt(at, buf.data(), buf.size());
      if (!n.ok()) {
        // "read failed: <reason>" worded for this place.
        const std::string& m = n.status().message();
        return Status(n.status().code(), "cannot read the end of archive '" + source_.name() +
                                             "'" + m.substr(std::min(m.find(':'), m.size())));
      }
      if (*n == 0) break;
      if (NonZeroEnd(buf.data(), *n) > 0) {
        data = true;
        break;
      }
      at += *n;
    }
  }
  if (!data) return Status::Ok();
  return DataLoss("data after the end-of-archive marker at offset " + std::to_string(end) +
                  (compression_ == Compression::kNone ? "" : " of the decompressed tar") +
                  " (only zero padding may follow it)");
}

// Records the directories a member's path implies; one of them being a file
// member would make the archive impossible to extract.
Status ArchiveReader::AddParentDirectories(const std::string& raw, const std::string& name) {
  for (size_t slash = name.find('/'); slash != std::string::npos;
       slash = name.find('/', slash + 1)) {
    const std::string parent = name.substr(0, slash);
    if (files_.count(parent)) {
      return MemberError(StatusCode::kAlreadyExists, raw,
                         "its parent directory '" + parent + "' is a file member");
    }
    dirs_.insert(parent);
  }
  return Status::Ok();
}

Status ArchiveReader::AcceptFile(archive_entry* e, const std::string& raw,
                                 const std::string& name) {
  if (name.empty()) return MemberError(StatusCode::kInvalidArgument, raw, "empty name");
  const int64_t declared = archive_entry_size_is_set(e) ? archive_entry_size(e) : 0;
  if (declared < 0) return MemberError(StatusCode::kDataLoss, raw, "negative size");
  const uint64_t size = static_cast<uint64_t>(declared);
  if (size > limits_.max_member_bytes) {
    return MemberError(
        StatusCode::kOutOfRange, raw,
        "size " + SizeText(size) + " exceeds the limit of " + SizeText(limits_.max_member_bytes));
  }
  if (size > limits_.max_total_bytes - std::min(total_declared_, limits_.max_total_bytes)) {
    return MemberError(StatusCode::kOutOfRange, raw,
                       "members total more than the limit of " + SizeText(limits_.max_total_bytes));
  }
  if (files_.count(name)) {
    return MemberError(
        StatusCode::kAlreadyExists, raw,
        raw == name ? "duplicate member" : "duplicate member (same path as '" + name + "')");
  }
  if (dirs_.count(name)) {
    return MemberError(StatusCode::kAlreadyExists, raw,
                       "is a file, but other members use it as a directory");
  }
  MLF_RETURN_IF_ERROR(AddParentDirectories(raw, name));
  files_.insert(name);
  total_declared_ += size;
  EntryInfo info{name, size, kUnknownOffset};
  if (compression_ == Compression::kNone) {
    // The tar reader has consumed the headers: the stream position is the data.
    info.data_offset = static_cast<uint64_t>(archive_filter_bytes(archive_, 0));
  }
  current_ = std::move(info);
  current_raw_ = raw;
  delivered_ = 0;
  data_read_ = false;
  return Status::Ok();
}

Status ArchiveReader::ReadBlocks(const std::function<Status(const void*, size_t)>& sink) {
  data_read_ = true;
  for (;;) {
    const void* buf = nullptr;
    size_t n = 0;
    la_int64_t offset = 0;
    const int r = archive_read_data_block(archive_, &buf, &n, &offset);
    if (r == ARCHIVE_EOF) break;
    if (r != ARCHIVE_OK) return Fail(LibarchiveError(current_raw_, false));
    if (offset < 0 || static_cast<uint64_t>(offset) != delivered_) {
      return Fail(
          MemberError(StatusCode::kInvalidArgument, current_raw_, "sparse file (not supported)"));
    }
    delivered_ += n;
    if (delivered_ > current_->size) {
      return Fail(
          MemberError(StatusCode::kDataLoss, current_raw_, "more data than the header declares"));
    }
    Status ratio = CheckRatio(current_raw_);
    if (!ratio.ok()) return Fail(ratio);
    if (n > 0) MLF_RETURN_IF_ERROR(sink(buf, n));
  }
  if (delivered_ != current_->size) {
    return Fail(MemberError(StatusCode::kDataLoss, current_raw_,
                            "truncated archive (" + std::to_string(delivered_) + " of " +
                                std::to_string(current_->size) + " bytes)"));
  }
  return Status::Ok();
}

Status ArchiveReader::ReadData(const std::function<Status(const void*, size_t)>& sink) {
  if (!broken_.ok()) return broken_;
  if (!current_) return FailedPrecondition("no current member: call Next() first");
  if (data_read_) {
    return MemberError(StatusCode::kFailedPrecondition, current_raw_, "data was already read");
  }
  return ReadBlocks(sink);
}

Result<std::string> ArchiveReader::ReadAll(uint64_t max_bytes) {
  if (current_ && current_->size > max_bytes) {
    return MemberError(StatusCode::kOutOfRange, current_raw_,
                       "size " + SizeText(current_->size) + " exceeds the limit of " +
                           SizeText(max_bytes) + " for reading it into memory");
  }
  std::string out;
  if (current_) out.reserve(static_cast<size_t>(current_->size));
  MLF_RETURN_IF_ERROR(ReadData([&out](const void* p, size_t n) {
    out.append(static_cast<const char*>(p), n);
    return Status::Ok();
  }));
  return out;
}

}  // namespace mlf
