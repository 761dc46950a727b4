#include "tvm/tvm.h"

#include "tvm/firmware/tvm_project.h"
#include "tvm/format/tvm_archive.h"
#include "tvm/host/tvm_module.h"

namespace mlf::tvm_wing {

const ForeignArchiveFormat& ArchiveFormat() { return TvmArchiveFormat(); }

const ForeignModuleRunner& HostModules() { return TvmHostModules(); }

const firmware::ForeignProjectModules& FirmwareModules() {
  return firmware::TvmProjectModules();
}

std::map<std::string, Status> HostChecks(const std::string& archive, const Metadata& metadata,
                                         const ReaderLimits& limits) {
  return TvmHostChecks(archive, metadata, limits);
}

}  // namespace mlf::tvm_wing
