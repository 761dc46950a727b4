// Writing a generated project as a directory, all or nothing.
//
// The files are written into a staging directory `.<name>.project.XXXXXX`
// next to `dir` and renamed to `dir` at the end, so `dir` appears complete or
// not at all; on any failure the staging directory is removed. Nothing else
// outside `dir` is written: its parent must already exist. An existing `dir`
// must be an empty directory (it is replaced); anything else is refused.
#ifndef MLFKIT_LOADER_FIRMWARE_PROJECT_WRITER_H_
#define MLFKIT_LOADER_FIRMWARE_PROJECT_WRITER_H_

#include <string>
#include <vector>

#include "artifact/base/status.h"

namespace mlf::firmware {

struct ProjectFile {
  std::string path;  // relative to the project directory
  std::string content;
};

// The checks WriteProject makes on `dir` before writing, for callers that
// want to fail before doing expensive work: kAlreadyExists when `dir` is not
// an empty directory, kNotFound when its parent does not exist.
Status CheckProjectDirectory(const std::string& dir);

Status WriteProject(const std::string& dir, const std::vector<ProjectFile>& files);

}  // namespace mlf::firmware

#endif  // MLFKIT_LOADER_FIRMWARE_PROJECT_WRITER_H_
