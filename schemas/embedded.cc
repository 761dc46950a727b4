#include "schemas/embedded.h"

#include "schemas/schema_files.h"

namespace mlf {

std::optional<std::string_view> EmbeddedFile(std::string_view name) {
  return embed::Find(schemas::SchemaFiles(), name);
}

}  // namespace mlf
