#include "codegen/emit/module_emitter.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "artifact/base/c_text.h"
#include "artifact/format/c_name.h"
#include "artifact/format/param_blob.h"
#include "codegen/emit/memory_plan.h"
#include "codegen/emit/node_function.h"
#include "codegen/kernels/kernels.h"
#include "codegen/ops/conv_kernel.h"
#include "codegen/ops/op.h"
#include "codegen/ops/quantized_tensors.h"

namespace mlf::emit {
namespace {

// Where a value lives when the run function passes it to a node.
struct Placement {
  std::map<int, std::string> expr;  // value id -> C pointer expression (untyped base)
};

// Clashing or reserved C names are the compiler's to refuse, with every
// other generated name (artifact/format/name_clash.h, codegen/compiler.cc).
Result<std::vector<TensorInfo>> DescribeTensors(const ir::Graph& g, const std::vector<int>& ids) {
  std::vector<TensorInfo> out;
  for (int id : ids) {
    const ir::Value& v = g.value(id);
    TensorInfo t;
    t.name = v.name;
    t.c_name = SanitizeCName(v.name);
    t.dtype = v.dtype;
    t.shape = v.shape;
    MLF_ASSIGN_OR_RETURN(t.size_bytes, ByteSize(v.dtype, v.shape));
    out.push_back(std::move(t));
  }
  return out;
}

// Constants read by some node, in first-use order.
std::vector<int> UsedConstants(const ir::Graph& g) {
  std::vector<int> used;
  std::set<int> seen;
  for (const ir::Node& n : g.nodes) {
    for (int id : n.inputs) {
      if (id != ir::kNoValue && g.value(id).is_constant() && seen.insert(id).second) used.push_back(id);
    }
  }
  for (int id : g.outputs) {
    if (g.value(id).is_constant() && seen.insert(id).second) used.push_back(id);
  }
  return used;
}

std::string ConstantArray(const ir::Graph& g, int id, const std::string& name) {
  const ir::HostTensor& t = *g.value(id).constant;
  std::ostringstream out;
  const uint64_t n = t.element_count();
  out << "static const " << ops::CType(t.dtype) << " " << name << "[" << (n ? n : 1)
      << "] MLF_ALIGNED = {";
  for (uint64_t i = 0; i < n; ++i) {
    if (i % 8 == 0) out << "\n    ";
    DType literal_type = t.dtype == DType::kFloat16 || t.dtype == DType::kBFloat16 ? DType::kUInt16 : t.dtype;
    double v = literal_type == DType::kUInt16 ? static_cast<double>(t.data<uint16_t>()[i]) : t.GetDouble(i);
    if (t.dtype == DType::kInt64) {
      out << "INT64_C(" << t.data<int64_t>()[i] << ")";
    } else if (t.dtype == DType::kUInt64) {
      out << "UINT64_C(" << t.data<uint64_t>()[i] << ")";
    } else {
      out << ops::CLiteral(literal_type, v);
    }
    out << ",";
  }
  if (n == 0) out << "0";
  out << "\n};\n";
  return out.str();
}

Status PlaceConstants(const ir::Graph& g, const ModuleEmitOptions& options, Placement* place,
                      std::string* arrays, EmittedModule* module) {
  ParamBlobBuilder blob;
  ParametersInfo params{options.link_params ? ParamStorage::kLinked : ParamStorage::kFile, "", {}};
  int index = 0;
  for (int id : UsedConstants(g)) {
    const ir::Value& v = g.value(id);
    const ir::HostTensor& t = *v.constant;
    if (options.link_params) {
      const std::string name = "param_" + std::to_string(index++);
      *arrays += "/* " + CCommentText(v.name) + " */\n" + ConstantArray(g, id, name);
      place->expr[id] = name;
      params.tensors.push_back({v.name, t.dtype, t.shape, 0, t.bytes.size(), std::nullopt, ""});
      continue;
    }
    MLF_RETURN_IF_ERROR(blob.Add(v.name, t.dtype, t.shape, t.bytes));
    const ParamTensor& added = blob.index().back();
    place->expr[id] = "(cs + " + std::to_string(added.offset) + ")";
    params.tensors.push_back({v.name, t.dtype, t.shape, added.offset, added.size_bytes, std::nullopt, ""});
  }
  if (!options.link_params) {
    MLF_ASSIGN_OR_RETURN(module->parameter_blob, blob.Finish());
    module->metadata.memory.constants_size_bytes = module->parameter_blob.size();
  }
  // Offsets are meaningless for linked tensors; the index still lists them.
  if (options.link_params) {
    uint64_t offset = 0;
    for (ParamTensorInfo& p : params.tensors) {
      p.offset = offset;
      offset += (p.size_bytes + kParamAlignment - 1) / kParamAlignment * kParamAlignment;
    }
  }
  if (!params.tensors.empty()) module->metadata.parameters = params;
  return Status::Ok();
}

// The layout a pass gave constant `id`: the mlf.weight_layout of a node
// that reads it as its weight (input 1); empty for row-major.
std::string LayoutOf(const ir::Graph& g, int id) {
  for (const ir::Node& n : g.nodes) {
    auto layout = n.attrs.find(ops::kWeightLayoutAttr);
    if (layout != n.attrs.end() && n.inputs.size() > 1 && n.inputs[1] == id) {
      return std::get<std::string>(layout->second);
    }
  }
  return "";
}

// Version 9's descriptions of tensors: quantization of inputs, outputs and
// parameters, and each parameter's layout. Parameters are listed in the
// order of UsedConstants.
void DescribeQuantizationAndLayouts(const ir::Graph& g, ModuleMetadata* m) {
  const std::map<int, QuantizationInfo> quantized = ops::QuantizedTensors(g);
  auto describe = [&](int id) -> std::optional<QuantizationInfo> {
    auto q = quantized.find(id);
    if (q == quantized.end()) return std::nullopt;
    return q->second;
  };
  for (size_t i = 0; i < g.inputs.size(); ++i) m->inputs[i].quantization = describe(g.inputs[i]);
  for (size_t i = 0; i < g.outputs.size(); ++i) m->outputs[i].quantization = describe(g.outputs[i]);
  if (!m->parameters) return;
  const std::vector<int> constants = UsedConstants(g);
  for (size_t i = 0; i < constants.size(); ++i) {
    m->parameters->tensors[i].quantization = describe(constants[i]);
    m->parameters->tensors[i].layout = LayoutOf(g, constants[i]);
  }
}

// Metadata's memory.plan: every buffer of the workspace with its life, in
// node indices (the module's operators are its nodes, in order).
std::vector<PlanBufferInfo> DescribePlan(const ir::Graph& g, const MemoryPlan& plan) {
  std::vector<PlanBufferInfo> out;
  for (const PlannedBuffer& b : plan.buffers) {
    PlanBufferInfo info;
    info.name = b.value >= 0 ? g.value(b.value).name : g.nodes[static_cast<size_t>(b.node)].name;
    info.kind = b.value >= 0 ? PlanBufferKind::kValue : PlanBufferKind::kScratch;
    info.offset = b.offset;
    info.size_bytes = b.size;
    info.first_operator = static_cast<uint64_t>(b.first);
    info.last_operator = static_cast<uint64_t>(b.last);
    if (b.inside >= 0) info.inside = g.value(b.inside).name;
    out.push_back(std::move(info));
  }
  return out;
}

// Bytes of the constants node `n` reads.
uint64_t ParamBytes(const ir::Graph& g, const ir::Node& n) {
  uint64_t bytes = 0;
  for (int id : n.inputs) {
    if (id != ir::kNoValue && g.value(id).is_constant()) bytes += g.value(id).constant->bytes.size();
  }
  return bytes;
}

std::string Cast(const ir::Graph& g, int id, bool writable, const std::string& base) {
  return std::string("(") + (writable ? "" : "const ") + ops::CType(g.value(id).dtype) + "*)" + base;
}

// Graph outputs that no node writes (inputs, constants, or repeated outputs)
// are copied into their buffer at the end of the run.
std::string OutputCopies(const ir::Graph& g, const std::vector<TensorInfo>& outputs,
                         const Placement& place) {
  std::string out;
  std::set<int> written;
  for (const ir::Node& n : g.nodes) written.insert(n.outputs.begin(), n.outputs.end());
  std::set<int> copied;
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    const int id = g.outputs[i];
    const bool direct = written.count(id) && copied.insert(id).second;
    if (direct) continue;
    out += "  memcpy(outputs->" + outputs[i].c_name + ", " + place.expr.at(id) + ", " +
           std::to_string(outputs[i].size_bytes) + "u);\n";
  }
  return out;
}

// The per-operator profiling hook (loader/firmware/README.md, "Per-operator
// profiles"): the run function brackets each operator, by its index in the
// metadata's operators, with MLF_PROFILE_BEGIN/END. Unless the build defines
// MLF_PROFILE they expand to nothing, so the default code is unchanged;
// with it, the firmware's harness (src/mlf_profile.c) implements them. Only
// the index reaches C: names stay in the metadata.
constexpr char kProfileHook[] =
    "#if defined(MLF_PROFILE)\n"
    "/* Per-operator profiling: the build defines MLF_PROFILE and provides these. */\n"
    "void mlf_profile_begin(uint32_t op);\n"
    "void mlf_profile_end(uint32_t op);\n"
    "#define MLF_PROFILE_BEGIN(op) mlf_profile_begin(op)\n"
    "#define MLF_PROFILE_END(op) mlf_profile_end(op)\n"
    "#else\n"
    "#define MLF_PROFILE_BEGIN(op) ((void)0)\n"
    "#define MLF_PROFILE_END(op) ((void)0)\n"
    "#endif\n\n";

// The start of tvmgen_<mod>_run_ctx (mlf/model_abi.h, "Run context"): with
// kernels, `kex` is what every kernel call receives, the variant checked
// once against this CPU; a NULL context is the serial one.
std::string RunContextSetup(bool kernels) {
  if (!kernels) return "  (void)ctx; /* no kernels: nothing to choose or split */\n";
  return "  mlfk_exec kex;\n"
         "  kex.isa = ctx == NULL || ctx->kernel_isa == MLF_KERNEL_ISA_AUTO ? mlfk_isa()\n"
         "                                                              : (int)ctx->kernel_isa;\n"
         "  if (!mlfk_isa_supported(kex.isa)) return MLF_RUN_ERROR_KERNEL_ISA;\n"
         "  kex.threads = ctx != NULL && ctx->num_threads > 1 ? (int)ctx->num_threads : 1;\n"
         "  kex.parallel_for = ctx != NULL ? ctx->parallel_for : NULL;\n"
         "  kex.pool = ctx != NULL ? ctx->pool : NULL;\n";
}

}  // namespace

