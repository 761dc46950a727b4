#include "artifact/archive/archive_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "artifact/archive/archive_source.h"
#include "artifact/base/atomic_file.h"
#include "artifact/base/digest.h"
#include "artifact/base/display_text.h"

namespace mlf {

const char* CompressionName(Compression c) {
  switch (c) {
    case Compression::kNone:
      return "none";
    case Compression::kGzip:
      return "gzip";
    case Compression::kZstd:
      return "zstd";
  }
  return "unknown";
}

MemberSource MemberSource::Bytes(std::string data) {
  MemberSource s;
  s.kind_ = Kind::kBytes;
  s.bytes_ = std::move(data);
  return s;
}

MemberSource MemberSource::File(std::string path) {
  MemberSource s;
  s.kind_ = Kind::kFile;
  s.path_ = std::move(path);
  return s;
}

MemberSource MemberSource::FileRange(std::string path, uint64_t offset, uint64_t length) {
  MemberSource s;
  s.kind_ = Kind::kFileRange;
  s.path_ = std::move(path);
  s.offset_ = offset;
  s.length_ = length;
  return s;
}

MemberSource MemberSource::ArchiveRange(const ArchiveSource& archive, uint64_t offset,
                                       uint64_t length) {
  MemberSource s = FileRange(archive.name(), offset, length);
  s.archive_ = &archive;
  return s;
}

namespace {

constexpr uint64_t kBlock = 512;
// Largest value of an 11-digit octal ustar field (size, mtime): 8 GiB - 1.
constexpr uint64_t kMaxOctal11 = (uint64_t{1} << 33) - 1;
// Chunk size for streaming: fits in L2 so the hasher reads what was just copied.
constexpr size_t kChunk = 1 << 20;
// Members at least this large are hashed on a second thread while copied.
constexpr uint64_t kParallelThreshold = 4 << 20;

uint64_t RoundUp(uint64_t v, uint64_t to) { return (v + to - 1) / to * to; }

Status MemberError(StatusCode code, const std::string& name, const std::string& what) {
  return Status(code, "member " + QuoteForMessage(name) + ": " + what);
}

// ---------------------------------------------------------------- headers --

void PutOctal(char* field, size_t width, uint64_t value) {
  // width - 1 zero-padded octal digits and a NUL, as GNU tar and POSIX write.
  field[width - 1] = '\0';
  for (size_t i = width - 1; i-- > 0;) {
    field[i] = static_cast<char>('0' + (value & 7));
    value >>= 3;
  }
}

size_t DecimalDigits(uint64_t v) {
  size_t d = 1;
  while (v >= 10) {
    v /= 10;
    ++d;
  }
  return d;
}

// "<len> <key>=<value>\n" where <len> counts the whole record, itself included.
std::string PaxRecord(const std::string& key, const std::string& value) {
  const size_t payload = key.size() + value.size() + 3;  // ' ', '=', '\n'
  size_t len = payload + 1;
  while (len != payload + DecimalDigits(len)) len = payload + DecimalDigits(len);
  return std::to_string(len) + " " + key + "=" + value + "\n";
}

// A `comment` record of exactly `len` (>= kMinPadRecord) bytes.
constexpr size_t kMinPadRecord = 12;  // "12 comment=\n"
std::string PaddingRecord(size_t len) {
  const size_t value_len = len - DecimalDigits(len) - 10;
  return std::to_string(len) + " comment=" + std::string(value_len, ' ') + "\n";
}

// Splits `name` into ustar prefix (<= 155) and name (<= 100) fields.
bool SplitUstarName(const std::string& name, std::string* prefix, std::string* rest) {
  if (name.size() <= 100) {
    prefix->clear();
    *rest = name;
    return true;
  }
  for (size_t i = name.find('/'); i != std::string::npos && i <= 155; i = name.find('/', i + 1)) {
    if (name.size() - i - 1 <= 100) {
      *prefix = name.substr(0, i);
      *rest = name.substr(i + 1);
      return true;
    }
  }
  return false;
}

std::string UstarHeader(const std::string& prefix, const std::string& name, uint64_t size,
                        uint64_t mtime, char typeflag) {
  char h[kBlock] = {};
  memcpy(h, name.data(), std::min<size_t>(name.size(), 100));
  PutOctal(h + 100, 8, 0644);
  PutOctal(h + 108, 8, 0);  // uid
  PutOctal(h + 116, 8, 0);  // gid
  PutOctal(h + 124, 12, size);
  PutOctal(h + 136, 12, mtime);
  h[156] = typeflag;
  memcpy(h + 257, "ustar", 6);  // magic with its NUL
  memcpy(h + 263, "00", 2);
  PutOctal(h + 329, 8, 0);  // devmajor
  PutOctal(h + 337, 8, 0);  // devminor
  memcpy(h + 345, prefix.data(), std::min<size_t>(prefix.size(), 155));
  memset(h + 148, ' ', 8);  // the checksum counts its own field as spaces
  unsigned sum = 0;
  for (unsigned char c : h) sum += c;
  PutOctal(h + 148, 7, sum);  // six digits, NUL, then the space already there
  return std::string(h, kBlock);
}

// Records needed because a value does not fit the ustar fields.
std::string OverflowRecords(const std::string& name, uint64_t size, int64_t mtime) {
  std::string records, prefix, rest;
  if (!SplitUstarName(name, &prefix, &rest)) records += PaxRecord("path", name);
  if (size > kMaxOctal11) records += PaxRecord("size", std::to_string(size));
  if (mtime < 0 || static_cast<uint64_t>(mtime) > kMaxOctal11) {
    records += PaxRecord("mtime", std::to_string(mtime));
  }
  return records;
}

// Smallest padded record area (a multiple of 512, room for `records` and a
// padding record) that puts data at a multiple of kDataAlignment.
uint64_t AlignedRecordArea(uint64_t offset, size_t records) {
  const uint64_t fixed = offset + 2 * kBlock;  // 'x' header + ustar header
  uint64_t area = RoundUp(records + kMinPadRecord, kBlock);
  while ((fixed + area) % kDataAlignment != 0) area += kBlock;
  return area;
}

}  // namespace

std::string EncodeMemberHeader(const std::string& name, uint64_t size, int64_t mtime,
                               uint64_t offset, bool align_data) {
  std::string records = OverflowRecords(name, size, mtime);
  if (align_data && !(records.empty() && (offset + kBlock) % kDataAlignment == 0)) {
    const uint64_t area = AlignedRecordArea(offset, records.size());
    records += PaddingRecord(area - records.size());
  }
  std::string prefix, rest;
  if (!SplitUstarName(name, &prefix, &rest)) rest = name.substr(0, 100);  // pax path wins
  const uint64_t ustar_size = size > kMaxOctal11 ? 0 : size;              // pax size wins
  const uint64_t ustar_mtime =
      mtime < 0 || static_cast<uint64_t>(mtime) > kMaxOctal11 ? 0 : static_cast<uint64_t>(mtime);
  std::string out;
  if (!records.empty()) {
    out += UstarHeader("", "././@PaxHeader", records.size(), ustar_mtime, 'x');
    out += records;
    out.resize(RoundUp(out.size(), kBlock), '\0');
  }
  out += UstarHeader(prefix, rest, ustar_size, ustar_mtime, '0');
  return out;
}

Status ValidateMemberName(const std::string& name) {
  if (name.empty()) return InvalidArgument("member name is empty");
  if (name.find('\0') != std::string::npos) {
    return MemberError(StatusCode::kInvalidArgument, name, "name contains a NUL byte");
  }
  if (name[0] == '/') return MemberError(StatusCode::kInvalidArgument, name, "absolute path");
  size_t start = 0;
  while (start <= name.size()) {
    size_t end = name.find('/', start);
    if (end == std::string::npos) end = name.size();
    const std::string part = name.substr(start, end - start);
    if (part == "..") {
      return MemberError(StatusCode::kInvalidArgument, name,
                         "path escapes the destination ('..' component)");
    }
    if (part.empty() || part == ".") {
      return MemberError(StatusCode::kInvalidArgument, name,
                         "empty or '.' path component (names must be canonical)");
    }
    start = end + 1;
  }
  return Status::Ok();
}

namespace {

// ------------------------------------------------------------------ plan --

struct PlannedMember {
  const std::string* name;
  const MemberSource* source;  // null for the first member
  uint64_t size;
  uint64_t header_offset;
  std::string header;
  uint64_t data_offset() const { return header_offset + header.size(); }
  uint64_t end_offset() const { return RoundUp(data_offset() + size, kBlock); }
};

struct Plan {
  std::vector<PlannedMember> members;  // [0] is the first member
  uint64_t archive_size = 0;
  uint64_t data_bytes = 0;
};

Result<uint64_t> SourceSize(const ArchiveMember& m) {
  const MemberSource& s = m.source;
  if (s.kind() == MemberSource::Kind::kBytes) return static_cast<uint64_t>(s.bytes().size());
  struct stat st {};
  if (s.archive() != nullptr) {
    st.st_mode = S_IFREG;
    st.st_size = static_cast<off_t>(s.archive()->size());
  } else if (stat(s.path().c_str(), &st) != 0) {
    return ErrnoError("member " + QuoteForMessage(m.name) + ": cannot read source '" + s.path() + "'");
  }
  if (!S_ISREG(st.st_mode)) {
    return MemberError(StatusCode::kInvalidArgument, m.name,
                       "source '" + s.path() + "' is not a regular file");
  }
  const uint64_t file_size = static_cast<uint64_t>(st.st_size);
  if (s.kind() == MemberSource::Kind::kFile) return file_size;
  if (s.offset() > file_size || s.length() > file_size - s.offset()) {
    return MemberError(StatusCode::kOutOfRange, m.name,
                       "range [" + std::to_string(s.offset()) + ", +" + std::to_string(s.length()) +
                           ") lies outside source '" + s.path() + "' (" +
                           std::to_string(file_size) + " bytes)");
  }
  return s.length();
}

void AddToPlan(Plan* plan, const std::string& name, const MemberSource* source, uint64_t size,
               bool align, int64_t mtime) {
  PlannedMember p{&name, source, size, plan->archive_size,
                  EncodeMemberHeader(name, size, mtime, plan->archive_size, align)};
  plan->archive_size = p.end_offset();
  plan->data_bytes += size;
  plan->members.push_back(std::move(p));
}

Result<Plan> MakePlan(const std::string& first_name, uint64_t first_size,
                      const std::vector<ArchiveMember>& rest, int64_t mtime) {
  std::set<std::string> seen;
  MLF_RETURN_IF_ERROR(ValidateMemberName(first_name));
  seen.insert(first_name);
  Plan plan;
  AddToPlan(&plan, first_name, nullptr, first_size, false, mtime);
  for (const ArchiveMember& m : rest) {
    MLF_RETURN_IF_ERROR(ValidateMemberName(m.name));
    if (!seen.insert(m.name).second) {
      return MemberError(StatusCode::kAlreadyExists, m.name, "duplicate member");
    }
    MLF_ASSIGN_OR_RETURN(uint64_t size, SourceSize(m));
    AddToPlan(&plan, m.name, &m.source, size, m.align_data, mtime);
  }
  plan.archive_size += 2 * kBlock;  // end-of-archive marker
  return plan;
}

// --------------------------------------------------------------- sources --

class Progress {
 public:
  Progress(const std::function<void(uint64_t, uint64_t)>& fn, uint64_t total)
      : fn_(fn), total_(total) {}
  void Add(uint64_t n) {
    done_ += n;
    if (fn_) fn_(done_, total_);
  }

