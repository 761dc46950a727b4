// ArchiveSource: the bytes of one archive, wherever they are — a file opened
// once, a file mapped into memory, or a buffer in memory (the role of
// ExecuTorch's DataLoader). Everything that reads an archive (ArchiveReader,
// verify, read_metadata, unpack, sign, the host loader) takes one, so an
// archive is opened once and the same bytes are read by every pass.
//
// A source is read from its start by any number of SourceReaders, one after
// the other or at the same time (the verifier reads a TVM archive twice),
// except a stream: a pipe, FIFO or character device (`mlf verify <(curl ..)`)
// can be read once, by the first reader only.
//
// It reports its identity: name() is what messages show (the path as the
// user gave it, or the name given to a memory source; never a
// /proc/self/fd path), size() its length in bytes (0 for a stream).
//
//   MLF_ASSIGN_OR_RETURN(std::unique_ptr<ArchiveSource> src, ArchiveSource::OpenFile(path));
//   MLF_ASSIGN_OR_RETURN(VerifyReport report, VerifyArchive(*src, options));
//
// A source is immutable after creation and safe to share between threads;
// each SourceReader belongs to one thread.
#ifndef MLFKIT_ARTIFACT_ARCHIVE_ARCHIVE_SOURCE_H_
#define MLFKIT_ARTIFACT_ARCHIVE_ARCHIVE_SOURCE_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "artifact/base/status.h"

namespace mlf {

class SourceReader;

class ArchiveSource {
 public:
  enum class Kind {
    kFile,    // a regular file (or block device), read with pread
    kStream,  // a pipe, FIFO or character device: read once, in order
    kMapped,  // a regular file mapped read-only into memory
    kMemory,  // bytes in memory
  };

  // Opens the file at `path` (read-only, close-on-exec); regular files and
  // block devices become kFile, anything else readable kStream. Errors name
  // the path as given: "cannot open archive 'PATH': <reason>", "'PATH' is a
  // directory, not an archive".
  static Result<std::unique_ptr<ArchiveSource>> OpenFile(const std::string& path);
  // Takes over the open descriptor `fd` (closed with the source, also on
  // error); `name` is what messages show.
  static Result<std::unique_ptr<ArchiveSource>> FromFd(int fd, std::string name);
  // Maps the regular file at `path` read-only (the descriptor stays open, so
  // fd() still works). Same errors as OpenFile, plus "'PATH' is not a regular
  // file (it cannot be mapped)".
  static Result<std::unique_ptr<ArchiveSource>> MapFile(const std::string& path);
  // A copy of `bytes`, owned by the source.
  static std::unique_ptr<ArchiveSource> Memory(std::string bytes, std::string name);
  // `bytes` without a copy: the caller keeps them alive and unchanged for
  // the source's lifetime.
  static std::unique_ptr<ArchiveSource> MemoryView(std::string_view bytes, std::string name);

  ~ArchiveSource();
  ArchiveSource(const ArchiveSource&) = delete;
  ArchiveSource& operator=(const ArchiveSource&) = delete;

  Kind kind() const { return kind_; }
  // For messages: the path as the caller gave it, or the memory source's name.
  const std::string& name() const { return name_; }
  // Length in bytes when the source was opened; 0 for a stream.
  uint64_t size() const { return size_; }
  // kFile, kStream, kMapped: the open descriptor (owned by the source); -1
  // for memory. For mapping parts of the file (loader parameters).
  int fd() const { return fd_; }
  // kMapped, kMemory: all size() bytes; nullptr otherwise.
  const unsigned char* memory() const { return data_; }
  // Whether the source can be read from the start more than once.
  bool rereadable() const { return kind_ != Kind::kStream; }

  // A reader from the first byte. A stream gives out one reader only; a
  // second call fails: "archive 'NAME' is a stream (a pipe or FIFO) and was
  // already read once".
  Result<std::unique_ptr<SourceReader>> NewReader() const;

  // Up to `n` bytes at `offset` into `buf` (fewer only at the end of the
  // source, 0 at or past it). Not for streams ("... cannot be read at an
  // offset"). Read errors are ErrnoError("read failed").
  Result<size_t> ReadAt(uint64_t offset, void* buf, size_t n) const;

 private:
  ArchiveSource(Kind kind, std::string name) : kind_(kind), name_(std::move(name)) {}

  Kind kind_;
  std::string name_;
  uint64_t size_ = 0;
  int fd_ = -1;
  const unsigned char* data_ = nullptr;
  std::string owned_;         // kMemory made by Memory()
  void* mapping_ = nullptr;   // kMapped
  mutable std::atomic<bool> stream_taken_{false};
};

// Reads a source in order from its first byte. Not thread-safe; the source
// must outlive it.
class SourceReader {
 public:
  explicit SourceReader(const ArchiveSource& source) : source_(source) {}
  SourceReader(const SourceReader&) = delete;
  SourceReader& operator=(const SourceReader&) = delete;

  const ArchiveSource& source() const { return source_; }
  // Bytes read or skipped so far.
  uint64_t offset() const { return offset_; }

  // Copies the next bytes (at most `cap`) into `buf`; 0 only at the end.
  // Read errors are ErrnoError("read failed").
  Result<size_t> Read(void* buf, size_t cap);
  // The next bytes (at most `max`) without a copy where the source is in
  // memory, else read into the reader's own buffer; `*data` stays valid
  // until the next call. 0 only at the end.
  Result<size_t> Next(const void** data, size_t max);
  // Moves forward by up to `n` bytes without reading them (never past the
  // end of the source); returns how far it moved. A stream does not skip
  // (returns 0: the caller reads instead).
  uint64_t Skip(uint64_t n);

 private:
  const ArchiveSource& source_;
  uint64_t offset_ = 0;
  std::unique_ptr<unsigned char[]> buffer_;
  size_t buffer_size_ = 0;
};

}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_ARCHIVE_ARCHIVE_SOURCE_H_
