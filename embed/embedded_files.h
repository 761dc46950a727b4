// Files compiled into binaries at build time: the table that embed_files()
// (embed/embed.bzl) generates, and a lookup over it. Each package that embeds
// files wraps its table in its own small API (schemas/embedded.h,
// loader/firmware/templates.h, tvm/compat/compat.h).
#ifndef MLFKIT_EMBED_EMBEDDED_FILES_H_
#define MLFKIT_EMBED_EMBEDDED_FILES_H_

#include <cstddef>
#include <optional>
#include <string_view>

namespace mlf::embed {

// One embedded file. `data` is static, exact (any bytes, NULs included) and
// followed by a NUL that size() does not count, so data() may go to C APIs.
struct Entry {
  std::string_view key;  // the file's path below the embedding package's prefix
  std::string_view data;
};

// The entries of one embed_files() target, in the order of its srcs.
struct Table {
  const Entry* entries;
  std::size_t size;

  const Entry* begin() const { return entries; }
  const Entry* end() const { return entries + size; }
};

// The data of the entry whose key is `key`, or nullopt.
std::optional<std::string_view> Find(const Table& table, std::string_view key);

}  // namespace mlf::embed

#endif  // MLFKIT_EMBED_EMBEDDED_FILES_H_
