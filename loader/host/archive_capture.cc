#include "loader/host/archive_capture.h"

namespace mlf {
namespace {

bool IsHostSourceOrHeader(const std::string& name) {
  return name.rfind("codegen/host/", 0) == 0 && name.rfind("codegen/host/lib/", 0) != 0;
}

}  // namespace

Status ArchiveCapture::OnMetadata(const Metadata& metadata) {
  for (const auto& [name, module] : metadata.modules) {
    if (module.tvm && foreign_ != nullptr) {
      stage_foreign_ = true;
      for (const std::string& path : foreign_->WholeMembers(module)) foreign_members_[path];
    }
    if (!compile_all_ && module.host_library && module.host_library->triple == HostTriple()) {
      library_of_[name] = module.host_library->path;
      auto listed = metadata.files.find(module.host_library->path);
      if (listed == metadata.files.end()) {
        return DataLoss("host library '" + module.host_library->path +
                        "' is not listed in metadata.json files");
      }
      library_sha256_[module.host_library->path] = listed->second.sha256;
    } else {
      stage_sources_ = true;
    }
    if (module.parameters && module.parameters->storage == ParamStorage::kFile) {
      parameter_members_.insert(module.parameters->path);
    }
  }
  return Status::Ok();
}

Status ArchiveCapture::Begin(const EntryInfo& entry) {
  current_ = entry.name;
  sink_ = Sink::kNone;
  for (const auto& [module, path] : library_of_) {
    if (path != entry.name || libraries_.count(path)) continue;
    MLF_ASSIGN_OR_RETURN(libraries_[path], CodeImage::Create(path));
    sink_ = Sink::kLibrary;
    return Status::Ok();
  }
  if (parameter_members_.count(entry.name)) {
    // Mapped straight from the archive file when its data is 64-byte aligned
    // there (an archive in memory has no file: copied).
    if (archive_.fd() >= 0 && entry.data_offset != kUnknownOffset && entry.data_offset % 64 == 0) {
      MLF_ASSIGN_OR_RETURN(parameters_[entry.name],
                           ParameterBuffer::Map(archive_.fd(), entry.data_offset, entry.size, entry.name));
      return Status::Ok();
    }
    MLF_ASSIGN_OR_RETURN(parameters_[entry.name], ParameterBuffer::Allocate(entry.size, entry.name));
    sink_ = Sink::kParameters;
    return Status::Ok();
  }
  if (foreign_members_.count(entry.name)) {
    foreign_members_[entry.name].clear();
    foreign_members_[entry.name].reserve(entry.size);
    sink_ = Sink::kForeignWhole;
    return Status::Ok();
  }
  if (stage_sources_ && (IsHostSourceOrHeader(entry.name) ||
                         (stage_foreign_ && foreign_->StagesMember(entry.name)))) {
    staged_.push_back(StagedFile{entry.name, ""});
    staged_.back().content.reserve(entry.size);
    sink_ = Sink::kStaged;
  }
  return Status::Ok();
}

bool ArchiveCapture::WantsData(const EntryInfo& entry) {
  return entry.name == current_ && sink_ != Sink::kNone;
}

Status ArchiveCapture::Data(const void* data, size_t size) {
  switch (sink_) {
    case Sink::kNone: return Status::Ok();
    case Sink::kLibrary: return libraries_[current_]->Append(data, size);
    case Sink::kParameters: return parameters_[current_]->Append(data, size);
    case Sink::kStaged:
      staged_.back().content.append(static_cast<const char*>(data), size);
      return Status::Ok();
    case Sink::kForeignWhole:
      foreign_members_[current_].append(static_cast<const char*>(data), size);
      return Status::Ok();
  }
  return Status::Ok();
}

Status ArchiveCapture::End() {
  if (sink_ == Sink::kLibrary) {
    MLF_RETURN_IF_ERROR(
        libraries_[current_]->Seal(library_sha256_.at(current_), "member '" + current_ + "'"));
  }
  sink_ = Sink::kNone;
  return Status::Ok();
}

const CodeImage& ArchiveCapture::Library(const std::string& module) const {
  return *libraries_.at(library_of_.at(module));
}

}  // namespace mlf
