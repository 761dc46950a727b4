// Hand-written tar archives for tests: every header field under the test's
// control, so hostile archives (traversal, links, devices, lying sizes,
// broken checksums) can be built without any tool's safety nets.
#ifndef MLFKIT_TESTS_TAR_BUILDER_H_
#define MLFKIT_TESTS_TAR_BUILDER_H_

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mlf {

struct TarEntry {
  std::string name;
  std::string data;     // written after the header, padded to 512 bytes
  char type = '0';      // '0' file, '1' hard link, '2' symlink, '3' char, '4' block, '5' dir, '6' FIFO
  std::string linkname;
  uint32_t mode = 0644;
  uint32_t devmajor = 0, devminor = 0;
  // Size written in the ustar header; default data.size().
  std::optional<uint64_t> header_size;
  // Records of a pax extended header ('x') written before this entry, e.g. {"path", "../x"}.
  std::vector<std::pair<std::string, std::string>> pax;
};

// A regular file entry.
TarEntry TarFile(const std::string& name, const std::string& data);

// The 512-byte ustar header of `e` (name longer than 100 bytes is truncated:
// give it as a pax "path" record as well).
std::string TarHeader(const TarEntry& e);

// The entry's header blocks (pax header first, when any) and padded data.
std::string TarEntryBytes(const TarEntry& e);

// A whole archive: the entries, then two zero blocks (unless `end_blocks` is false).
std::string BuildTar(const std::vector<TarEntry>& entries, bool end_blocks = true);

// gzip (RFC 1952, via zlib) and zstd (with content checksum) of `data`.
std::string GzipCompress(const std::string& data, int level = 6);
std::string ZstdCompress(const std::string& data, int level = 3);

// Streams a zstd frame into a file, for archives too large to hold in memory.
class ZstdFileWriter {
 public:
  explicit ZstdFileWriter(const std::string& path, int level = 1);
  ~ZstdFileWriter();
  void Write(const void* data, size_t size);
  void Write(const std::string& data) { Write(data.data(), data.size()); }
  // `count` zero bytes.
  void WriteZeros(uint64_t count);
  // Ends the frame and closes the file; returns the compressed size.
  uint64_t Close();

 private:
  void Pump(const void* data, size_t size, bool end);
  void* cctx_;
  std::FILE* file_;
  uint64_t written_ = 0;
  std::string out_buf_;
};

}  // namespace mlf

#endif  // MLFKIT_TESTS_TAR_BUILDER_H_
