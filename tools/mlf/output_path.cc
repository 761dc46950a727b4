#include "tools/mlf/output_path.h"

#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>

namespace mlf::cli {
namespace {

std::vector<std::string> Components(const std::string& path) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    if (end > start) parts.push_back(path.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

// `base` (absolute, resolved) followed by `parts`, "." and ".." applied as written.
std::string Append(std::string base, const std::vector<std::string>& parts, size_t from) {
  for (size_t i = from; i < parts.size(); ++i) {
    if (parts[i] == ".") continue;
    if (parts[i] == "..") {
      const size_t slash = base.rfind('/');
      base = slash == 0 || slash == std::string::npos ? "/" : base.substr(0, slash);
      continue;
    }
    base += (base == "/" ? "" : "/") + parts[i];
  }
  return base;
}

std::string RealPath(const std::string& path) {
  char* resolved = realpath(path.c_str(), nullptr);
  if (resolved == nullptr) return "";
  std::string s = resolved;
  free(resolved);
  return s;
}

// `child` lies strictly below `dir` (both resolved).
bool IsInside(const std::string& child, const std::string& dir) {
  if (dir == "/") return child != "/";
  return child.size() > dir.size() + 1 && child.compare(0, dir.size(), dir) == 0 &&
         child[dir.size()] == '/';
}

// "file" or "directory" when `a` and `b` both exist and are one inode; else "".
std::string SameInode(const std::string& a, const std::string& b) {
  struct stat sa, sb;
  if (stat(a.c_str(), &sa) != 0 || stat(b.c_str(), &sb) != 0) return "";
  if (sa.st_dev != sb.st_dev || sa.st_ino != sb.st_ino) return "";
  return S_ISDIR(sa.st_mode) ? "directory" : "file";
}

bool IsDirectory(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

Status Refuse(const std::string& what) {
  return InvalidArgument(what + "; choose another output path");
}

Status CheckNotSame(const NamedPath& output, const std::vector<NamedPath>& inputs) {
  for (const NamedPath& in : inputs) {
    const std::string kind = SameInode(output.path, in.path);
    if (!kind.empty()) return Refuse(output.label + " is the same " + kind + " as " + in.label);
  }
  return Status::Ok();
}

}  // namespace

NamedPath FlagPath(const std::string& flag, const std::string& path) {
  return {path, flag + " '" + path + "'"};
}

std::string ResolvePath(const std::string& path) {
  std::string absolute = path;
  if (path.empty() || path[0] != '/') {
    char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof cwd) == nullptr) return path;
    absolute = std::string(cwd) + "/" + path;
  }
  const std::vector<std::string> parts = Components(absolute);
  // The longest prefix that exists is resolved by the kernel's rules; the
  // rest cannot contain symbolic links.
  for (size_t k = parts.size() + 1; k-- > 0;) {
    std::string prefix;
    for (size_t i = 0; i < k; ++i) prefix += "/" + parts[i];
    const std::string resolved = RealPath(prefix.empty() ? "/" : prefix);
    if (!resolved.empty()) return Append(resolved, parts, k);
  }
  return Append("/", parts, 0);
}

Status CheckOutputFile(const NamedPath& output, const std::vector<NamedPath>& inputs,
                       const std::vector<NamedPath>& trees) {
  MLF_RETURN_IF_ERROR(CheckNotSame(output, inputs));
  MLF_RETURN_IF_ERROR(CheckNotSame(output, trees));
  const std::string out = ResolvePath(output.path);
  for (const NamedPath& tree : trees) {
    if (!IsDirectory(tree.path)) continue;
    if (IsInside(out, ResolvePath(tree.path))) {
      return Refuse(output.label + " is inside " + tree.label + ", which is read");
    }
  }
  return Status::Ok();
}

Status CheckOutputDirectory(const NamedPath& output, const std::vector<NamedPath>& inputs) {
  MLF_RETURN_IF_ERROR(CheckNotSame(output, inputs));
  const std::string out = ResolvePath(output.path);
  for (const NamedPath& in : inputs) {
    struct stat st;
    if (stat(in.path.c_str(), &st) != 0) continue;
    if (IsInside(ResolvePath(in.path), out)) {
      return Refuse(output.label + " contains " + in.label);
    }
  }
  return Status::Ok();
}

}  // namespace mlf::cli