 private:
  const std::function<void(uint64_t, uint64_t)>& fn_;
  uint64_t total_;
  uint64_t done_ = 0;
};

// An open member source: in-memory bytes or a byte range of an open file.
class OpenSource {
 public:
  static Result<std::unique_ptr<OpenSource>> Open(const PlannedMember& m) {
    auto src = std::unique_ptr<OpenSource>(new OpenSource(*m.name, m.size));
    const MemberSource& s = *m.source;
    if (s.kind() == MemberSource::Kind::kBytes) {
      src->bytes_ = &s.bytes();
      return src;
    }
    if (s.archive() != nullptr) {  // already open
      src->archive_ = s.archive();
      src->path_ = s.path();
      src->offset_ = s.offset();
      return src;
    }
    src->fd_ = open(s.path().c_str(), O_RDONLY | O_CLOEXEC);
    if (src->fd_ < 0) {
      return ErrnoError("member " + QuoteForMessage(*m.name) + ": cannot open source '" + s.path() +
                        "'");
    }
    posix_fadvise(src->fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
    src->path_ = s.path();
    src->offset_ = s.offset();
    struct stat st;
    if (s.kind() == MemberSource::Kind::kFile &&
        (fstat(src->fd_, &st) != 0 || static_cast<uint64_t>(st.st_size) != m.size)) {
      return src->Changed();
    }
    return src;
  }
  ~OpenSource() {
    if (fd_ >= 0) close(fd_);
  }

  uint64_t size() const { return size_; }

  // Reads up to `cap` bytes at `pos` (relative to the member's data); fails
  // if the source ends early.
  Result<size_t> Read(uint64_t pos, char* buf, size_t cap) const {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(cap, size_ - pos));
    if (bytes_ != nullptr) {
      memcpy(buf, bytes_->data() + pos, want);
      return want;
    }
    size_t got = 0;
    while (got < want && archive_ != nullptr) {
      Result<size_t> n = archive_->ReadAt(offset_ + pos + got, buf + got, want - got);
      if (!n.ok()) {  // "read failed: <reason>", worded as for files
        const std::string& m = n.status().message();
        return Status(n.status().code(), "member " + QuoteForMessage(name_) + ": cannot read '" + path_ +
                                             "'" + m.substr(std::min(m.find(':'), m.size())));
      }
      if (*n == 0) return Changed();
      got += *n;
    }
    while (got < want) {
      const ssize_t n = pread(fd_, buf + got, want - got, static_cast<off_t>(offset_ + pos + got));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        return ErrnoError("member " + QuoteForMessage(name_) + ": cannot read '" + path_ + "'");
      }
      if (n == 0) return Changed();
      got += static_cast<size_t>(n);
    }
    return got;
  }

