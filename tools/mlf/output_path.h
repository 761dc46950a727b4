// Checks that what a command writes is not what it reads.
//
// `mlf sign a.tar --key k.key -o k.key` would replace the private key with a
// world-readable archive, `mlf pack dir -o dir/x.tar` would write into the
// directory being packed, `mlf export m.yaml -o m.yaml` would replace the
// model with its own archive. Every command that writes checks its output
// path here before writing, and refuses with a message naming both paths and
// the flag or argument each came from:
//
//   -o 'k.key' is the same file as --key 'k.key'; choose another output path
//
// "The same file" compares device and inode of existing files, so hard links
// and symbolic links to an input count; "inside" compares absolute paths with
// symbolic links resolved (a path that does not exist yet is resolved through
// its longest existing prefix). Paths that do not exist are never the same as
// anything: each command reports a missing input itself.
#ifndef MLFKIT_TOOLS_MLF_OUTPUT_PATH_H_
#define MLFKIT_TOOLS_MLF_OUTPUT_PATH_H_

#include <string>
#include <vector>

#include "artifact/base/status.h"

namespace mlf::cli {

// A path from the command line and how messages name it: `label` is the whole
// phrase, e.g. "--key 'k.key'" or "the npy file 'w.npy' of MODEL 'm.yaml'".
struct NamedPath {
  std::string path;
  std::string label;
};

// A path given as `flag` ("-o", "--key", "ARCHIVE"): labelled "<flag> '<path>'".
NamedPath FlagPath(const std::string& flag, const std::string& path);

// The absolute form of `path`: symbolic links in its existing prefix resolved,
// "." and ".." in the rest applied as written. Never fails (a relative path
// whose working directory is gone stays relative).
std::string ResolvePath(const std::string& path);

// For an output file (or a directory the command fills with files of its own
// names): refused when `output` exists and is the same file or directory as
// one of `inputs` or `trees`, or lies inside one of `trees` (directories the
// command reads whole, such as pack's DIR). InvalidArgument:
//   "<output> is the same file as <input>; choose another output path"
//   "<output> is the same directory as <input>; choose another output path"
//   "<output> is inside <tree>, which is read; choose another output path"
Status CheckOutputFile(const NamedPath& output, const std::vector<NamedPath>& inputs,
                       const std::vector<NamedPath>& trees = {});

// For an output directory the command creates or replaces (unpack, project):
// as CheckOutputFile with no trees, and also refused when an input lies
// inside it:
//   "<output> contains <input>; choose another output path"
Status CheckOutputDirectory(const NamedPath& output, const std::vector<NamedPath>& inputs);

}  // namespace mlf::cli

#endif  // MLFKIT_TOOLS_MLF_OUTPUT_PATH_H_
