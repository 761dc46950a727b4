#include "artifact/base/testing/test_files.h"

#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "artifact/base/digest.h"

namespace mlf {
namespace testutil {
namespace {

void ListInto(const std::string& root, const std::string& rel,
              std::map<std::string, std::string>* out) {
  const std::string dir = rel.empty() ? root : root + "/" + rel;
  for (const std::string& name : ListDir(dir)) {
    const std::string child_rel = rel.empty() ? name : rel + "/" + name;
    const std::string path = root + "/" + child_rel;
    struct stat st {};
    if (lstat(path.c_str(), &st) != 0) continue;
    char mode[16];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    std::string desc;
    if (S_ISDIR(st.st_mode)) {
      desc = std::string("dir ") + mode;
      (*out)[child_rel] = desc;
      ListInto(root, child_rel, out);
      continue;
    }
    if (S_ISREG(st.st_mode)) {
      desc = std::string("file ") + mode + " " + std::to_string(st.st_size) + " " +
             Sha256Hex(ReadFile(path));
    } else if (S_ISLNK(st.st_mode)) {
      char target[4096];
      const ssize_t n = readlink(path.c_str(), target, sizeof target);
      desc = "symlink -> " + std::string(target, n > 0 ? static_cast<size_t>(n) : 0);
    } else {
      desc = std::string("special ") + mode;
    }
    (*out)[child_rel] = desc;
  }
}

void ReadTreeInto(const std::string& root, const std::string& rel,
                  std::map<std::string, std::string>* out) {
  const std::string dir = rel.empty() ? root : root + "/" + rel;
  for (const std::string& name : ListDir(dir)) {
    const std::string child = rel.empty() ? name : rel + "/" + name;
    struct stat st {};
    lstat((root + "/" + child).c_str(), &st);
    if (S_ISDIR(st.st_mode)) {
      ReadTreeInto(root, child, out);
    } else {
      (*out)[child] = ReadFile(root + "/" + child);
    }
  }
}

}  // namespace

std::string FreshDir(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string dir = std::string(tmp != nullptr ? tmp : "/tmp") + "/" + name;
  RemoveTree(dir);
  MakeDirs(dir);
  return dir;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteFile(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << data;
  out.close();
  if (!out) ADD_FAILURE() << "cannot write " << path << ": " << std::strerror(errno);
}

bool Exists(const std::string& path) {
  struct stat st {};
  return lstat(path.c_str(), &st) == 0;
}

mode_t FileMode(const std::string& path) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) return 0;
  return st.st_mode & 07777;
}

void MakeDirs(const std::string& path) {
  for (size_t i = 1; i <= path.size(); ++i) {
    if (i < path.size() && path[i] != '/') continue;
    const std::string prefix = path.substr(0, i);
    if (mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) {
      ADD_FAILURE() << "cannot create " << prefix << ": " << std::strerror(errno);
      return;
    }
  }
}

void RemoveTree(const std::string& path) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) return;
  if (S_ISDIR(st.st_mode)) {
    chmod(path.c_str(), 0755);
    for (const std::string& name : ListDir(path)) RemoveTree(path + "/" + name);
    rmdir(path.c_str());
  } else {
    unlink(path.c_str());
  }
}

void CopyTree(const std::string& src, const std::string& dest) {
  MakeDirs(dest);
  for (const std::string& name : ListDir(src)) {
    const std::string from = src + "/" + name, to = dest + "/" + name;
    struct stat st {};
    if (stat(from.c_str(), &st) != 0) {
      ADD_FAILURE() << "cannot stat " << from << ": " << std::strerror(errno);
    } else if (S_ISDIR(st.st_mode)) {
      CopyTree(from, to);
    } else {
      WriteFile(to, ReadFile(from));
    }
  }
}

std::vector<std::string> ListDir(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return out;
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name != "." && name != "..") out.push_back(name);
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

std::map<std::string, std::string> ReadTree(const std::string& root) {
  std::map<std::string, std::string> out;
  ReadTreeInto(root, "", &out);
  return out;
}

std::map<std::string, std::string> ListTree(const std::string& root) {
  std::map<std::string, std::string> out;
  ListInto(root, "", &out);
  return out;
}

std::string FormatListing(const std::map<std::string, std::string>& listing) {
  std::string s;
  for (const auto& [path, desc] : listing) s += "  " + path + "  " + desc + "\n";
  return s.empty() ? "  (empty)\n" : s;
}

}  // namespace testutil
}  // namespace mlf