  // For in-memory sources, the bytes themselves (no copy needed).
  const std::string* bytes() const { return bytes_; }

  Status Changed() const {
    return MemberError(StatusCode::kDataLoss, name_,
                       "source '" + path_ + "' changed size while packing (expected " +
                           std::to_string(size_) + " bytes)");
  }

 private:
  OpenSource(std::string name, uint64_t size) : name_(std::move(name)), size_(size) {}
  std::string name_;
  uint64_t size_;
  const std::string* bytes_ = nullptr;
  const ArchiveSource* archive_ = nullptr;  // an ArchiveRange: read through the source
  int fd_ = -1;
  std::string path_;
  uint64_t offset_ = 0;
};

// Hashes a member's data in a pass of its own (compressed archives).
Result<std::string> HashSource(const OpenSource& src, Progress* progress) {
  Sha256 h;
  if (src.bytes() != nullptr) {
    h.Update(*src.bytes());
    progress->Add(src.size());
    return h.FinishHex();
  }
  std::vector<char> buf(kChunk);
  for (uint64_t pos = 0; pos < src.size();) {
    MLF_ASSIGN_OR_RETURN(size_t n, src.Read(pos, buf.data(), buf.size()));
    h.Update(buf.data(), n);
    pos += n;
    progress->Add(n);
  }
  return h.FinishHex();
}

// ------------------------------------------------------ uncompressed output --

Status PwriteAll(int fd, const void* data, size_t size, uint64_t offset, const std::string& dest) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = pwrite(fd, p, size, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoError("cannot write '" + dest + "'");
    p += n;
    size -= static_cast<size_t>(n);
    offset += static_cast<uint64_t>(n);
  }
  return Status::Ok();
}

