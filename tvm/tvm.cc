#include "tvm/tvm.h"

#include "tvm/firmware/tvm_project.h"
#include "tvm/format/tvm_archive.h"
#include "tvm/host/tvm_module.h"
#include "tvm/plan/tvm_plan.h"

namespace mlf::tvm_wing {

const ForeignArchiveFormat& ArchiveFormat() { return TvmArchiveFormat(); }

const ForeignModuleRunner& HostModules() { return TvmHostModules(); }

const firmware::ForeignProjectModules& FirmwareModules() {
  return firmware::TvmProjectModules();
}

std::map<std::string, ForeignModuleCheck> HostChecks(const std::string& archive, const Metadata& metadata,
                                         const ReaderLimits& limits) {
  std::map<std::string, ForeignModuleCheck> out;
  for (auto& [name, host] : TvmHostChecks(archive, metadata, limits)) {
    const TvmModulePlan plan = PlanTvmModule(name, metadata.modules.at(name));
    out[name] = ForeignModuleCheck{host, plan.vendor_headers, RunsWhere(plan, host)};
  }
  return out;
}

}  // namespace mlf::tvm_wing
