#include "tvm/firmware/tvm_support.h"

#include "artifact/base/display_text.h"
#include "artifact/format/dtype.h"
#include "tvm/compat/operator_source.h"
#include "tvm/plan/tvm_plan.h"

namespace mlf::firmware {
namespace {

std::string Who(const std::string& name, const ModuleMetadata& m) {
  return "module " + QuoteForMessage(name) + " (TVM archive, metadata version " +
         std::to_string(m.tvm->version) + ")";
}

// Unknown shapes become [size / element size].
Status Flatten(const std::string& who, std::vector<TensorInfo>* tensors) {
  for (TensorInfo& t : *tensors) MLF_RETURN_IF_ERROR(FlattenUnknownShape(who, t));
  return Status::Ok();
}

}  // namespace

Result<ModuleKind> TvmModuleKind(const std::string& name, const ModuleMetadata& m,
                                 const Platform& platform, const VendorProvision& vendor) {
  const TvmModulePlan plan = PlanTvmModule(name, m);
  MLF_RETURN_IF_ERROR(FirmwareVerdict(plan, platform, vendor.headers, vendor.flags));
  switch (plan.run_kind) {
    case TvmRunKind::kOperators: return ModuleKind::kTvmOperator;
    case TvmRunKind::kGraph: return ModuleKind::kTvmGraph;
    default: return ModuleKind::kTvmAot;  // the verdict admits no other kind
  }
}

Result<std::map<std::string, ModuleKind>> PrepareTvmMetadata(Metadata* metadata,
                                                            const Platform& platform,
                                                            const VendorProvision& vendor) {
  std::map<std::string, ModuleKind> kinds;
  for (auto& [name, m] : metadata->modules) {
    if (!m.tvm) {
      return Internal("module " + QuoteForMessage(name) + " of a TVM archive has no TVM details");
    }
    MLF_ASSIGN_OR_RETURN(ModuleKind kind, TvmModuleKind(name, m, platform, vendor));
    const std::string who = Who(name, m);
    if (kind == ModuleKind::kTvmOperator) {
      MLF_ASSIGN_OR_RETURN(m.inputs, tvm_compat::OperatorBuffers(who, *m.tvm));
      m.outputs = m.inputs;
    }
    MLF_RETURN_IF_ERROR(Flatten(who, &m.inputs));
    MLF_RETURN_IF_ERROR(Flatten(who, &m.outputs));
    kinds[name] = kind;
  }
  return kinds;
}

}  // namespace mlf::firmware
