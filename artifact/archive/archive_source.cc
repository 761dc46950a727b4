#include "artifact/archive/archive_source.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace mlf {
namespace {

// A file smaller than the reader's block is read with a buffer of its own
// size (at least this): checking many small archives (verify, the fuzzers)
// then does not allocate and fault in a MiB each time.
constexpr size_t kMinReadBlock = 4096;

bool Seekable(const struct stat& st) { return S_ISREG(st.st_mode) || S_ISBLK(st.st_mode); }

}  // namespace

Result<std::unique_ptr<ArchiveSource>> ArchiveSource::OpenFile(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoError("cannot open archive '" + path + "'");
  return FromFd(fd, path);
}

Result<std::unique_ptr<ArchiveSource>> ArchiveSource::FromFd(int fd, std::string name) {
  // Owned from here on: closed by the destructor, also on the errors below.
  std::unique_ptr<ArchiveSource> s(new ArchiveSource(Kind::kFile, std::move(name)));
  s->fd_ = fd;
  struct stat st {};
  if (fstat(fd, &st) != 0) return ErrnoError("cannot open archive '" + s->name_ + "'");
  if (S_ISDIR(st.st_mode)) {
    return InvalidArgument("'" + s->name_ + "' is a directory, not an archive");
  }
  if (Seekable(st)) {
    s->size_ = static_cast<uint64_t>(st.st_size);
    posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  } else {
    s->kind_ = Kind::kStream;
  }
  return s;
}

Result<std::unique_ptr<ArchiveSource>> ArchiveSource::MapFile(const std::string& path) {
  MLF_ASSIGN_OR_RETURN(std::unique_ptr<ArchiveSource> s, OpenFile(path));
  if (s->kind_ != Kind::kFile) {
    return InvalidArgument("'" + path + "' is not a regular file (it cannot be mapped)");
  }
  s->kind_ = Kind::kMapped;
  if (s->size_ == 0) return s;  // mmap refuses length 0; nothing to map
  void* p = mmap(nullptr, static_cast<size_t>(s->size_), PROT_READ, MAP_PRIVATE, s->fd_, 0);
  if (p == MAP_FAILED) return ErrnoError("cannot map archive '" + path + "'");
  s->mapping_ = p;
  s->data_ = static_cast<const unsigned char*>(p);
  return s;
}

std::unique_ptr<ArchiveSource> ArchiveSource::Memory(std::string bytes, std::string name) {
  std::unique_ptr<ArchiveSource> s(new ArchiveSource(Kind::kMemory, std::move(name)));
  s->owned_ = std::move(bytes);
  s->data_ = reinterpret_cast<const unsigned char*>(s->owned_.data());
  s->size_ = s->owned_.size();
  return s;
}

std::unique_ptr<ArchiveSource> ArchiveSource::MemoryView(std::string_view bytes,
                                                         std::string name) {
  std::unique_ptr<ArchiveSource> s(new ArchiveSource(Kind::kMemory, std::move(name)));
  s->data_ = reinterpret_cast<const unsigned char*>(bytes.data());
  s->size_ = bytes.size();
  return s;
}

ArchiveSource::~ArchiveSource() {
  if (mapping_ != nullptr) munmap(mapping_, static_cast<size_t>(size_));
  if (fd_ >= 0) close(fd_);
}

Result<std::unique_ptr<SourceReader>> ArchiveSource::NewReader() const {
  if (kind_ == Kind::kStream && stream_taken_.exchange(true)) {
    return FailedPrecondition("archive '" + name_ +
                              "' is a stream (a pipe or FIFO) and was already read once");
  }
  return std::make_unique<SourceReader>(*this);
}

Result<size_t> ArchiveSource::ReadAt(uint64_t offset, void* buf, size_t n) const {
  if (kind_ == Kind::kStream) {
    return FailedPrecondition("archive '" + name_ + "' is a stream (a pipe or FIFO) and cannot "
                              "be read at an offset");
  }
  if (offset >= size_ && data_ != nullptr) return size_t{0};
  if (data_ != nullptr) {
    const size_t count = static_cast<size_t>(std::min<uint64_t>(n, size_ - offset));
    memcpy(buf, data_ + offset, count);
    return count;
  }
  size_t got = 0;
  while (got < n) {
    const ssize_t r = pread(fd_, static_cast<char*>(buf) + got, n - got,
                            static_cast<off_t>(offset + got));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return ErrnoError("read failed");
    if (r == 0) break;
    got += static_cast<size_t>(r);
  }
  return got;
}

Result<size_t> SourceReader::Read(void* buf, size_t cap) {
  if (source_.kind() != ArchiveSource::Kind::kStream) {
    MLF_ASSIGN_OR_RETURN(const size_t n, source_.ReadAt(offset_, buf, cap));
    offset_ += n;
    return n;
  }
  for (;;) {
    const ssize_t n = read(source_.fd(), buf, cap);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoError("read failed");
    offset_ += static_cast<uint64_t>(n);
    return static_cast<size_t>(n);
  }
}

Result<size_t> SourceReader::Next(const void** data, size_t max) {
  if (const unsigned char* memory = source_.memory()) {
    const uint64_t left = source_.size() - std::min(offset_, source_.size());
    const size_t n = static_cast<size_t>(std::min<uint64_t>(max, left));
    *data = memory + offset_;
    offset_ += n;
    return n;
  }
  if (buffer_size_ < max) {
    size_t want = max;
    if (source_.kind() == ArchiveSource::Kind::kFile && source_.size() < max) {
      want = std::max<size_t>(static_cast<size_t>(source_.size()), kMinReadBlock);
    }
    if (want > buffer_size_) {
      buffer_.reset(new unsigned char[want]);
      buffer_size_ = want;
    }
  }
  *data = buffer_.get();
  return Read(buffer_.get(), std::min(max, buffer_size_));
}

uint64_t SourceReader::Skip(uint64_t n) {
  if (source_.kind() == ArchiveSource::Kind::kStream) return 0;
  const uint64_t step = std::min(n, source_.size() - std::min(offset_, source_.size()));
  offset_ += step;
  return step;
}

}  // namespace mlf
