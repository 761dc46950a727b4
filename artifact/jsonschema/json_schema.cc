// Compilation: turns a draft-07 schema document into the flat CompiledSchema
// (json_schema_node.h). Each keyword has one handler in Keywords(); anything
// without a handler is recorded as unknown and refused at the end, unless a
// $ref uses it as a schema.
#include "artifact/jsonschema/json_schema.h"

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "artifact/jsonschema/json_schema_node.h"
#include "artifact/jsonschema/json_schema_uri.h"

namespace mlf {
namespace json_schema_internal {
namespace {

using json = nlohmann::json;

Status Malformed(const std::string& at, const std::string& what) {
  return InvalidArgument("schema " + Location(at) + ": " + what);
}

class Compiler;

// A keyword handler: `at` is the keyword's own location, `base` the base URI
// in force for the schema that holds it.
using Handler = std::function<Status(Compiler& c, int node, const json& value,
                                     const std::string& at, const std::string& base)>;

const std::map<std::string, Handler>& Keywords();

// The base URI after applying `schema`'s $id, ignored next to $ref (draft-07).
std::string ApplyId(const json& schema, const std::string& base) {
  if (!schema.is_object() || schema.contains("$ref")) return base;
  auto id = schema.find("$id");
  if (id == schema.end() || !id->is_string()) return base;
  return SplitFragment(ResolveUri(base, id->get<std::string>())).first;
}

class Compiler {
 public:
  explicit Compiler(const json& root) : root_(root), out_(std::make_shared<CompiledSchema>()) {}

  Result<std::shared_ptr<const CompiledSchema>> Run() {
    documents_[""] = "";  // the document itself, whatever its $id says
    MLF_RETURN_IF_ERROR(CompileAt(root_, "", "").status());
    // Resolving may compile new targets, which may add references: index loop.
    for (size_t i = 0; i < pending_.size(); ++i) MLF_RETURN_IF_ERROR(ResolveRef(pending_[i]));
    MLF_RETURN_IF_ERROR(CheckUnknownKeywords());
    MLF_RETURN_IF_ERROR(CheckRefLoops());
    return std::shared_ptr<const CompiledSchema>(out_);
  }

  // Compiles the schema at `at` once; later calls return the same node.
  Result<int> CompileAt(const json& schema, const std::string& at, const std::string& base) {
    if (auto it = by_location_.find(at); it != by_location_.end()) return it->second;
    int index = static_cast<int>(out_->nodes.size());
    out_->nodes.emplace_back();
    out_->nodes.back().location = at;
    by_location_[at] = index;
    if (schema.is_boolean()) {
      node(index).boolean = schema.get<bool>();
      return index;
    }
    if (!schema.is_object()) {
      return Malformed(at, "a schema must be an object or a boolean, got " + Short(schema));
    }
    MLF_RETURN_IF_ERROR(CompileKeywords(index, schema, at, base));
    return index;
  }

  Node& node(int index) { return out_->nodes[static_cast<size_t>(index)]; }

  // Records a $ref to resolve once every $id of the document is known.
  void AddRef(int index, const std::string& text, const std::string& at, const std::string& base) {
    pending_.push_back({index, text, ResolveUri(base, text), at});
  }

 private:
  struct PendingRef {
    int node;
    std::string text;  // as written, for messages
    std::string uri;   // resolved against the base URI
    std::string at;
  };
  struct UnknownKeyword {
    std::string keyword;
    std::string at;
  };

  Status CompileKeywords(int index, const json& schema, const std::string& at,
                         const std::string& parent_base) {
    std::string base = parent_base;
    if (auto id = schema.find("$id"); id != schema.end() && !schema.contains("$ref")) {
      MLF_RETURN_IF_ERROR(RegisterId(*id, at, base));
    }
    const auto& keywords = Keywords();
    for (auto it = schema.begin(); it != schema.end(); ++it) {
      std::string keyword_at = at + "/" + EscapePointerToken(it.key());
      auto handler = keywords.find(it.key());
      if (handler == keywords.end()) {
        unknown_.push_back({it.key(), keyword_at});
        continue;
      }
      MLF_RETURN_IF_ERROR(handler->second(*this, index, it.value(), keyword_at, base));
    }
    return Status::Ok();
  }