// Hashes chunks on a worker thread, in submission order, while the caller
// writes them: a ring of buffers, each reused only once hashed.
class ParallelHasher {
 public:
  static constexpr size_t kSlots = 4;

  ParallelHasher() : bufs_(kSlots, std::vector<char>(kChunk)), worker_([this] { Run(); }) {}
  ~ParallelHasher() {
    {
      std::lock_guard<std::mutex> l(mu_);
      closed_ = true;
    }
    cv_.notify_all();
    worker_.join();
  }

  // A free buffer for the next chunk (waits until its previous chunk is hashed).
  char* NextBuffer() {
    std::unique_lock<std::mutex> l(mu_);
    cv_.wait(l, [&] { return submitted_ - hashed_ < kSlots; });
    return bufs_[submitted_ % kSlots].data();
  }
  // Hands the buffer returned by NextBuffer() to the hasher.
  void Submit(size_t n) {
    {
      std::lock_guard<std::mutex> l(mu_);
      sizes_[submitted_ % kSlots] = n;
      ++submitted_;
    }
    cv_.notify_all();
  }
  // Waits for all submitted chunks and returns their digest; resets.
  std::string Finish() {
    std::unique_lock<std::mutex> l(mu_);
    cv_.wait(l, [&] { return hashed_ == submitted_; });
    return sha_.FinishHex();
  }

