#include "tools/mlf/archive_formats.h"

#include "tvm/format/tvm_archive.h"
#include "tvm/host/tvm_module.h"

namespace mlf::cli {

const ForeignArchiveFormat* ForeignFormat() { return &TvmArchiveFormat(); }

const ForeignModuleRunner* ForeignModules() { return &TvmHostModules(); }

std::map<std::string, Status> ForeignHostChecks(const std::string& archive,
                                                const Metadata& metadata,
                                                const ReaderLimits& limits) {
  return TvmHostChecks(archive, metadata, limits);
}

}  // namespace mlf::cli
