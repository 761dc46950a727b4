#include "tools/mlf/archive_formats.h"

#include "tvm/tvm.h"

namespace mlf::cli {

const ForeignArchiveFormat* ForeignFormat() { return &tvm_wing::ArchiveFormat(); }

const ForeignModuleRunner* ForeignModules() { return &tvm_wing::HostModules(); }

const firmware::ForeignProjectModules* ForeignFirmwareModules() {
  return &tvm_wing::FirmwareModules();
}

std::map<std::string, ForeignModuleCheck> ForeignHostChecks(const std::string& archive,
                                                const Metadata& metadata,
                                                const ReaderLimits& limits) {
  return tvm_wing::HostChecks(archive, metadata, limits);
}

}  // namespace mlf::cli