 private:
  void Run() {
    for (;;) {
      size_t slot, n;
      {
        std::unique_lock<std::mutex> l(mu_);
        cv_.wait(l, [&] { return closed_ || hashed_ < submitted_; });
        if (hashed_ == submitted_) return;  // closed and drained
        slot = hashed_ % kSlots;
        n = sizes_[slot];
      }
      sha_.Update(bufs_[slot].data(), n);
      {
        std::lock_guard<std::mutex> l(mu_);
        ++hashed_;
      }
      cv_.notify_all();
    }
  }

  std::vector<std::vector<char>> bufs_;
  size_t sizes_[kSlots] = {};
  uint64_t submitted_ = 0;
  uint64_t hashed_ = 0;
  bool closed_ = false;
  Sha256 sha_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::thread worker_;  // last: starts after the other members exist
};

// Asks the kernel to start writeback of what was just written, so Commit()'s
// fsync finds little left to do and disk writes overlap with copying.
void StartWriteback(int fd, uint64_t from, uint64_t to) {
  constexpr uint64_t kWritebackStep = 64 << 20;
  if (to / kWritebackStep == from / kWritebackStep) return;
  const uint64_t start = from / kWritebackStep * kWritebackStep;
  sync_file_range(fd, static_cast<off_t>(start), static_cast<off_t>(to - start),
                  SYNC_FILE_RANGE_WRITE);
}

// Copies a file-backed member to `out` at `offset`, hashing the same bytes.
Result<std::string> CopyAndHashFile(const OpenSource& src, AtomicFile& out, uint64_t offset,
                                    Progress* progress) {
  if (src.size() < kParallelThreshold) {
    std::vector<char> buf(kChunk);
    Sha256 h;
    for (uint64_t pos = 0; pos < src.size();) {
      MLF_ASSIGN_OR_RETURN(size_t n, src.Read(pos, buf.data(), buf.size()));
      h.Update(buf.data(), n);
      MLF_RETURN_IF_ERROR(PwriteAll(out.fd(), buf.data(), n, offset + pos, out.dest()));
      pos += n;
      progress->Add(n);
    }
    return h.FinishHex();
  }
  ParallelHasher hasher;
  for (uint64_t pos = 0; pos < src.size();) {
    char* buf = hasher.NextBuffer();
    MLF_ASSIGN_OR_RETURN(size_t n, src.Read(pos, buf, kChunk));
    hasher.Submit(n);
    MLF_RETURN_IF_ERROR(PwriteAll(out.fd(), buf, n, offset + pos, out.dest()));
    StartWriteback(out.fd(), offset + pos, offset + pos + n);
    pos += n;
    progress->Add(n);
  }
  return hasher.Finish();
}

Status WritePadding(AtomicFile& out, const PlannedMember& m) {
  static const char kZeros[kBlock] = {};
  const uint64_t end = m.data_offset() + m.size;
  return PwriteAll(out.fd(), kZeros, m.end_offset() - end, end, out.dest());
}

Status WriteRestUncompressed(const Plan& plan, AtomicFile& out, DigestMap* digests,
                             Progress* progress) {
  for (size_t i = 1; i < plan.members.size(); ++i) {
    const PlannedMember& m = plan.members[i];
    MLF_RETURN_IF_ERROR(
        PwriteAll(out.fd(), m.header.data(), m.header.size(), m.header_offset, out.dest()));
    MLF_ASSIGN_OR_RETURN(std::unique_ptr<OpenSource> src, OpenSource::Open(m));
    std::string sha;
    if (src->bytes() != nullptr) {
      sha = Sha256Hex(*src->bytes());
      MLF_RETURN_IF_ERROR(
          PwriteAll(out.fd(), src->bytes()->data(), m.size, m.data_offset(), out.dest()));
      progress->Add(m.size);
    } else {
      MLF_ASSIGN_OR_RETURN(sha, CopyAndHashFile(*src, out, m.data_offset(), progress));
    }
    MLF_RETURN_IF_ERROR(WritePadding(out, m));
    (*digests)[*m.name] = MemberDigest{m.size, std::move(sha)};
  }
  static const char kEnd[2 * kBlock] = {};
  return PwriteAll(out.fd(), kEnd, sizeof kEnd, plan.archive_size - sizeof kEnd, out.dest());
}

