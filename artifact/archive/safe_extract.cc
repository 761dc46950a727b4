#include "artifact/archive/safe_extract.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <memory>
#include <vector>

#include "artifact/base/atomic_file.h"
#include "artifact/base/scratch_dir.h"

namespace mlf {
namespace {

// Owns a file descriptor.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  void Reset(int fd) {
    if (fd_ >= 0) close(fd_);
    fd_ = fd;
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

std::string MemberPrefix(const std::string& name) { return "member '" + name + "': "; }

std::vector<std::string> Components(const std::string& name) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t end; (end = name.find('/', start)) != std::string::npos; start = end + 1) {
    parts.push_back(name.substr(start, end - start));
  }
  parts.push_back(name.substr(start));
  return parts;
}

// Opens (creating if needed) the subdirectory `part` of `dir`, never
// following a symlink.
Result<int> OpenSubdir(int dir, const std::string& part, const std::string& member) {
  if (mkdirat(dir, part.c_str(), 0755) != 0 && errno != EEXIST) {
    return ErrnoError(MemberPrefix(member) + "cannot create directory '" + part + "'");
  }
  const int fd = openat(dir, part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) return fd;
  const int saved = errno;
  struct stat st;
  if (fstatat(dir, part.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
    return PermissionDenied(MemberPrefix(member) + "'" + part +
                            "' is a symbolic link in the destination (refusing to follow it)");
  }
  if (saved == ENOTDIR) {
    return FailedPrecondition(MemberPrefix(member) + "'" + part +
                              "' exists in the destination and is not a directory");
  }
  errno = saved;
  return ErrnoError(MemberPrefix(member) + "cannot open directory '" + part + "'");
}

// Removes the directory `name` in `parent` and everything below it (only
// used on our own staging directory; never follows symlinks).
void RemoveTree(int parent, const std::string& name) {
  const int fd = openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) {
    DIR* d = fdopendir(fd);  // takes ownership of fd
    if (d == nullptr) {
      close(fd);
    } else {
      std::vector<std::string> children;
      while (dirent* e = readdir(d)) {
        const std::string child = e->d_name;
        if (child != "." && child != "..") children.push_back(child);
      }
      for (const std::string& child : children) {
        if (unlinkat(dirfd(d), child.c_str(), 0) != 0 && errno == EISDIR) {
          RemoveTree(dirfd(d), child);
        }
      }
      closedir(d);
    }
  }
  unlinkat(parent, name.c_str(), AT_REMOVEDIR);
}

Result<bool> IsEmptyDirectory(int fd, const std::string& path) {
  DIR* d = fdopendir(fcntl(fd, F_DUPFD_CLOEXEC, 0));
  if (d == nullptr) return ErrnoError("cannot list destination '" + path + "'");
  bool empty = true;
  while (dirent* e = readdir(d)) {
    const std::string n = e->d_name;
    if (n != "." && n != "..") empty = false;
  }
  closedir(d);
  return empty;
}

// Creates the missing parent directories of `path`, recording the ones it
// created so that a failed extraction can remove them again.
Status MakeParents(const std::string& path, std::vector<std::string>* created) {
  for (size_t i = 1; i < path.size(); ++i) {
    if (path[i] != '/') continue;
    const std::string prefix = path.substr(0, i);
    if (mkdir(prefix.c_str(), 0755) == 0) {
      created->push_back(prefix);
    } else if (errno != EEXIST) {
      return ErrnoError("cannot create directory '" + prefix + "'");
    }
  }
  return Status::Ok();
}

}  // namespace

// Staged: `root_` is a fresh directory next to the destination, renamed over
// it by Commit(). In place: `root_` is the destination itself.
struct ExtractionTarget::State {
  Fd parent;           // the destination's parent (staged mode)
  Fd root;             // where members are written
  std::string dest;
  std::string stage_name;  // empty in place
  bool committed = false;
  std::vector<std::string> created_parents;  // by OpenStaged, outermost first
  std::unique_ptr<AtomicFile> file;
  std::string member;
};

ExtractionTarget::ExtractionTarget() : state_(new State()) {}

ExtractionTarget::~ExtractionTarget() {
  state_->file.reset();
  if (!state_->committed && !state_->stage_name.empty()) {
    RemoveTree(state_->parent.get(), state_->stage_name);
  }
  if (!state_->committed) {
    const auto& created = state_->created_parents;
    for (auto it = created.rbegin(); it != created.rend(); ++it) rmdir(it->c_str());
  }
}

