// File-system helpers for the command-line tests: those of
// artifact/base/testing/test_files.h (scratch directories under $TEST_TMPDIR,
// whole-file reads and writes, copies and recursive listings), named in
// namespace mlf, and the bundled example model.
#ifndef MLFKIT_TESTS_TEST_FILES_H_
#define MLFKIT_TESTS_TEST_FILES_H_

#include <string>

#include "artifact/base/testing/test_files.h"

namespace mlf {

using testutil::CopyTree;
using testutil::Exists;
using testutil::FileMode;
using testutil::FormatListing;
using testutil::FreshDir;
using testutil::ListTree;
using testutil::MakeDirs;
using testutil::ReadFile;
using testutil::RemoveTree;
using testutil::WriteFile;

// The bundled example model in the runfiles (a tree of symlinks).
std::string ExampleRunfilesDir();

// Copies the example into `dest` as real files (PackDirectory refuses
// symlinks, and runfiles are symlinks). Returns `dest`.
std::string CopyExample(const std::string& dest);

}  // namespace mlf

#endif  // MLFKIT_TESTS_TEST_FILES_H_