Result<std::string> MakeFirst(const PlannedMember& first, const FirstMemberFn& make_first,
                              const DigestMap& digests) {
  Result<std::string> bytes = make_first(digests);
  if (!bytes.ok()) return bytes.status().WithContext("member " + QuoteForMessage(*first.name));
  if (bytes->size() != first.size) {
    return MemberError(StatusCode::kFailedPrecondition, *first.name,
                       "content is " + std::to_string(bytes->size()) +
                           " bytes but its size was announced as " + std::to_string(first.size) +
                           " (serialise with placeholder digests of the same length)");
  }
  return bytes;
}

Status WriteUncompressed(const Plan& plan, const FirstMemberFn& make_first, AtomicFile& out,
                         DigestMap* digests, Progress* progress) {
  MLF_RETURN_IF_ERROR(WriteRestUncompressed(plan, out, digests, progress));
  const PlannedMember& first = plan.members[0];
  MLF_ASSIGN_OR_RETURN(std::string bytes, MakeFirst(first, make_first, *digests));
  MLF_RETURN_IF_ERROR(PwriteAll(out.fd(), first.header.data(), first.header.size(), 0, out.dest()));
  MLF_RETURN_IF_ERROR(
      PwriteAll(out.fd(), bytes.data(), bytes.size(), first.data_offset(), out.dest()));
  MLF_RETURN_IF_ERROR(WritePadding(out, first));
  progress->Add(first.size);
  (*digests)[*first.name] = MemberDigest{first.size, Sha256Hex(bytes)};
  return Status::Ok();
}

// -------------------------------------------------------- compressed output --

// A compressing byte stream into an AtomicFile.
class CompressedSink {
 public:
  virtual ~CompressedSink() = default;
  virtual Status Write(const void* data, size_t size) = 0;
  virtual Status Finish() = 0;
};

class GzipSink : public CompressedSink {
 public:
  static Result<std::unique_ptr<CompressedSink>> Create(AtomicFile& out, int level) {
    auto sink = std::unique_ptr<GzipSink>(new GzipSink(out));
    // Raw deflate (negative window bits): the gzip header and trailer are
    // written here, so no field depends on zlib's defaults or the host.
    if (deflateInit2(&sink->z_, level == 0 ? 6 : level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) !=
        Z_OK) {
      return Internal("cannot initialise zlib");
    }
    sink->initialised_ = true;
    static const unsigned char kHeader[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};
    MLF_RETURN_IF_ERROR(out.Write(kHeader, sizeof kHeader));
    return std::unique_ptr<CompressedSink>(std::move(sink));
  }
  ~GzipSink() override {
    if (initialised_) deflateEnd(&z_);
  }

  Status Write(const void* data, size_t size) override {
    crc_ = crc32_z(crc_, static_cast<const Bytef*>(data), size);
    isize_ += size;
    z_.next_in = static_cast<Bytef*>(const_cast<void*>(data));
    z_.avail_in = 0;
    // avail_in is 32-bit: feed large buffers in pieces.
    while (size > 0 || z_.avail_in > 0) {
      if (z_.avail_in == 0) {
        const size_t piece = std::min<size_t>(size, 1u << 30);
        z_.avail_in = static_cast<uInt>(piece);
        size -= piece;
      }
      MLF_RETURN_IF_ERROR(Deflate(Z_NO_FLUSH));
    }
    return Status::Ok();
  }

  Status Finish() override {
    MLF_RETURN_IF_ERROR(Deflate(Z_FINISH));
    unsigned char trailer[8];
    for (int i = 0; i < 4; ++i) trailer[i] = static_cast<unsigned char>(crc_ >> (8 * i));
    for (int i = 0; i < 4; ++i) trailer[4 + i] = static_cast<unsigned char>(isize_ >> (8 * i));
    return out_.Write(trailer, sizeof trailer);
  }

 private:
  explicit GzipSink(AtomicFile& out) : out_(out), buf_(kChunk) {}

