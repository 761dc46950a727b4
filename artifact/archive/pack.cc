#include "artifact/archive/pack.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "artifact/archive/signature.h"
#include "artifact/base/display_text.h"
#include "artifact/format/c_name.h"

namespace mlf {
namespace {

constexpr char kPlaceholderDigest[] =
    "0000000000000000000000000000000000000000000000000000000000000000";

// Lists regular files under `root` as '/'-separated relative paths.
Status ListFiles(const std::string& root, const std::string& rel,
                 std::vector<std::string>* out) {
  const std::string dir_path = rel.empty() ? root : root + "/" + rel;
  DIR* dir = opendir(dir_path.c_str());
  if (dir == nullptr) {
    return ErrnoError("cannot read directory " + QuoteForMessage(dir_path, kQuotedPathBytes));
  }
  Status status;
  while (dirent* e = readdir(dir)) {
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    const std::string child = rel.empty() ? name : rel + "/" + name;
    struct stat st {};
    if (lstat((root + "/" + child).c_str(), &st) != 0) {
      status = ErrnoError("cannot stat " + QuoteForMessage(child, kQuotedPathBytes));
    } else if (S_ISDIR(st.st_mode)) {
      status = ListFiles(root, child, out);
    } else if (S_ISREG(st.st_mode)) {
      out->push_back(child);
    } else {
      status = PermissionDenied(QuoteForMessage(child, kQuotedPathBytes) + " in " +
                                QuoteForMessage(root, kQuotedPathBytes) +
                                " is not a regular file (links and special files are not packed)");
    }
    if (!status.ok()) break;
  }
  closedir(dir);
  return status;
}

Result<std::string> ReadSmallFile(const std::string& path, uint64_t max_bytes) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    return ErrnoError("cannot read " + QuoteForMessage(path, kQuotedPathBytes));
  }
  if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    return OutOfRange(QuoteForMessage(path, kQuotedPathBytes) + " is " +
                      std::to_string(st.st_size) + " bytes, more than the limit of " +
                      std::to_string(max_bytes));
  }
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  if (!in) return ErrnoError("cannot read " + QuoteForMessage(path, kQuotedPathBytes));
  return ss.str();
}

void SortMembers(std::vector<ArchiveMember>* members) {
  std::sort(members->begin(), members->end(),
            [](const ArchiveMember& a, const ArchiveMember& b) {
              // The signature, when present, directly follows metadata.json.
              const bool a_sig = a.name == kSignatureMember, b_sig = b.name == kSignatureMember;
              if (a_sig != b_sig) return a_sig;
              return a.name < b.name;
            });
}

// The final metadata.json text, checked exactly as a reader checks it.
Result<std::string> FinalMetadata(Metadata metadata, const DigestMap& digests) {
  metadata.files.clear();
  for (const auto& [name, d] : digests) {
    if (name != kSignatureMember) metadata.files[name] = FileEntry{d.size, d.sha256};
  }
  std::string text = SerializeMetadata(metadata);
  MLF_RETURN_IF_ERROR(ParseMetadata(text).status());
  return text;
}

Result<uint64_t> SourceSize(const MemberSource& source) {
  switch (source.kind()) {
    case MemberSource::Kind::kBytes: return uint64_t{source.bytes().size()};
    case MemberSource::Kind::kFileRange: return source.length();
    case MemberSource::Kind::kFile: break;
  }
  struct stat st {};
  if (stat(source.path().c_str(), &st) != 0) {
    return ErrnoError("cannot read member source " +
                      QuoteForMessage(source.path(), kQuotedPathBytes));
  }
  return static_cast<uint64_t>(st.st_size);
}

// Names a referenced file that the directory lacks, before any writing.
Status CheckReferencedFilesExist(const std::string& dir, const Metadata& metadata,
                                 const std::vector<std::string>& files) {
  const std::set<std::string> present(files.begin(), files.end());
  for (const auto& [name, m] : metadata.modules) {
    std::vector<std::pair<std::string, std::string>> refs;
    for (const std::string& s : m.sources) refs.push_back({"sources", s});
    if (m.host_library) refs.push_back({"host_library.path", m.host_library->path});
    if (m.parameters && m.parameters->storage == ParamStorage::kFile) {
      refs.push_back({"parameters.path", m.parameters->path});
    }
    if (m.source && !m.source->path.empty()) refs.push_back({"source.path", m.source->path});
    for (const auto& [field, path] : refs) {
      if (present.count(path)) continue;
      return NotFound(QuoteForMessage(dir + "/" + path, kQuotedPathBytes) +
                      " does not exist (module " + QuoteForMessage(name) + " " + field +
                      " refers to it)");
    }
  }
  return Status::Ok();
}

}  // namespace

