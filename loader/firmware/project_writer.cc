#include "loader/firmware/project_writer.h"

#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <system_error>

#include "artifact/base/scratch_dir.h"

namespace mlf::firmware {
namespace {

namespace fs = std::filesystem;

// `dir` without trailing slashes, split into parent and name.
Status Split(const std::string& dir, fs::path* parent, std::string* name) {
  std::string trimmed = dir;
  while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.pop_back();
  const fs::path path(trimmed);
  *name = path.filename().string();
  if (name->empty() || *name == "." || *name == ".." || *name == "/") {
    return InvalidArgument("'" + dir + "' cannot be a project directory: name a new directory");
  }
  *parent = path.has_parent_path() ? path.parent_path() : fs::path(".");
  return Status::Ok();
}

Status WriteOne(const fs::path& root, const ProjectFile& file) {
  const fs::path path = root / file.path;
  std::error_code error;
  fs::create_directories(path.parent_path(), error);
  if (error)
    return IoError("cannot create " + path.parent_path().string() + ": " + error.message());
  FILE* out = std::fopen(path.c_str(), "wbx");
  if (out == nullptr) return ErrnoError("cannot create " + path.string());
  const bool written =
      std::fwrite(file.content.data(), 1, file.content.size(), out) == file.content.size();
  const bool closed = std::fclose(out) == 0;
  if (!written || !closed) return IoError("cannot write " + path.string());
  return Status::Ok();
}

}  // namespace

Status CheckProjectDirectory(const std::string& dir) {
  fs::path parent;
  std::string name;
  MLF_RETURN_IF_ERROR(Split(dir, &parent, &name));
  std::error_code error;
  if (!fs::is_directory(parent, error)) {
    return NotFound("the parent directory of '" + dir + "' does not exist: create it first");
  }
  const fs::file_status status = fs::symlink_status(fs::path(parent) / name, error);
  if (status.type() == fs::file_type::not_found) return Status::Ok();
  if (status.type() != fs::file_type::directory || !fs::is_empty(fs::path(parent) / name, error)) {
    return AlreadyExists("'" + dir +
                         "' already exists and is not an empty directory: choose a new one");
  }
  return Status::Ok();
}

Status WriteProject(const std::string& dir, const std::vector<ProjectFile>& files) {
  MLF_RETURN_IF_ERROR(CheckProjectDirectory(dir));
  fs::path parent;
  std::string name;
  MLF_RETURN_IF_ERROR(Split(dir, &parent, &name));
  MLF_ASSIGN_OR_RETURN(ScratchDir stage, ScratchDir::Create(parent.string(), "." + name + ".project."));
  for (const ProjectFile& file : files) MLF_RETURN_IF_ERROR(WriteOne(stage.path(), file));
  // A scratch directory is private; the project is an ordinary source tree.
  if (chmod(stage.path().c_str(), 0755) != 0)
    return ErrnoError("cannot set the mode of " + stage.path());
  if (std::rename(stage.path().c_str(), (parent / name).c_str()) != 0) {
    return ErrnoError("cannot move the project into place as '" + dir + "'");
  }
  stage.Release();
  return Status::Ok();
}

}  // namespace mlf::firmware