  // One deflate() round; for Z_FINISH, loops until the stream is complete.
  Status Deflate(int flush) {
    for (;;) {
      z_.next_out = reinterpret_cast<Bytef*>(buf_.data());
      z_.avail_out = static_cast<uInt>(buf_.size());
      const int rc = deflate(&z_, flush);
      if (rc == Z_STREAM_ERROR) return Internal("zlib deflate failed");
      MLF_RETURN_IF_ERROR(out_.Write(buf_.data(), buf_.size() - z_.avail_out));
      if (flush == Z_FINISH ? rc == Z_STREAM_END : (z_.avail_in == 0 && z_.avail_out != 0)) {
        return Status::Ok();
      }
    }
  }

  AtomicFile& out_;
  std::vector<char> buf_;
  z_stream z_ = {};
  bool initialised_ = false;
  uLong crc_ = crc32_z(0, Z_NULL, 0);
  uint64_t isize_ = 0;
};

class ZstdSink : public CompressedSink {
 public:
  static Result<std::unique_ptr<CompressedSink>> Create(AtomicFile& out, int level, int workers,
                                                        uint64_t total) {
    auto sink = std::unique_ptr<ZstdSink>(new ZstdSink(out));
    if (sink->cctx_ == nullptr) return Internal("cannot create a zstd context");
    if (workers <= 0) {
      workers = static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 8u));
    }
    MLF_RETURN_IF_ERROR(sink->Set(ZSTD_c_compressionLevel, level == 0 ? 3 : level));
    MLF_RETURN_IF_ERROR(sink->Set(ZSTD_c_checksumFlag, 1));
    // Worker output does not depend on the count; a libzstd built without
    // threads rejects this and compresses single-threaded (other bytes).
    ZSTD_CCtx_setParameter(sink->cctx_, ZSTD_c_nbWorkers, workers);
    if (ZSTD_isError(ZSTD_CCtx_setPledgedSrcSize(sink->cctx_, total))) {
      return Internal("zstd rejected the archive size");
    }
    return std::unique_ptr<CompressedSink>(std::move(sink));
  }
  ~ZstdSink() override { ZSTD_freeCCtx(cctx_); }

  Status Write(const void* data, size_t size) override {
    ZSTD_inBuffer in = {data, size, 0};
    while (in.pos < in.size) MLF_RETURN_IF_ERROR(Compress(&in, ZSTD_e_continue).status());
    return Status::Ok();
  }

  // Ends the frame with an empty e_end call: e_end on the very first call
  // would switch libzstd to its one-shot path.
  Status Finish() override {
    ZSTD_inBuffer in = {nullptr, 0, 0};
    for (;;) {
      MLF_ASSIGN_OR_RETURN(size_t remaining, Compress(&in, ZSTD_e_end));
      if (remaining == 0) return Status::Ok();
    }
  }

 private:
  explicit ZstdSink(AtomicFile& out) : out_(out), cctx_(ZSTD_createCCtx()), buf_(kChunk) {}

  Status Set(ZSTD_cParameter p, int v) {
    if (ZSTD_isError(ZSTD_CCtx_setParameter(cctx_, p, v))) {
      return InvalidArgument("zstd rejected parameter value " + std::to_string(v));
    }
    return Status::Ok();
  }

  Result<size_t> Compress(ZSTD_inBuffer* in, ZSTD_EndDirective mode) {
    ZSTD_outBuffer o = {buf_.data(), buf_.size(), 0};
    const size_t rc = ZSTD_compressStream2(cctx_, &o, in, mode);
    if (ZSTD_isError(rc)) return Internal(std::string("zstd: ") + ZSTD_getErrorName(rc));
    MLF_RETURN_IF_ERROR(out_.Write(buf_.data(), o.pos));
    return rc;
  }

  AtomicFile& out_;
  ZSTD_CCtx* cctx_;
  std::vector<char> buf_;
};

// Streams one member's data into `sink`, re-hashing it; `expected` is the
// digest of the hash pass.
Status StreamMember(const PlannedMember& m, const std::string& expected, CompressedSink& sink,
                    Progress* progress) {
  MLF_ASSIGN_OR_RETURN(std::unique_ptr<OpenSource> src, OpenSource::Open(m));
  Sha256 h;
  if (src->bytes() != nullptr) {
    h.Update(*src->bytes());
    MLF_RETURN_IF_ERROR(sink.Write(src->bytes()->data(), m.size));
    progress->Add(m.size);
  } else {
    std::vector<char> buf(kChunk);
    for (uint64_t pos = 0; pos < m.size;) {
      MLF_ASSIGN_OR_RETURN(size_t n, src->Read(pos, buf.data(), buf.size()));
      h.Update(buf.data(), n);
      MLF_RETURN_IF_ERROR(sink.Write(buf.data(), n));
      pos += n;
      progress->Add(n);
    }
  }
  if (h.FinishHex() != expected) {
    return MemberError(StatusCode::kDataLoss, *m.name, "source changed while packing");
  }
  return Status::Ok();
}

