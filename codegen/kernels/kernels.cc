#include "codegen/kernels/kernels.h"

#include <algorithm>
#include <map>
#include <optional>

#include "codegen/kernels/kernel_files.h"
#include "embed/embedded_files.h"

namespace mlf::kernels {
namespace {

constexpr char kPrefix[] = "mlf_kernel_";
constexpr char kSuffix[] = ".h";

// The kernel headers a kernel header includes, by file name.
std::vector<std::string> IncludedKernels(std::string_view text) {
  std::vector<std::string> out;
  const std::string directive = std::string("#include \"") + kPrefix;
  size_t at = 0;
  while ((at = text.find(directive, at)) != std::string_view::npos) {
    const size_t start = at + 10;  // after `#include "`
    const size_t end = text.find('"', start);
    if (end == std::string_view::npos) break;
    out.emplace_back(text.substr(start, end - start));
    at = end;
  }
  return out;
}

}  // namespace

std::string KernelFileName(const std::string& family) { return kPrefix + family + kSuffix; }

Result<std::vector<StagedFile>> KernelFiles(const std::set<std::string>& families) {
  const embed::Table table = KernelHeaders();
  std::map<std::string, std::string> found;  // file name -> text, sorted
  std::vector<std::string> pending;
  for (const std::string& f : families) pending.push_back(KernelFileName(f));
  while (!pending.empty()) {
    const std::string name = pending.back();
    pending.pop_back();
    if (found.count(name)) continue;
    std::optional<std::string_view> text = embed::Find(table, name);
    if (!text) return NotFound("no kernel file " + name + " in this mlfkit");
    found[name] = std::string(*text);
    for (std::string& dep : IncludedKernels(*text)) pending.push_back(std::move(dep));
  }
  std::vector<StagedFile> out;
  for (auto& [name, text] : found) out.push_back({name, std::move(text)});
  return out;
}

std::vector<std::string> KernelFamilies() {
  std::vector<std::string> out;
  const std::string prefix = kPrefix, suffix = kSuffix;
  for (const embed::Entry& e : KernelHeaders()) {
    const std::string key(e.key);
    out.push_back(key.substr(prefix.size(), key.size() - prefix.size() - suffix.size()));
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> KernelVariants() { return {"portable", "avx2", "avx512"}; }

}  // namespace mlf::kernels