Status ExtractionTarget::OpenStaged(const std::string& dest) {
  const size_t slash = dest.rfind('/');
  const std::string parent = slash == std::string::npos ? "."
                             : slash == 0               ? "/"
                                                        : dest.substr(0, slash);
  const std::string base = slash == std::string::npos ? dest : dest.substr(slash + 1);
  MLF_RETURN_IF_ERROR(MakeParents(dest, &state_->created_parents));
  state_->parent.Reset(open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (state_->parent.get() < 0) return ErrnoError("cannot open directory '" + parent + "'");
  // A staging directory works like a ScratchDir (scratch_dir.h), kept as
  // descriptors: locked while in use, so the next extraction to the same
  // destination removes one that a killed process left.
  const std::string prefix = "." + base.substr(0, 200) + ".extract.";
  RemoveStaleScratchDirs(parent, prefix);
  std::string stage = parent + "/" + prefix + "XXXXXX";
  if (mkdtemp(stage.data()) == nullptr) {
    return ErrnoError("cannot create a staging directory in '" + parent + "'");
  }
  state_->stage_name = stage.substr(parent.size() + 1);
  state_->root.Reset(openat(state_->parent.get(), state_->stage_name.c_str(),
                            O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (state_->root.get() < 0 || flock(state_->root.get(), LOCK_EX) != 0) {
    return ErrnoError("cannot open staging directory '" + stage + "'");
  }
  return Status::Ok();
}

Result<std::unique_ptr<ExtractionTarget>> ExtractionTarget::Open(const std::string& dest_dir,
                                                                 const ExtractOptions& options) {
  std::string dest = dest_dir;
  while (dest.size() > 1 && dest.back() == '/') dest.pop_back();
  if (dest.empty()) return InvalidArgument("the destination directory name is empty");
  std::unique_ptr<ExtractionTarget> target(new ExtractionTarget());
  target->state_->dest = dest;
  Fd dest_fd(open(dest.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dest_fd.get() < 0) {
    if (errno == ENOTDIR) {
      return FailedPrecondition("destination '" + dest + "' exists and is not a directory");
    }
    if (errno != ENOENT) return ErrnoError("cannot open destination '" + dest + "'");
    MLF_RETURN_IF_ERROR(target->OpenStaged(dest));
    return target;
  }
  MLF_ASSIGN_OR_RETURN(bool empty, IsEmptyDirectory(dest_fd.get(), dest));
  if (!empty && !options.overwrite) {
    return FailedPrecondition("destination '" + dest +
                              "' exists and is not empty; extract into a new or empty directory");
  }
  const std::string base = dest.substr(dest.rfind('/') + 1);
  if (empty && base != "." && base != ".." && dest != "/") {
    MLF_RETURN_IF_ERROR(target->OpenStaged(dest));
    return target;
  }
  target->state_->root.Reset(fcntl(dest_fd.get(), F_DUPFD_CLOEXEC, 0));
  if (target->state_->root.get() < 0) return ErrnoError("cannot open destination '" + dest + "'");
  return target;
}

Status ExtractionTarget::BeginFile(const std::string& name) {
  state_->file.reset();
  state_->member = name;
  const std::vector<std::string> parts = Components(name);
  Fd dir(fcntl(state_->root.get(), F_DUPFD_CLOEXEC, 0));
  if (dir.get() < 0) return ErrnoError(MemberPrefix(name) + "cannot open the destination");
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    MLF_ASSIGN_OR_RETURN(int sub, OpenSubdir(dir.get(), parts[i], name));
    dir.Reset(sub);
  }
  Result<std::unique_ptr<AtomicFile>> file = AtomicFile::CreateAt(dir.get(), parts.back(), 0644);
  if (!file.ok()) return file.status().WithContext("member '" + name + "'");
  state_->file = std::move(*file);
  return Status::Ok();
}

Status ExtractionTarget::Write(const void* data, size_t size) {
  if (!state_->file) return Internal("ExtractionTarget::Write outside a file");
  return state_->file->Write(data, size);
}

Status ExtractionTarget::EndFile() {
  if (!state_->file) return Internal("ExtractionTarget::EndFile outside a file");
  // Staged trees are synced once at Commit(); in place, each file is durable.
  Status s = state_->file->Commit(/*durable=*/state_->stage_name.empty());
  state_->file.reset();
  return s.ok() ? s : s.WithContext("member '" + state_->member + "'");
}

Status ExtractionTarget::Commit() {
  if (state_->stage_name.empty()) {
    state_->committed = true;
    return Status::Ok();
  }
  const int root = state_->root.get();
  const std::string stage = state_->stage_name;
  const std::string base = state_->dest.substr(state_->dest.rfind('/') + 1);
  if (syncfs(root) != 0) return ErrnoError("cannot flush '" + stage + "' to disk");
  if (fchmod(root, 0755) != 0) return ErrnoError("cannot set the mode of '" + stage + "'");
  if (renameat(state_->parent.get(), stage.c_str(), state_->parent.get(), base.c_str()) != 0) {
    return ErrnoError("cannot move the extracted files to '" + state_->dest +
                      "' (was it created or filled during extraction?)");
  }
  state_->committed = true;
  if (fsync(state_->parent.get()) != 0) {
    return ErrnoError("cannot flush the directory of '" + state_->dest + "'");
  }
  return Status::Ok();
}

Status ExtractArchive(const std::string& archive, const std::string& dest_dir,
                      const ReaderLimits& limits, const ExtractOptions& options) {
  MLF_ASSIGN_OR_RETURN(std::unique_ptr<ArchiveReader> reader, ArchiveReader::Open(archive, limits));
  MLF_ASSIGN_OR_RETURN(std::unique_ptr<ExtractionTarget> target,
                       ExtractionTarget::Open(dest_dir, options));
  for (;;) {
    MLF_ASSIGN_OR_RETURN(std::optional<EntryInfo> entry, reader->Next());
    if (!entry) break;
    MLF_RETURN_IF_ERROR(target->BeginFile(entry->name));
    MLF_RETURN_IF_ERROR(
        reader->ReadData([&](const void* p, size_t n) { return target->Write(p, n); }));
    MLF_RETURN_IF_ERROR(target->EndFile());
  }
  return target->Commit();
}

}  // namespace mlf