  // Makes the schema at `at` findable by its $id; updates `base` unless the
  // $id is only a "#name" anchor.
  Status RegisterId(const json& id, const std::string& at, std::string& base) {
    if (!id.is_string()) return Malformed(at + "/$id", "must be a string, got " + Short(id));
    const std::string text = id.get<std::string>();
    auto [document, fragment] = SplitFragment(ResolveUri(base, text));
    if (text.empty() || text[0] != '#') {
      auto [it, added] = documents_.emplace(document, at);
      if (!added && it->second != at) {
        return Malformed(at + "/$id", "$id " + Quote(text) + " is also declared at " +
                                          Location(it->second));
      }
      base = document;
    }
    if (!fragment.empty()) anchors_[document + "#" + fragment] = at;
    return Status::Ok();
  }

  Status ResolveRef(const PendingRef& ref) {
    auto [document, fragment] = SplitFragment(ref.uri);
    auto doc = documents_.find(document);
    if (doc == documents_.end()) {
      return Unimplemented("$ref " + Quote(ref.text) + " at " + ref.at +
                           " refers to another document (" + Quote(document) +
                           "); only references within the same schema are supported");
    }
    MLF_ASSIGN_OR_RETURN(int target, ResolveFragment(ref, doc->second, fragment));
    node(ref.node).ref = target;
    return Status::Ok();
  }

  Result<int> ResolveFragment(const PendingRef& ref, const std::string& document_at,
                              const std::string& fragment) {
    if (!fragment.empty() && fragment[0] != '/') {
      auto anchor = anchors_.find(ref.uri);
      if (anchor == anchors_.end()) {
        return Malformed(ref.at, "$ref " + Quote(ref.text) + " names no $id in this schema");
      }
      return by_location_.at(anchor->second);
    }
    std::optional<std::string> decoded = PercentDecode(fragment);
    std::optional<std::vector<std::string>> tokens = ParsePointer(decoded.value_or(""));
    if (!decoded || !tokens) {
      return Malformed(ref.at, "$ref " + Quote(ref.text) + " is not a valid JSON pointer");
    }
    std::vector<std::string> path = *ParsePointer(document_at);
    path.insert(path.end(), tokens->begin(), tokens->end());
    const json* target = FindPointer(root_, path);
    if (target == nullptr) {
      return Malformed(ref.at, "$ref " + Quote(ref.text) + " points to nothing in this schema");
    }
    return CompileAt(*target, JoinPointer(path), BaseAt(path));
  }

  // The base URI in force at `path`, from the $ids of the enclosing objects.
  std::string BaseAt(const std::vector<std::string>& path) const {
    std::string base;
    const json* current = &root_;
    for (const std::string& token : path) {
      base = ApplyId(*current, base);
      current = FindPointer(*current, {token});
      if (current == nullptr) break;
    }
    return base;
  }

  // An unknown keyword is fine only when a $ref made (part of) it a schema.
  Status CheckUnknownKeywords() const {
    for (const UnknownKeyword& unknown : unknown_) {
      if (by_location_.count(unknown.at) != 0) continue;
      std::string inside = unknown.at + "/";
      auto next = by_location_.lower_bound(inside);
      if (next != by_location_.end() && next->first.compare(0, inside.size(), inside) == 0) {
        continue;
      }
      return Unimplemented("unknown or unimplemented schema keyword " + Quote(unknown.keyword) +
                           " at " + unknown.at);
    }
    return Status::Ok();
  }

  // A chain of plain $refs that comes back on itself can never be evaluated.
  Status CheckRefLoops() const {
    const std::vector<Node>& nodes = out_->nodes;
    for (const Node& start : nodes) {
      const Node* current = &start;
      for (size_t steps = 0; current->ref >= 0; ++steps) {
        if (steps > nodes.size()) {
          return Malformed(start.location, "$ref loop: following $ref never reaches a schema");
        }
        current = &nodes[static_cast<size_t>(current->ref)];
      }
    }
    return Status::Ok();
  }