Result<EmittedModule> EmitModule(const std::string& module, const ir::Graph& g,
                                 const ModuleEmitOptions& options) {
  MLF_RETURN_IF_ERROR(g.Validate());
  EmittedModule m;
  const std::string c = SanitizeCName(module);
  m.metadata.model_name = module;
  m.metadata.target.kind = "c";
  MLF_ASSIGN_OR_RETURN(m.metadata.inputs, DescribeTensors(g, g.inputs));
  MLF_ASSIGN_OR_RETURN(m.metadata.outputs, DescribeTensors(g, g.outputs));
  for (const auto* list : {&m.metadata.inputs, &m.metadata.outputs}) {
    for (const TensorInfo& t : *list) m.metadata.memory.io_size_bytes += t.size_bytes;
  }

  Placement place;
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    place.expr[g.inputs[i]] = "inputs->" + m.metadata.inputs[i].c_name;
  }
  std::string arrays;
  MLF_RETURN_IF_ERROR(PlaceConstants(g, options, &place, &arrays, &m));
  DescribeQuantizationAndLayouts(g, &m.metadata);

  std::vector<NodeFunction> functions;
  std::vector<uint64_t> scratch;
  std::set<std::string> kernel_families;
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    MLF_ASSIGN_OR_RETURN(NodeFunction f, EmitNodeFunction(g, n));
    scratch.push_back(f.scratch_bytes);
    kernel_families.insert(f.kernels.begin(), f.kernels.end());
    functions.push_back(std::move(f));
  }
  MLF_ASSIGN_OR_RETURN(MemoryPlan plan, PlanMemory(g, scratch));
  m.metadata.memory.workspace_size_bytes = plan.workspace_bytes;
  m.metadata.memory.workspace_lower_bound_bytes = plan.lower_bound_bytes;
  m.metadata.memory.plan = DescribePlan(g, plan);
  std::set<int> output_claimed;
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    const int id = g.outputs[i];
    if (place.expr.count(id) || !output_claimed.insert(id).second) continue;
    place.expr[id] = "outputs->" + m.metadata.outputs[i].c_name;
  }
  for (const auto& [id, offset] : plan.value_offsets) place.expr[id] = "(ws + " + std::to_string(offset) + ")";

  std::ostringstream src;
  src << "/* Generated by mlfkit: module \"" << CCommentText(module) << "\". Do not edit. */\n"
      << GeneratedSourcePreamble() << "#include \"tvmgen_" << c << ".h\"\n\n"
      << KernelIncludes(kernel_families)
      << "#if defined(__GNUC__)\n#define MLF_ALIGNED __attribute__((aligned(64)))\n#else\n"
      << "#define MLF_ALIGNED\n#endif\n\n" << kProfileHook << arrays << "\n";
  std::string calls;
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const NodeFunction& f = functions[n];
    const ir::Node& node = g.nodes[n];
    if (plan.elided_nodes.count(static_cast<int>(n))) {
      // Its inputs were written into their slices of its output.
      calls += "  /* " + f.name + ": done in place by the memory plan */\n";
    } else {
      src << f.definition << "\n";
    }
    std::string args;
    for (int id : f.params) {
      const bool writable = std::find(node.outputs.begin(), node.outputs.end(), id) != node.outputs.end();
      args += (args.empty() ? "" : ", ") + Cast(g, id, writable, place.expr.at(id));
    }
    if (f.needs_scratch) args += (args.empty() ? "" : ", ") + std::string("(void*)(ws + ") +
                                 std::to_string(plan.scratch_offsets.at(static_cast<int>(n))) + ")";
    if (f.needs_exec) args += (args.empty() ? "" : ", ") + std::string("&kex");
    // Every operator is bracketed, one done in place too (it then costs
    // nothing), so a profile lists each operator once.
    const std::string index = std::to_string(n) + "u";
    calls += "  MLF_PROFILE_BEGIN(" + index + ");\n";
    if (!plan.elided_nodes.count(static_cast<int>(n))) calls += "  " + f.name + "(" + args + ");\n";
    calls += "  MLF_PROFILE_END(" + index + ");\n";
    const ops::OpDef* def = ops::FindOp(node.op);
    MLF_ASSIGN_OR_RETURN(std::string source_op, node.String("mlf.source_op", node.op));
    OperatorInfo info{node.name, {source_op}, def && def->macs ? def->macs(node, g) : 0, ParamBytes(g, node)};
    auto fused = node.attrs.find("mlf.fused_ops");
    if (fused != node.attrs.end()) {
      for (const std::string& op : std::get<std::vector<std::string>>(fused->second)) info.ops.push_back(op);
    }
    MLF_ASSIGN_OR_RETURN(std::string act, node.String("mlf.activation", ""));
    if (!act.empty()) info.ops.push_back(act);
    m.metadata.operators.push_back(std::move(info));
  }
  src << "int32_t tvmgen_" << c << "_run_ctx(struct tvmgen_" << c << "_inputs* inputs,\n"
      << "    struct tvmgen_" << c << "_outputs* outputs,\n    struct tvmgen_" << c
      << "_workspace_pools* pools,\n    const struct mlf_run_context* ctx) {\n"
      << "  uint8_t* ws = (uint8_t*)pools->workspace;\n"
      << "  const uint8_t* cs = (const uint8_t*)pools->constants;\n"
      << RunContextSetup(!kernel_families.empty())
      << "  (void)ws;\n  (void)cs;\n  (void)inputs;\n  (void)outputs;\n"
      << calls << OutputCopies(g, m.metadata.outputs, place) << "  return 0;\n}\n\n"
      << "int32_t tvmgen_" << c << "_run(struct tvmgen_" << c << "_inputs* inputs,\n"
      << "    struct tvmgen_" << c << "_outputs* outputs,\n    struct tvmgen_" << c
      << "_workspace_pools* pools) {\n"
      << "  return tvmgen_" << c << "_run_ctx(inputs, outputs, pools, NULL);\n}\n";
  m.sources.push_back({c + "_lib0.c", src.str()});
  MLF_ASSIGN_OR_RETURN(m.support_files, kernels::KernelFiles(kernel_families));
  if (!kernel_families.empty()) {
    m.metadata.kernels = KernelsInfo{{kernel_families.begin(), kernel_families.end()}, kernels::KernelVariants()};
  }
  return m;
}

}  // namespace mlf::emit
