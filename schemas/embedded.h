// Files compiled into mlfkit binaries from schemas/, their single source of
// truth: the metadata JSON Schemas (v8, v9, TVM v5-v7, the YAML model schema, boards) and
// the generated-code ABI header. The bytes are compiled in at build time by
// embed_files() (//embed) from the files listed in schemas/BUILD.bazel, so a binary
// never disagrees with the schema files it was built from and needs no data
// files at run time.
#ifndef MLFKIT_SCHEMAS_EMBEDDED_H_
#define MLFKIT_SCHEMAS_EMBEDDED_H_

#include <optional>
#include <string_view>

namespace mlf {

// Returns the embedded file `name` (its base name, e.g.
// "metadata-v8.schema.json"), or nullopt when no such file is embedded. The
// bytes are static, exact (any content, including NULs) and followed by a NUL
// that size() does not count, so data() may be passed to C APIs.
std::optional<std::string_view> EmbeddedFile(std::string_view name);

}  // namespace mlf

#endif  // MLFKIT_SCHEMAS_EMBEDDED_H_
