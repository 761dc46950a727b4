// ArchiveReader over arbitrary bytes (tar, pax, GNU, gzip, zstd, garbage),
// with small limits. Invariants besides "no sanitizer finding":
//   - after an error, Next() keeps returning an error (the reader is unusable);
//   - ReadData delivers exactly the size the entry announced;
//   - names are normalised: relative, no "." / ".." / empty components.
#include <string>
#include <string_view>

#include "artifact/archive/archive_reader.h"
#include "artifact/archive/archive_source.h"
#include "fuzz/fuzz_target.h"
#include "fuzz/limits.h"

namespace {

bool SafeName(const std::string& name) {
  if (name.empty() || name.front() == '/' || name.back() == '/') return false;
  size_t start = 0;
  for (;;) {
    const size_t slash = name.find('/', start);
    const std::string part = name.substr(start, slash == std::string::npos ? slash : slash - start);
    if (part.empty() || part == "." || part == "..") return false;
    if (slash == std::string::npos) return true;
    start = slash + 1;
  }
}

}  // namespace

MLF_FUZZ_TARGET(archive_reader) {
  // The input as an archive in memory (artifact/archive/archive_source.h).
  const auto source = mlf::ArchiveSource::MemoryView(
      std::string_view(reinterpret_cast<const char*>(data), size), "fuzz input");
  auto reader = mlf::ArchiveReader::Open(*source, mlf::fuzz::SmallReaderLimits());
  if (!reader.ok()) return 0;
  for (int i = 0;; ++i) {
    auto entry = (*reader)->Next();
    if (!entry.ok()) {
      MLF_FUZZ_CHECK(!(*reader)->Next().ok(), "Next() succeeded after an error");
      return 0;
    }
    if (!entry->has_value()) return 0;
    const mlf::EntryInfo& e = **entry;
    MLF_FUZZ_CHECK(SafeName(e.name), "unsafe member name '" + e.name + "'");
    if (i % 3 == 2) continue;  // leave some members unread: Next() skips them
    if (i % 3 == 1) {
      auto all = (*reader)->ReadAll(4096);
      if (all.ok()) MLF_FUZZ_CHECK(all->size() == e.size, "ReadAll size of " + e.name);
      continue;
    }
    uint64_t delivered = 0;
    const mlf::Status s = (*reader)->ReadData([&](const void* p, size_t n) {
      if (n > 0) {  // touch both ends of the chunk, so ASan checks the range
        const auto* bytes = static_cast<const volatile unsigned char*>(p);
        (void)bytes[0];
        (void)bytes[n - 1];
      }
      delivered += n;
      return mlf::Status::Ok();
    });
    if (s.ok()) {
      MLF_FUZZ_CHECK(delivered == e.size, "ReadData delivered " + std::to_string(delivered) +
                                              " bytes of " + e.name + ", header says " +
                                              std::to_string(e.size));
    }
  }
}