  const json& root_;
  std::shared_ptr<CompiledSchema> out_;
  std::map<std::string, int> by_location_;
  std::map<std::string, std::string> documents_;  // URI without fragment -> location
  std::map<std::string, std::string> anchors_;    // URI "#name" -> location
  std::vector<PendingRef> pending_;
  std::vector<UnknownKeyword> unknown_;
};

// ---- value helpers -------------------------------------------------------

Result<uint64_t> NonNegativeInteger(const json& value, const std::string& at) {
  bool negative = value.is_number_float() ? value.get<double>() < 0
                                          : value.is_number_integer() &&
                                                !value.is_number_unsigned() &&
                                                value.get<int64_t>() < 0;
  if (!IsIntegral(value) || negative) {
    return Malformed(at, "must be a non-negative integer, got " + Short(value));
  }
  if (value.is_number_unsigned()) return value.get<uint64_t>();
  if (value.is_number_integer()) return static_cast<uint64_t>(value.get<int64_t>());
  double d = value.get<double>();
  return d >= 18446744073709551615.0 ? UINT64_MAX : static_cast<uint64_t>(d);
}

Result<Pattern> CompilePattern(const std::string& source, const std::string& at) {
  try {
    return Pattern{source, std::regex(source, std::regex::ECMAScript)};
  } catch (const std::regex_error& e) {
    return Unimplemented("pattern " + Quote(source) + " at " + at +
                         " cannot be compiled by std::regex (ECMAScript): " + e.what());
  }
}

Result<std::vector<std::string>> UniqueStrings(const json& value, const std::string& at) {
  std::vector<std::string> out;
  if (!value.is_array()) return Malformed(at, "must be an array of strings, got " + Short(value));
  for (const json& item : value) {
    if (!item.is_string()) return Malformed(at, "must be an array of strings, got " + Short(item));
    for (const std::string& seen : out) {
      if (seen == item) return Malformed(at, "lists " + Short(item) + " twice");
    }
    out.push_back(item.get<std::string>());
  }
  return out;
}

Result<unsigned> TypeBitOf(const json& name, const std::string& at) {
  static const std::map<std::string, unsigned> kBits = {
      {"null", kTypeNull},     {"boolean", kTypeBoolean}, {"integer", kTypeInteger},
      {"number", kTypeNumber}, {"string", kTypeString},   {"array", kTypeArray},
      {"object", kTypeObject}};
  auto it = name.is_string() ? kBits.find(name.get<std::string>()) : kBits.end();
  if (it == kBits.end()) return Malformed(at, "unknown type " + Short(name));
  return it->second;
}

// ---- handler factories for keywords of one shape ------------------------

Handler SchemaField(int Node::*field) {
  return [field](Compiler& c, int n, const json& v, const std::string& at,
                 const std::string& base) -> Status {
    MLF_ASSIGN_OR_RETURN(int sub, c.CompileAt(v, at, base));
    c.node(n).*field = sub;
    return Status::Ok();
  };
}

Handler SchemaList(std::vector<int> Node::*field) {
  return [field](Compiler& c, int n, const json& v, const std::string& at,
                 const std::string& base) -> Status {
    if (!v.is_array() || v.empty()) {
      return Malformed(at, "must be a non-empty array of schemas, got " + Short(v));
    }
    for (size_t i = 0; i < v.size(); ++i) {
      MLF_ASSIGN_OR_RETURN(int sub, c.CompileAt(v[i], at + "/" + std::to_string(i), base));
      (c.node(n).*field).push_back(sub);
    }
    return Status::Ok();
  };
}

Handler CountField(std::optional<uint64_t> Node::*field) {
  return [field](Compiler& c, int n, const json& v, const std::string& at,
                 const std::string&) -> Status {
    MLF_ASSIGN_OR_RETURN(uint64_t count, NonNegativeInteger(v, at));
    c.node(n).*field = count;
    return Status::Ok();
  };
}

Handler NumberField(std::optional<json> Node::*field) {
  return [field](Compiler& c, int n, const json& v, const std::string& at,
                 const std::string&) -> Status {
    if (!v.is_number()) return Malformed(at, "must be a number, got " + Short(v));
    c.node(n).*field = v;
    return Status::Ok();
  };
}

// An annotation: checked for its type, never asserted.
Handler Annotation(bool (*valid)(const json&), const char* expected) {
  return [valid, expected](Compiler&, int, const json& v, const std::string& at,
                           const std::string&) -> Status {
    if (!valid(v)) return Malformed(at, std::string("must be ") + expected + ", got " + Short(v));
    return Status::Ok();
  };
}

bool AnyJson(const json&) { return true; }
bool IsString(const json& v) { return v.is_string(); }
bool IsBoolean(const json& v) { return v.is_boolean(); }
bool IsArray(const json& v) { return v.is_array(); }

// ---- handlers of keywords with their own shape ---------------------------

Status RefKeyword(Compiler& c, int n, const json& v, const std::string& at,
                  const std::string& base) {
  if (!v.is_string()) return Malformed(at, "must be a string, got " + Short(v));
  c.AddRef(n, v.get<std::string>(), at, base);
  return Status::Ok();
}

Status SchemaDialect(Compiler&, int, const json& v, const std::string& at, const std::string&) {
  if (!v.is_string()) return Malformed(at, "must be a string, got " + Short(v));
  std::string uri = v.get<std::string>();
  if (!uri.empty() && uri.back() == '#') uri.pop_back();
  if (uri != "http://json-schema.org/draft-07/schema" &&
      uri != "https://json-schema.org/draft-07/schema") {
    return Unimplemented("$schema " + Short(v) + " at " + at +
                         " is not supported; this validator implements draft-07 "
                         "(http://json-schema.org/draft-07/schema#)");
  }
  return Status::Ok();
}

Status TypeKeyword(Compiler& c, int n, const json& v, const std::string& at, const std::string&) {
  unsigned bits = 0;
  if (v.is_array() && !v.empty()) {
    for (const json& name : v) {
      MLF_ASSIGN_OR_RETURN(unsigned bit, TypeBitOf(name, at));
      bits |= bit;
    }
  } else {
    MLF_ASSIGN_OR_RETURN(bits, TypeBitOf(v, at));
  }
  c.node(n).types = bits;
  return Status::Ok();
}

Status EnumKeyword(Compiler& c, int n, const json& v, const std::string& at, const std::string&) {
  if (!v.is_array()) return Malformed(at, "must be an array, got " + Short(v));
  c.node(n).enum_values = v;
  return Status::Ok();
}

Status ConstKeyword(Compiler& c, int n, const json& v, const std::string&, const std::string&) {
  c.node(n).const_value = v;
  return Status::Ok();
}

Status MultipleOf(Compiler& c, int n, const json& v, const std::string& at, const std::string&) {
  if (!v.is_number() || CompareNumbers(v, json(0)) <= 0) {
    return Malformed(at, "must be a number greater than 0, got " + Short(v));
  }
  c.node(n).multiple_of = v;
  return Status::Ok();
}

Status PatternKeyword(Compiler& c, int n, const json& v, const std::string& at,
                      const std::string&) {
  if (!v.is_string()) return Malformed(at, "must be a string, got " + Short(v));
  MLF_ASSIGN_OR_RETURN(c.node(n).pattern, CompilePattern(v.get<std::string>(), at));
  return Status::Ok();
}

Status UniqueItems(Compiler& c, int n, const json& v, const std::string& at, const std::string&) {
  if (!v.is_boolean()) return Malformed(at, "must be a boolean, got " + Short(v));
  c.node(n).unique_items = v.get<bool>();
  return Status::Ok();
}

Status ItemsKeyword(Compiler& c, int n, const json& v, const std::string& at,
                    const std::string& base) {
  if (!v.is_array()) return SchemaField(&Node::items)(c, n, v, at, base);
  std::vector<int> tuple;
  for (size_t i = 0; i < v.size(); ++i) {
    MLF_ASSIGN_OR_RETURN(int sub, c.CompileAt(v[i], at + "/" + std::to_string(i), base));
    tuple.push_back(sub);
  }
  c.node(n).tuple_items = std::move(tuple);
  return Status::Ok();
}

Status Required(Compiler& c, int n, const json& v, const std::string& at, const std::string&) {
  MLF_ASSIGN_OR_RETURN(c.node(n).required, UniqueStrings(v, at));
  return Status::Ok();
}

// Compiles every member of an object of schemas, calling `use` with each.
Status EachMemberSchema(Compiler& c, const json& v, const std::string& at,
                        const std::string& base,
                        const std::function<Status(const std::string&, int)>& use) {
  if (!v.is_object()) return Malformed(at, "must be an object of schemas, got " + Short(v));
  for (auto it = v.begin(); it != v.end(); ++it) {
    std::string member_at = at + "/" + EscapePointerToken(it.key());
    MLF_ASSIGN_OR_RETURN(int sub, c.CompileAt(it.value(), member_at, base));
    MLF_RETURN_IF_ERROR(use(it.key(), sub));
  }
  return Status::Ok();
}

Status Properties(Compiler& c, int n, const json& v, const std::string& at,
                  const std::string& base) {
  return EachMemberSchema(c, v, at, base, [&](const std::string& name, int sub) {
    c.node(n).properties[name] = sub;
    return Status::Ok();
  });
}

Status PatternProperties(Compiler& c, int n, const json& v, const std::string& at,
                         const std::string& base) {
  return EachMemberSchema(c, v, at, base, [&](const std::string& source, int sub) -> Status {
    MLF_ASSIGN_OR_RETURN(Pattern pattern,
                         CompilePattern(source, at + "/" + EscapePointerToken(source)));
    c.node(n).pattern_properties.emplace_back(std::move(pattern), sub);
    return Status::Ok();
  });
}

Status Definitions(Compiler& c, int, const json& v, const std::string& at,
                   const std::string& base) {
  return EachMemberSchema(c, v, at, base, [](const std::string&, int) { return Status::Ok(); });
}

Status Dependencies(Compiler& c, int n, const json& v, const std::string& at,
                    const std::string& base) {
  if (!v.is_object()) return Malformed(at, "must be an object, got " + Short(v));
  for (auto it = v.begin(); it != v.end(); ++it) {
    std::string member_at = at + "/" + EscapePointerToken(it.key());
    Dependency dependency;
    dependency.property = it.key();
    if (it.value().is_array()) {
      MLF_ASSIGN_OR_RETURN(dependency.required, UniqueStrings(it.value(), member_at));
    } else {
      MLF_ASSIGN_OR_RETURN(dependency.schema, c.CompileAt(it.value(), member_at, base));
    }
    c.node(n).dependencies.push_back(std::move(dependency));
  }
  return Status::Ok();
}

const std::map<std::string, Handler>& Keywords() {
  static const auto* keywords = new std::map<std::string, Handler>{
      // annotations
      {"$schema", SchemaDialect},
      {"$id", Annotation(IsString, "a string")},  // applied by CompileKeywords
      {"$comment", Annotation(IsString, "a string")},
      {"title", Annotation(IsString, "a string")},
      {"description", Annotation(IsString, "a string")},
      {"default", Annotation(AnyJson, "any value")},
      {"examples", Annotation(IsArray, "an array")},
      {"readOnly", Annotation(IsBoolean, "a boolean")},
      {"writeOnly", Annotation(IsBoolean, "a boolean")},
      {"format", Annotation(IsString, "a string")},
      {"contentMediaType", Annotation(IsString, "a string")},
      {"contentEncoding", Annotation(IsString, "a string")},
      {"definitions", Definitions},
      // any instance
      {"$ref", RefKeyword},
      {"type", TypeKeyword},
      {"enum", EnumKeyword},
      {"const", ConstKeyword},
      // numbers
      {"minimum", NumberField(&Node::minimum)},
      {"maximum", NumberField(&Node::maximum)},
      {"exclusiveMinimum", NumberField(&Node::exclusive_minimum)},
      {"exclusiveMaximum", NumberField(&Node::exclusive_maximum)},
      {"multipleOf", MultipleOf},
      // strings
      {"minLength", CountField(&Node::min_length)},
      {"maxLength", CountField(&Node::max_length)},
      {"pattern", PatternKeyword},
      // arrays
      {"items", ItemsKeyword},
      {"additionalItems", SchemaField(&Node::additional_items)},
      {"contains", SchemaField(&Node::contains)},
      {"minItems", CountField(&Node::min_items)},
      {"maxItems", CountField(&Node::max_items)},
      {"uniqueItems", UniqueItems},
      // objects
      {"properties", Properties},
      {"patternProperties", PatternProperties},
      {"additionalProperties", SchemaField(&Node::additional_properties)},
      {"propertyNames", SchemaField(&Node::property_names)},
      {"required", Required},
      {"minProperties", CountField(&Node::min_properties)},
      {"maxProperties", CountField(&Node::max_properties)},
      {"dependencies", Dependencies},
      // combinations
      {"allOf", SchemaList(&Node::all_of)},
      {"anyOf", SchemaList(&Node::any_of)},
      {"oneOf", SchemaList(&Node::one_of)},
      {"not", SchemaField(&Node::not_schema)},
      {"if", SchemaField(&Node::if_schema)},
      {"then", SchemaField(&Node::then_schema)},
      {"else", SchemaField(&Node::else_schema)},
  };
  return *keywords;
}

}  // namespace
}  // namespace json_schema_internal

JsonSchema::JsonSchema(std::shared_ptr<const json_schema_internal::CompiledSchema> compiled)
    : compiled_(std::move(compiled)) {}

Result<JsonSchema> JsonSchema::Compile(const nlohmann::json& schema) {
  try {
    json_schema_internal::Compiler compiler(schema);
    MLF_ASSIGN_OR_RETURN(auto compiled, compiler.Run());
    return JsonSchema(std::move(compiled));
  } catch (const std::exception& e) {
    return Internal(std::string("compiling JSON schema: ") + e.what());
  }
}

Status JsonSchema::Validate(const nlohmann::json& instance) const {
  try {
    return json_schema_internal::ValidateInstance(*compiled_, instance);
  } catch (const std::exception& e) {
    return Internal(std::string("validating against JSON schema: ") + e.what());
  }
}

}  // namespace mlf
