#include "loader/firmware/vendor_source.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "artifact/base/display_text.h"
#include "loader/firmware/c_text.h"

namespace mlf::firmware {
namespace {

namespace fs = std::filesystem;

std::string Flag(const VendorSourceSpec& s) {
  return "--vendor-source " + DisplayText(s.name) + "=" + DisplayText(s.dir);
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool ValidName(const std::string& name) {
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.';
  }) && name != "." && name != "..";
}

Result<std::string> ReadWhole(const fs::path& path, const std::string& flag) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return IoError(flag + ": cannot read " + QuoteForMessage(path.string(), kQuotedPathBytes));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

Result<VendorLibrary> Load(const VendorSourceSpec& spec) {
  const std::string flag = Flag(spec);
  std::error_code ec;
  const fs::file_status status = fs::status(spec.dir, ec);
  if (ec || !fs::exists(status)) {
    return NotFound(flag + ": directory " + QuoteForMessage(spec.dir, kQuotedPathBytes) + " does not exist");
  }
  if (!fs::is_directory(status)) {
    return InvalidArgument(flag + ": " + QuoteForMessage(spec.dir, kQuotedPathBytes) + " is not a directory");
  }
  VendorLibrary lib;
  lib.spec = spec;
  const std::string root = "vendor/" + spec.name;
  std::vector<std::string> relative;
  for (fs::recursive_directory_iterator it(spec.dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file()) continue;
    // Lexically: DIR may be reached through symbolic links (Bazel's runfiles).
    const std::string rel = it->path().lexically_relative(spec.dir).generic_string();
    if (EndsWith(rel, ".c") || EndsWith(rel, ".h")) relative.push_back(rel);
  }
  if (ec) return IoError(flag + ": cannot list " + QuoteForMessage(spec.dir, kQuotedPathBytes) + ": " + ec.message());
  std::sort(relative.begin(), relative.end());
  lib.include_dirs.push_back(root);
  for (const char* sub : {"Include", "include"}) {
    if (fs::is_directory(fs::path(spec.dir) / sub)) lib.include_dirs.push_back(root + "/" + sub);
  }
  for (const std::string& rel : relative) {
    const std::string path = root + "/" + rel;
    if (!IsBuildSafePath(path)) {
      return InvalidArgument(flag + ": " + QuoteForMessage(rel, kQuotedPathBytes) +
                             " is not a path a Makefile can list (letters, digits and \"_-+./\" only)");
    }
    MLF_ASSIGN_OR_RETURN(std::string content, ReadWhole(fs::path(spec.dir) / rel, flag));
    lib.files.push_back({path, std::move(content)});
    if (EndsWith(rel, ".c")) {
      lib.sources.push_back(path);
      continue;
    }
    lib.headers.insert(rel);  // from vendor/NAME
    for (const char* sub : {"Include/", "include/"}) {
      const std::string prefix = sub;
      if (rel.rfind(prefix, 0) == 0) lib.headers.insert(rel.substr(prefix.size()));
    }
  }
  return lib;
}

}  // namespace

Result<VendorSourceSpec> ParseVendorSourceFlag(const std::string& value) {
  const size_t eq = value.find('=');
  if (eq == std::string::npos) {
    return InvalidArgument("--vendor-source " + QuoteForMessage(value) + ": expected NAME=DIR");
  }
  return VendorSourceSpec{value.substr(0, eq), value.substr(eq + 1)};
}

Result<std::vector<VendorLibrary>> LoadVendorLibraries(const std::vector<VendorSourceSpec>& specs) {
  std::vector<VendorLibrary> out;
  std::set<std::string> names;
  for (const VendorSourceSpec& spec : specs) {
    if (spec.name.empty()) {
      return InvalidArgument(Flag(spec) + ": the library's NAME (before '=') is empty");
    }
    if (!ValidName(spec.name)) {
      return InvalidArgument(Flag(spec) + ": NAME may hold letters, digits, '_', '-' and '.' only");
    }
    if (!names.insert(spec.name).second) {
      return InvalidArgument(Flag(spec) + ": library " + QuoteForMessage(spec.name) +
                             " is given twice");
    }
    MLF_ASSIGN_OR_RETURN(VendorLibrary lib, Load(spec));
    out.push_back(std::move(lib));
  }
  return out;
}

std::string VendorSourceFlags(const std::vector<VendorSourceSpec>& specs) {
  std::string out;
  for (const VendorSourceSpec& s : specs) out += (out.empty() ? "" : ", ") + Flag(s);
  return out;
}

std::set<std::string> VendorHeaders(const std::vector<VendorLibrary>& libraries) {
  std::set<std::string> out;
  for (const VendorLibrary& lib : libraries) out.insert(lib.headers.begin(), lib.headers.end());
  return out;
}

}  // namespace mlf::firmware
