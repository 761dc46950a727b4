// File-system helpers for tests (artifact's unit tests and the cross-module
// tests in tests/): scratch directories under $TEST_TMPDIR, whole-file reads
// and writes, copies and recursive listings. A failure to write is a test
// failure (ADD_FAILURE), never an exception.
#ifndef MLFKIT_ARTIFACT_BASE_TESTING_TEST_FILES_H_
#define MLFKIT_ARTIFACT_BASE_TESTING_TEST_FILES_H_

#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

namespace mlf {
namespace testutil {

// A fresh, empty directory $TEST_TMPDIR/<name> (removed first if present).
std::string FreshDir(const std::string& name);

// The whole file; "" when it cannot be read.
std::string ReadFile(const std::string& path);
void WriteFile(const std::string& path, const std::string& data);
bool Exists(const std::string& path);      // lstat succeeds
mode_t FileMode(const std::string& path);  // permission bits; 0 when missing
// Creates `path` and its missing parents (mode 0755).
void MakeDirs(const std::string& path);
// Removes `path` and everything below it, read-only directories included;
// nothing when it is missing.
void RemoveTree(const std::string& path);
// Copies a tree, following symlinks, into `dest` (created).
void CopyTree(const std::string& src, const std::string& dest);

// Names in `dir` (not recursive; "." and ".." excluded), sorted.
std::vector<std::string> ListDir(const std::string& dir);
// Regular files below `root`, relative path -> content.
std::map<std::string, std::string> ReadTree(const std::string& root);

// Every entry below `root` (relative path -> "<type> <mode> <size> <sha256 of content or
// link target>"), without following symlinks. Two listings compare equal iff nothing
// below `root` was created, removed or changed.
std::map<std::string, std::string> ListTree(const std::string& root);
std::string FormatListing(const std::map<std::string, std::string>& listing);

}  // namespace testutil
}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_BASE_TESTING_TEST_FILES_H_