bool IsAlignedMember(const std::string& name) {
  const std::string prefix = "parameters/", suffix = ".bin";
  return name.size() > prefix.size() + suffix.size() && name.rfind(prefix, 0) == 0 &&
         name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

Result<int64_t> ArchiveMtimeFromEnvironment() {
  const char* epoch = std::getenv("SOURCE_DATE_EPOCH");
  if (epoch == nullptr || *epoch == '\0') return int64_t{0};
  const std::string text = epoch;
  char* end = nullptr;
  errno = 0;
  // Decimal digits only, as `date +%s` prints (strtoll alone accepts " +12").
  long long value = std::strtoll(epoch, &end, 10);
  if (text.find_first_not_of("0123456789") != std::string::npos || errno != 0 || *end != '\0') {
    return InvalidArgument(std::string("SOURCE_DATE_EPOCH='") + epoch +
                           "' is not a non-negative integer number of seconds");
  }
  return static_cast<int64_t>(value);
}

namespace {

// WriteMlfArchive; with `signed_metadata`, the written metadata.json must be
// exactly those bytes, or a signature member packed with them would be stale.
Result<Metadata> WriteArchiveChecked(const std::string& out, Metadata metadata,
                                     std::vector<ArchiveMember> members, const PackOptions& options,
                                     const std::string* signed_metadata) {
  for (const ArchiveMember& m : members) {
    if (m.name == kMetadataMember) return InvalidArgument("members must not include metadata.json");
  }
  SortMembers(&members);
  // metadata.json's size is fixed before the digests are known: placeholder
  // digests have the same length as real ones (archive_writer.h).
  metadata.files.clear();
  for (ArchiveMember& m : members) {
    m.align_data = IsAlignedMember(m.name);
    if (m.name != kSignatureMember) metadata.files[m.name] = FileEntry{0, kPlaceholderDigest};
  }
  WriteOptions write_options;
  write_options.compression = options.compression;
  write_options.mtime = options.mtime;
  write_options.progress = options.progress;
  Metadata written;
  auto make_first = [&](const DigestMap& digests) -> Result<std::string> {
    MLF_ASSIGN_OR_RETURN(std::string text, FinalMetadata(metadata, digests));
    if (signed_metadata != nullptr && text != *signed_metadata) {
      return FailedPrecondition(
          "metadata.json.sig signs a metadata.json other than the one packing writes (its files "
          "table or formatting differs); remove metadata.json.sig, pack, then sign the archive");
    }
    MLF_ASSIGN_OR_RETURN(written, ParseMetadata(text));
    return text;
  };
  // Sizes are known from the sources, so the placeholder text has the final length.
  Metadata sized = metadata;
  for (const ArchiveMember& m : members) {
    if (m.name == kSignatureMember) continue;
    MLF_ASSIGN_OR_RETURN(sized.files[m.name].size, SourceSize(m.source));
  }
  const uint64_t first_size = SerializeMetadata(sized).size();
  MLF_RETURN_IF_ERROR(
      WriteArchive(out, kMetadataMember, first_size, make_first, members, write_options)
          .status());
  return written;
}

}  // namespace

Result<Metadata> WriteMlfArchive(const std::string& out, Metadata metadata,
                                 std::vector<ArchiveMember> members,
                                 const PackOptions& options) {
  return WriteArchiveChecked(out, std::move(metadata), std::move(members), options, nullptr);
}

Result<Metadata> PackDirectory(const std::string& dir, const std::string& out,
                               const PackOptions& options) {
  MLF_ASSIGN_OR_RETURN(std::string text,
                       ReadSmallFile(dir + "/" + kMetadataMember, kMaxMetadataBytes));
  Result<Metadata> metadata = ParseMetadataForPacking(text);
  if (!metadata.ok()) return metadata.status().WithContext(dir);
  std::vector<std::string> files;
  MLF_RETURN_IF_ERROR(ListFiles(dir, "", &files));
  MLF_RETURN_IF_ERROR(CheckReferencedFilesExist(dir, *metadata, files));
  std::vector<ArchiveMember> members;
  for (const std::string& rel : files) {
    if (rel == kMetadataMember) continue;
    if (!IsSafeMemberPath(rel)) {
      return InvalidArgument(QuoteForMessage(rel, kQuotedPathBytes) + " in " +
                             QuoteForMessage(dir, kQuotedPathBytes) +
                             " is not a valid member name");
    }
    members.push_back(ArchiveMember{rel, MemberSource::File(dir + "/" + rel), false});
  }
  const bool has_signature = std::any_of(members.begin(), members.end(), [](const ArchiveMember& m) {
    return m.name == kSignatureMember;
  });
  if (!has_signature) return WriteMlfArchive(out, std::move(*metadata), std::move(members), options);
  // A signature is kept only when it is well formed and what it signs is
  // exactly what will be written (e.g. re-packing an unpacked archive).
  MLF_ASSIGN_OR_RETURN(std::string signature,
                       ReadSmallFile(dir + "/" + kSignatureMember, kMaxKeyFileBytes));
  MLF_RETURN_IF_ERROR(ParseSignatureMember(signature).status().WithContext(dir + "/" + kSignatureMember));
  return WriteArchiveChecked(out, std::move(*metadata), std::move(members), options, &text);
}

}  // namespace mlf