Status WritePaddedData(CompressedSink& sink, const PlannedMember& m, const std::string& data) {
  static const char kZeros[kBlock] = {};
  MLF_RETURN_IF_ERROR(sink.Write(m.header.data(), m.header.size()));
  MLF_RETURN_IF_ERROR(sink.Write(data.data(), data.size()));
  return sink.Write(kZeros, m.end_offset() - m.data_offset() - m.size);
}

Status WriteCompressed(const Plan& plan, const FirstMemberFn& make_first,
                       const WriteOptions& options, AtomicFile& out, DigestMap* digests,
                       Progress* progress) {
  for (size_t i = 1; i < plan.members.size(); ++i) {
    const PlannedMember& m = plan.members[i];
    MLF_ASSIGN_OR_RETURN(std::unique_ptr<OpenSource> src, OpenSource::Open(m));
    MLF_ASSIGN_OR_RETURN(std::string sha, HashSource(*src, progress));
    (*digests)[*m.name] = MemberDigest{m.size, std::move(sha)};
  }
  const PlannedMember& first = plan.members[0];
  MLF_ASSIGN_OR_RETURN(std::string first_bytes, MakeFirst(first, make_first, *digests));
  std::unique_ptr<CompressedSink> sink;
  if (options.compression == Compression::kGzip) {
    MLF_ASSIGN_OR_RETURN(sink, GzipSink::Create(out, options.compression_level));
  } else {
    MLF_ASSIGN_OR_RETURN(sink, ZstdSink::Create(out, options.compression_level,
                                                options.zstd_workers, plan.archive_size));
  }
  MLF_RETURN_IF_ERROR(WritePaddedData(*sink, first, first_bytes));
  progress->Add(first.size);
  static const char kZeros[kBlock] = {};
  for (size_t i = 1; i < plan.members.size(); ++i) {
    const PlannedMember& m = plan.members[i];
    MLF_RETURN_IF_ERROR(sink->Write(m.header.data(), m.header.size()));
    MLF_RETURN_IF_ERROR(StreamMember(m, (*digests)[*m.name].sha256, *sink, progress));
    MLF_RETURN_IF_ERROR(sink->Write(kZeros, m.end_offset() - m.data_offset() - m.size));
  }
  MLF_RETURN_IF_ERROR(sink->Write(kZeros, kBlock));
  MLF_RETURN_IF_ERROR(sink->Write(kZeros, kBlock));
  MLF_RETURN_IF_ERROR(sink->Finish());
  (*digests)[*first.name] = MemberDigest{first.size, Sha256Hex(first_bytes)};
  return Status::Ok();
}

}  // namespace

Result<DigestMap> WriteArchive(const std::string& dest, const std::string& first_name,
                               uint64_t first_size, const FirstMemberFn& make_first,
                               const std::vector<ArchiveMember>& rest,
                               const WriteOptions& options) {
  if (!make_first) return InvalidArgument("WriteArchive needs a make_first function");
  MLF_ASSIGN_OR_RETURN(Plan plan, MakePlan(first_name, first_size, rest, options.mtime));
  MLF_ASSIGN_OR_RETURN(std::unique_ptr<AtomicFile> out, AtomicFile::Create(dest, 0644));
  if (options.keep_ownership) MLF_RETURN_IF_ERROR(out->KeepOwnerAndMode(*options.keep_ownership));
  const bool compressed = options.compression != Compression::kNone;
  Progress progress(options.progress,
                    compressed ? 2 * plan.data_bytes - first_size : plan.data_bytes);
  DigestMap digests;
  if (compressed) {
    MLF_RETURN_IF_ERROR(WriteCompressed(plan, make_first, options, *out, &digests, &progress));
  } else {
    MLF_RETURN_IF_ERROR(WriteUncompressed(plan, make_first, *out, &digests, &progress));
  }
  MLF_RETURN_IF_ERROR(out->Commit());
  return digests;
}

}  // namespace mlf
