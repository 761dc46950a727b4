// File-system helpers for the command-line tests: scratch directories under
// $TEST_TMPDIR, whole-file reads and writes, copies and recursive listings.
#ifndef MLFKIT_TESTS_TEST_FILES_H_
#define MLFKIT_TESTS_TEST_FILES_H_

#include <sys/types.h>

#include <map>
#include <string>

namespace mlf {

// A fresh, empty directory $TEST_TMPDIR/<name> (removed first if present).
std::string FreshDir(const std::string& name);

// The bundled example model in the runfiles (a tree of symlinks).
std::string ExampleRunfilesDir();

// Copies the example into `dest` as real files (PackDirectory refuses
// symlinks, and runfiles are symlinks). Returns `dest`.
std::string CopyExample(const std::string& dest);

std::string ReadFile(const std::string& path);
void WriteFile(const std::string& path, const std::string& data);
bool Exists(const std::string& path);  // lstat succeeds
mode_t FileMode(const std::string& path);  // permission bits; 0 when missing
void MakeDirs(const std::string& path);
// Copies a tree, following symlinks, into `dest` (created).
void CopyTree(const std::string& src, const std::string& dest);
void RemoveTree(const std::string& path);

// Every entry below `root` (relative path -> "<type> <mode> <size> <sha256 of content or
// link target>"), without following symlinks. Two listings compare equal iff nothing
// below `root` was created, removed or changed.
std::map<std::string, std::string> ListTree(const std::string& root);
std::string FormatListing(const std::map<std::string, std::string>& listing);

}  // namespace mlf

#endif  // MLFKIT_TESTS_TEST_FILES_H_
