// Bounded JSON parsing for untrusted documents (metadata.json and friends).
//
// nlohmann's parser recurses once per nesting level and silently keeps the
// last of duplicate keys. Untrusted input must neither exhaust the stack nor
// mean different things to different readers, so this wrapper refuses:
// documents over a byte bound, nesting deeper than a bound (checked before the
// recursive parser runs), duplicate object keys, numbers beyond the 64-bit
// integer range (nlohmann would hold them as doubles, and converting those to
// integers is undefined), and invalid JSON — each with its own message.
#ifndef MLFKIT_ARTIFACT_JSONSCHEMA_JSON_LIMITS_H_
#define MLFKIT_ARTIFACT_JSONSCHEMA_JSON_LIMITS_H_

#include <cstdint>
#include <string_view>

#include <nlohmann/json.hpp>

#include "artifact/base/status.h"

namespace mlf {

// Returns the deepest array/object nesting of `text` (strings are skipped).
// Stops early and returns max_depth + 1 once the bound is passed.
int JsonNestingDepth(std::string_view text, int max_depth);

Result<nlohmann::json> ParseBoundedJson(std::string_view text, uint64_t max_bytes,
                                        int max_depth);

}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_JSONSCHEMA_JSON_LIMITS_H_
