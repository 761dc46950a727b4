#include "codegen/frontend/onnx_frontend.h"

#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/version_converter/convert.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <climits>
#include <exception>
#include <fstream>
#include <iterator>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "artifact/base/printable_name.h"
#include "codegen/frontend/onnx_contrib.h"
#include "codegen/frontend/onnx_control_flow.h"
#include "codegen/frontend/onnx_lowering.h"
#include "codegen/frontend/onnx_shape_inference.h"
#include "codegen/frontend/tensor_proto.h"
#include "codegen/ops/op.h"

namespace mlf::frontend {
namespace {

// What ONNX shape inference knows of one value.
struct OnnxType {
  int32_t elem_type = 0;
  bool has_shape = false;
  std::vector<std::optional<int64_t>> dims;  // nullopt: symbolic or unknown
};

OnnxType FromTypeProto(const onnx::TypeProto& type) {
  OnnxType t;
  if (!type.has_tensor_type()) return t;
  t.elem_type = type.tensor_type().elem_type();
  if (!type.tensor_type().has_shape()) return t;
  t.has_shape = true;
  for (const auto& d : type.tensor_type().shape().dim()) {
    t.dims.push_back(d.has_dim_value() ? std::optional<int64_t>(d.dim_value()) : std::nullopt);
  }
  return t;
}

// "input=1,3,224,224": the input's name and dimensions, each symbolic one as
// 1, for messages that ask to fix its shape.
std::string SuggestedShape(const onnx::ValueInfoProto& in) {
  std::string text = in.name() + "=";
  const auto& shape = in.type().tensor_type().shape();
  for (int i = 0; i < shape.dim_size(); ++i) {
    if (i > 0) text += ",";
    text += shape.dim(i).has_dim_value() ? std::to_string(shape.dim(i).dim_value()) : "1";
  }
  return text;
}

std::string FormatOnnxType(const OnnxType& t) {
  std::string s = OnnxDTypeName(t.elem_type) + " ";
  if (!t.has_shape) return s + "(unknown shape)";
  s += "[";
  for (size_t i = 0; i < t.dims.size(); ++i) {
    if (i) s += ", ";
    s += t.dims[i] ? std::to_string(*t.dims[i]) : "?";
  }
  return s + "]";
}

// Names become tensor and operator names in the archive, text in generated
// C and in messages: a control character in one is refused before anything
// else reads the graph (artifact/base/printable_name.h).
// Subgraphs (If, Loop, Scan bodies) are checked too: their values become
// values of the unrolled graph; `scope` says where a subgraph is.
Status CheckNamesPrintable(const onnx::GraphProto& g, const std::string& scope = "") {
  auto check = [&](const std::string& subject, const std::string& name) {
    return CheckPrintableName(scope + subject, name);
  };
  for (int i = 0; i < g.input_size(); ++i) {
    MLF_RETURN_IF_ERROR(check("graph input " + std::to_string(i) + ": name", g.input(i).name()));
  }
  for (int i = 0; i < g.output_size(); ++i) {
    MLF_RETURN_IF_ERROR(check("graph output " + std::to_string(i) + ": name", g.output(i).name()));
  }
  for (int i = 0; i < g.initializer_size(); ++i) {
    MLF_RETURN_IF_ERROR(
        check("initializer " + std::to_string(i) + ": name", g.initializer(i).name()));
  }
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto& n = g.node(i);
    const std::string node = "node " + std::to_string(i) + ": ";
    MLF_RETURN_IF_ERROR(check(node + "name", n.name()));
    for (int k = 0; k < n.input_size(); ++k) {
      MLF_RETURN_IF_ERROR(check(node + "input " + std::to_string(k), n.input(k)));
    }
    for (int k = 0; k < n.output_size(); ++k) {
      MLF_RETURN_IF_ERROR(check(node + "output " + std::to_string(k), n.output(k)));
    }
    for (const auto& a : n.attribute()) {
      const std::string where = scope + node + "attribute '" + a.name() + "': ";
      if (a.has_g()) MLF_RETURN_IF_ERROR(CheckNamesPrintable(a.g(), where));
      for (const auto& sub : a.graphs()) MLF_RETURN_IF_ERROR(CheckNamesPrintable(sub, where));
    }
  }
  return Status::Ok();
}

bool IsDefaultDomain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

std::string NodeName(const onnx::NodeProto& n, int index) {
  return n.name().empty() ? n.op_type() + "_" + std::to_string(index) : n.name();
}

// Attribute values that crash (divide by zero in) libonnx 1.12's shape
// inference instead of raising an error: refused before it runs.
Status CheckLibOnnxHazards(const onnx::GraphProto& g) {
  std::unordered_map<std::string, const onnx::TensorProto*> inits;
  for (const auto& t : g.initializer()) inits[t.name()] = &t;
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto& n = g.node(i);
    const std::string who = "node '" + NodeName(n, i) + "' (" + n.op_type() + ")";
    for (const auto& a : n.attribute()) {
      if (a.has_g()) MLF_RETURN_IF_ERROR(CheckLibOnnxHazards(a.g()));
      for (const auto& sub : a.graphs()) MLF_RETURN_IF_ERROR(CheckLibOnnxHazards(sub));
      const std::string& key = a.name();
      const bool positive_ints =
          key == "strides" || key == "dilations" || key == "kernel_shape";
      const bool positive_int = key == "blocksize" || key == "group";
      for (int64_t v : a.ints()) {
        if (positive_ints && v < 1) {
          return InvalidArgument(who + ": attribute '" + key + "' has a value below 1 (" +
                                 std::to_string(v) + ")");
        }
      }
      if (positive_int && a.has_i() && a.i() < 1) {
        return InvalidArgument(who + ": attribute '" + key + "' is below 1 (" +
                               std::to_string(a.i()) + ")");
      }
    }
    if (n.op_type() == "Range" && n.input_size() == 3) {
      auto it = inits.find(n.input(2));
      if (it != inits.end()) {
        Result<ir::HostTensor> delta = FromTensorProto(*it->second);
        if (delta.ok() && delta->element_count() == 1 && delta->GetDouble(0) == 0) {
          return InvalidArgument(who + ": delta is 0");
        }
      }
    }
  }
  return Status::Ok();
}

class Importer : public LoweringContext, public ControlFlowHost {
 public:
  explicit Importer(const OnnxImportOptions& options) : options_(options) {}

  Result<ir::Graph> Run(std::string_view bytes, OnnxModelInfo* info);

  // LoweringContext.
  ir::Graph& graph() override { return graph_; }
  const TensorLimits& limits() const override { return options_.tensor_limits; }
  Result<int> Lookup(const std::string& name, const ir::Node& node) override;
  Result<int> Define(const std::string& name, const ir::Node& node) override;
  Status DefineConstant(const std::string& name, ir::HostTensor tensor,
                        const ir::Node& node) override;
  int AddConstant(const std::string& base, ir::HostTensor tensor) override;
  int AddTemp(const std::string& base) override;
  bool IsUsed(const std::string& name) const override { return read_.count(name) > 0; }
  Status Emit(ir::Node node) override;

  // ControlFlowHost.
  Status LowerProto(const onnx::NodeProto& node, const std::string& name) override;
  const ir::HostTensor* KnownValue(const std::string& name) const override;
  std::optional<std::vector<int64_t>> ShapeOf(const std::string& name) const override;
  std::string ReserveName(const std::string& base) override;
  void MarkRead(const std::string& name) override { read_.insert(name); }
  Status NotKnown(const std::string& who, int index, const std::string& field,
                  const std::string& value, const std::string& why) const override;
  uint64_t MaxUnrolledNodes() const override { return options_.max_nodes; }

 private:
  Status Parse(std::string_view bytes);
  Status CheckOpset();
  Status ApplyInputOptions();
  Status Convert();
  Status AddInitializers();
  // "node 'q' (QuantizeLinear) input 2 (y_zero_point)": the first node that
  // reads `value` and the field it reads it as, for errors about an
  // initializer; empty when no node reads it.
  std::string FirstUse(const std::string& value) const;
  Result<ir::Value> InputValue(const onnx::ValueInfoProto& in) const;
  Status CheckInputs() const;
  Status AddInputs();
  Status LowerNodes();
  Status AddOutputs();
  Status CompareWithOnnx(const ir::Node& node, int value_id) const;
  Status WithConstantHint(const Status& st, const ir::Node& node) const;
  // " (it is graph input 'x': give its value with --constant x=FILE.npy)",
  // or the inputs it is computed from; "" when no graph input feeds it.
  std::string ConstantHint(int value_id) const;
  std::vector<int> GraphInputsFeeding(int value_id) const;
  std::string FreshName(const std::string& base);
  int NewValue(ir::Value v);

  const OnnxImportOptions& options_;
  onnx::ModelProto model_;
  int64_t opset_ = 0;
  int64_t original_opset_ = 0;
  ir::Graph graph_;
  std::unordered_map<std::string, int> ids_;       // ONNX value name -> value id
  std::unordered_set<std::string> names_;          // every IR value name in use
  std::unordered_set<std::string> read_;           // names read by a node or output
  std::unordered_map<std::string, std::vector<OnnxType>> onnx_types_;
};

Status Importer::Parse(std::string_view bytes) {
  if (bytes.size() > options_.max_model_bytes) {
    return OutOfRange("the ONNX model is " + std::to_string(bytes.size()) +
                      " bytes, more than the limit of " +
                      std::to_string(options_.max_model_bytes) + " bytes");
  }
  if (bytes.size() > static_cast<size_t>(INT_MAX) ||
      !model_.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return InvalidArgument("not an ONNX model: the bytes do not parse as an ONNX ModelProto");
  }
  if (static_cast<uint64_t>(model_.graph().node_size()) > options_.max_nodes) {
    return OutOfRange("the ONNX graph has " + std::to_string(model_.graph().node_size()) +
                      " nodes, more than the limit of " + std::to_string(options_.max_nodes));
  }
  // Before the checker, whose messages would quote the names.
  MLF_RETURN_IF_ERROR(CheckNamesPrintable(model_.graph()));
  // ONNX Runtime's QOperator nodes become standard ONNX, which the checker,
  // shape inference and the version converter then treat like any other.
  MLF_RETURN_IF_ERROR(RewriteContribOps(&model_));
  // Before the checker too: libonnx 1.12's checker refuses opset 18 and newer
  // with a message about its own registry, not about the model.
  MLF_RETURN_IF_ERROR(CheckOpset());
  try {
    onnx::checker::check_model(model_);
  } catch (const std::exception& e) {
    return InvalidArgument(std::string("the ONNX model is invalid: ") + e.what());
  }
  MLF_RETURN_IF_ERROR(CheckLibOnnxHazards(model_.graph()));
  // The checker of libonnx 1.12 lets undefined graph outputs through, and its
  // version converter then crashes on them.
  const onnx::GraphProto& g = model_.graph();
  std::unordered_set<std::string> defined;
  for (const auto& in : g.input()) defined.insert(in.name());
  for (const auto& init : g.initializer()) defined.insert(init.name());
  for (const auto& n : g.node()) defined.insert(n.output().begin(), n.output().end());
  for (const auto& out : g.output()) {
    if (out.name().empty() || !defined.count(out.name())) {
      return InvalidArgument("the ONNX model is invalid: graph output '" + out.name() +
                             "' is never computed");
    }
  }
  return Status::Ok();
}

Status Importer::CheckOpset() {
  const auto& nodes = model_.graph().node();
  for (int i = 0; i < nodes.size(); ++i) {
    if (!IsDefaultDomain(nodes[i].domain())) {
      return UnsupportedDomain("node '" + NodeName(nodes[i], i) + "' (" + nodes[i].op_type() + ")",
                               nodes[i].domain());
    }
  }
  bool found = false;
  for (const auto& o : model_.opset_import()) {
    if (IsDefaultDomain(o.domain())) {
      found = true;
      opset_ = o.version();
    }
  }
  if (!found) {
    return InvalidArgument("the ONNX model does not import the default ONNX domain "
                           "(no opset_import for \"\")");
  }
  original_opset_ = opset_;
  if (opset_ > kMaxOpset) {
    return FailedPrecondition("the ONNX model uses opset " + std::to_string(opset_) +
                              "; mlfkit supports opsets up to " + std::to_string(kMaxOpset) +
                              ": re-export it with opset " + std::to_string(kMaxOpset) +
                              " or lower (torch.onnx.export(..., opset_version=" +
                              std::to_string(kMaxOpset) + "))");
  }
  if (opset_ < 1) {
    return InvalidArgument("the ONNX model imports opset " + std::to_string(opset_));
  }
  return Status::Ok();
}

// The graph input `name` (not an initializer), or null.
onnx::ValueInfoProto* FindInput(onnx::GraphProto* g, const std::string& name) {
  for (const auto& init : g->initializer()) {
    if (init.name() == name) return nullptr;
  }
  for (auto& in : *g->mutable_input()) {
    if (in.name() == name) return &in;
  }
  return nullptr;
}

Status Importer::ApplyInputOptions() {
  if (options_.input_shapes.empty() && options_.constant_inputs.empty()) return Status::Ok();
  onnx::GraphProto* g = model_.mutable_graph();
  for (const auto& [name, shape] : options_.input_shapes) {
    onnx::ValueInfoProto* input = FindInput(g, name);
    if (input == nullptr) {
      return InvalidArgument(options_.input_shapes_option + " names '" + name +
                             "', which is not an input of the model");
    }
    auto* tensor_type = input->mutable_type()->mutable_tensor_type();
    if (tensor_type->has_shape() && tensor_type->shape().dim_size() != static_cast<int>(shape.size())) {
      return InvalidArgument(options_.input_shapes_option + " gives input '" + name +
                             "' the shape " +
                             FormatShape(shape) + ", but the model says it has rank " +
                             std::to_string(tensor_type->shape().dim_size()));
    }
    MLF_RETURN_IF_ERROR(CheckShape(options_.input_shapes_option + " '" + name + "'", shape,
                                   options_.tensor_limits));
    tensor_type->mutable_shape()->clear_dim();
    for (int64_t d : shape) tensor_type->mutable_shape()->add_dim()->set_dim_value(d);
  }
  for (const auto& [name, tensor] : options_.constant_inputs) {
    onnx::ValueInfoProto* input = FindInput(g, name);
    if (input == nullptr) {
      return InvalidArgument(options_.constant_inputs_option + " names '" + name +
                             "', which is not an input of the model");
    }
    const OnnxType declared = FromTypeProto(input->type());
    bool match = declared.elem_type == OnnxDType(tensor.dtype);
    if (declared.has_shape) {
      match = match && declared.dims.size() == tensor.shape.size();
      for (size_t i = 0; match && i < declared.dims.size(); ++i) {
        match = !declared.dims[i] || *declared.dims[i] == tensor.shape[i];
      }
    }
    if (!match) {
      return InvalidArgument(options_.constant_inputs_option + " '" + name + "' is " +
                             DTypeName(tensor.dtype) +
                             " " + FormatShape(tensor.shape) + ", but the model declares " +
                             FormatOnnxType(declared));
    }
    MLF_RETURN_IF_ERROR(CheckShape(options_.constant_inputs_option + " '" + name + "'",
                                   tensor.shape,
                                   options_.tensor_limits));
    if (tensor.bytes.size() != tensor.element_count() * DTypeSize(tensor.dtype)) {
      return InvalidArgument(options_.constant_inputs_option + " '" + name + "' has " +
                             std::to_string(tensor.bytes.size()) + " bytes of data, " +
                             DTypeName(tensor.dtype) + " " + FormatShape(tensor.shape) +
                             " needs " +
                             std::to_string(tensor.element_count() * DTypeSize(tensor.dtype)));
    }
    auto* tensor_type = input->mutable_type()->mutable_tensor_type();
    tensor_type->mutable_shape()->clear_dim();
    for (int64_t d : tensor.shape) tensor_type->mutable_shape()->add_dim()->set_dim_value(d);
    *g->add_initializer() = ToTensorProto(tensor, name);
  }
  // Shapes recorded in the model were computed for the old inputs.
  g->clear_value_info();
  for (auto& out : *g->mutable_output()) {
    if (out.type().has_tensor_type()) out.mutable_type()->mutable_tensor_type()->clear_shape();
  }
  return Status::Ok();
}

// PRelu before opset 7 applied a 1-D slope of X's channel count per channel
// (axis 1: what PyTorch's exporter wrote for PReLU(num_parameters=C)); from
// opset 7 a slope broadcasts numpy-style, from the right, and the converter
// leaves it as it is. A constant slope [C] of such a node (C = X's dimension
// 1) becomes [C, 1, ..., 1] so that it means the same after conversion.
void ReshapeChannelPReluSlopes(onnx::GraphProto* g) {
  // The dims of value `name` as recorded (-1 where unknown); empty if none.
  auto dims_of = [g](const std::string& name) {
    std::vector<int64_t> dims;
    for (const auto* list : {&g->input(), &g->value_info()}) {
      for (const auto& v : *list) {
        if (v.name() != name || !v.type().tensor_type().has_shape()) continue;
        for (const auto& d : v.type().tensor_type().shape().dim()) dims.push_back(d.has_dim_value() ? d.dim_value() : -1);
        return dims;
      }
    }
    return dims;
  };
  for (const auto& node : g->node()) {
    if (node.op_type() != "PRelu" || node.input_size() != 2) continue;
    const std::vector<int64_t> x = dims_of(node.input(0));
    int uses = 0;
    for (const auto& other : g->node()) {
      for (const auto& in : other.input()) uses += in == node.input(1);
    }
    if (x.size() < 3 || uses != 1) continue;
    const int rank = static_cast<int>(x.size());
    for (auto& init : *g->mutable_initializer()) {
      if (init.name() != node.input(1) || init.dims_size() != 1 || init.dims(0) <= 1 || init.dims(0) != x[1]) continue;
      for (int k = 2; k < rank; ++k) init.add_dims(1);
      for (auto& in : *g->mutable_input()) {  // old models list initializers as inputs too
        if (in.name() != init.name() || !in.type().tensor_type().has_shape()) continue;
        auto* shape = in.mutable_type()->mutable_tensor_type()->mutable_shape();
        for (int k = 2; k < rank; ++k) shape->add_dim()->set_dim_value(1);
      }
    }
  }
}

Status Importer::Convert() {
  // ONNX's adapters need the shapes of intermediate values (value_info).
  MLF_RETURN_IF_ERROR(InferOnnxShapes(model_));
  if (opset_ >= kCanonicalOpset) return Status::Ok();
  if (opset_ == 8) {  // the only opset of the batched Scan
    MLF_RETURN_IF_ERROR(RewriteOpset8Scans(&model_));
    MLF_RETURN_IF_ERROR(InferOnnxShapes(model_));
  }
  const std::string what = "cannot convert the ONNX model from opset " + std::to_string(opset_) +
                           " to opset " + std::to_string(kCanonicalOpset);
  if (opset_ < 7) ReshapeChannelPReluSlopes(model_.mutable_graph());
  try {
    model_ = onnx::version_conversion::ConvertVersion(model_, static_cast<int>(kCanonicalOpset));
  } catch (const std::exception& e) {
    // Drop libonnx's "<file>:<line>: <function>: Assertion `...` failed: " prefix.
    std::string reason = e.what();
    const size_t failed = reason.find("` failed: ");
    if (failed != std::string::npos) reason = reason.substr(failed + 10);
    return FailedPrecondition(what + ": " + reason);
  }
  // Upsample and Resize-10 use asymmetric coordinates and floor rounding; the
  // converter leaves Resize-11's defaults (half_pixel), which differ.
  if (opset_ <= 10) {
    for (auto& n : *model_.mutable_graph()->mutable_node()) {
      if (n.op_type() != "Resize") continue;
      bool has_ctm = false, has_nearest = false;
      for (const auto& a : n.attribute()) {
        has_ctm |= a.name() == "coordinate_transformation_mode";
        has_nearest |= a.name() == "nearest_mode";
      }
      if (!has_ctm) {
        auto* a = n.add_attribute();
        a->set_name("coordinate_transformation_mode");
        a->set_type(onnx::AttributeProto::STRING);
        a->set_s("asymmetric");
      }
      if (!has_nearest) {
        auto* a = n.add_attribute();
        a->set_name("nearest_mode");
        a->set_type(onnx::AttributeProto::STRING);
        a->set_s("floor");
      }
    }
  }
  opset_ = kCanonicalOpset;
  Status st = InferOnnxShapes(model_);
  if (!st.ok()) return FailedPrecondition(what + ": " + st.message());
  return Status::Ok();
}

std::string Importer::FreshName(const std::string& base) {
  if (!names_.count(base)) return base;
  for (int i = 1;; ++i) {
    std::string candidate = base + "_" + std::to_string(i);
    if (!names_.count(candidate)) return candidate;
  }
}

int Importer::NewValue(ir::Value v) {
  names_.insert(v.name);
  return graph_.AddValue(std::move(v));
}

std::string Importer::FirstUse(const std::string& value) const {
  for (const onnx::NodeProto& node : model_.graph().node()) {
    for (int i = 0; i < node.input_size(); ++i) {
      if (node.input(i) != value) continue;
      std::string use = "node '" + node.name() + "' (" + node.op_type() + ") input " +
                        std::to_string(i);
      const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(
          node.op_type(), static_cast<int>(opset_),
          node.domain().empty() ? onnx::ONNX_DOMAIN : node.domain());
      if (schema && i < static_cast<int>(schema->inputs().size())) {
        use += " (" + schema->inputs()[i].GetName() + ")";
      }
      return use;
    }
  }
  return "";
}

Status Importer::AddInitializers() {
  const onnx::GraphProto& g = model_.graph();
  if (g.sparse_initializer_size() > 0) {
    return Unimplemented("sparse initializer '" + g.sparse_initializer(0).values().name() +
                         "' is not supported");
  }
  for (const onnx::TensorProto& init : g.initializer()) {
    if (ids_.count(init.name())) {
      return InvalidArgument("initializer '" + init.name() + "' is defined twice");
    }
    Result<ir::HostTensor> tensor = FromTensorProto(init, options_.tensor_limits);
    if (!tensor.ok()) {
      // An element type we do not read: say which operator field holds it.
      const std::string use = DTypeFromOnnx(init.data_type()).ok() ? "" : FirstUse(init.name());
      return use.empty() ? tensor.status() : tensor.status().WithContext(use);
    }
    ir::HostTensor t = std::move(*tensor);
    ir::Value v;
    v.name = init.name();
    v.dtype = t.dtype;
    v.shape = t.shape;
    v.constant = std::move(t);
    ids_[init.name()] = NewValue(std::move(v));
  }
  return Status::Ok();
}

Result<ir::Value> Importer::InputValue(const onnx::ValueInfoProto& in) const {
  const std::string what = "input '" + in.name() + "'";
  if (!in.type().has_tensor_type()) {
    return Unimplemented(what + " is not a tensor (sequences, maps and optionals are not "
                         "supported)");
  }
  const auto& tt = in.type().tensor_type();
  Result<DType> dtype = DTypeFromOnnx(tt.elem_type());
  if (!dtype.ok()) return dtype.status().WithContext(what);
  if (!tt.has_shape()) {
    return InvalidArgument(what + " has no shape; give it with " + options_.input_shapes_option);
  }
  ir::Value v;
  v.name = in.name();
  v.dtype = *dtype;
  for (int i = 0; i < tt.shape().dim_size(); ++i) {
    const auto& d = tt.shape().dim(i);
    if (!d.has_dim_value()) {
      const std::string which =
          d.has_dim_param() && !d.dim_param().empty() ? " ('" + d.dim_param() + "')" : "";
      return InvalidArgument(what + ": dimension " + std::to_string(i) + which +
                             " is symbolic; fix it with " + options_.input_shapes_option + " " +
                             SuggestedShape(in));
    }
    v.shape.push_back(d.dim_value());
  }
  MLF_RETURN_IF_ERROR(CheckShape(what, v.shape, options_.tensor_limits));
  return v;
}

Status Importer::CheckInputs() const {
  std::unordered_set<std::string> initializers;
  for (const auto& init : model_.graph().initializer()) initializers.insert(init.name());
  for (const onnx::ValueInfoProto& in : model_.graph().input()) {
    if (initializers.count(in.name())) continue;
    MLF_RETURN_IF_ERROR(InputValue(in).status());
  }
  return Status::Ok();
}

Status Importer::AddInputs() {
  for (const onnx::ValueInfoProto& in : model_.graph().input()) {
    if (ids_.count(in.name())) continue;  // an initializer: a constant
    MLF_ASSIGN_OR_RETURN(ir::Value v, InputValue(in));
    const int id = NewValue(std::move(v));
    ids_[in.name()] = id;
    graph_.inputs.push_back(id);
  }
  return Status::Ok();
}

Status Importer::LowerNodes() {
  const auto& g = model_.graph();
  for (const auto& n : g.node()) {
    for (const std::string& in : n.input()) read_.insert(in);
    // Reserved, so that names made up for new values never take a model's.
    for (const std::string& out : n.output()) names_.insert(out);
  }
  for (const auto& out : g.output()) read_.insert(out.name());
  for (int i = 0; i < g.node_size(); ++i) {
    MLF_RETURN_IF_ERROR(LowerProto(g.node(i), NodeName(g.node(i), i)));
  }
  return Status::Ok();
}

Status Importer::LowerProto(const onnx::NodeProto& node, const std::string& name) {
  if (IsControlFlow(node)) return LowerControlFlow(node, name, *this);
  return LowerNode(node, name, opset_, *this);
}

const ir::HostTensor* Importer::KnownValue(const std::string& name) const {
  auto it = ids_.find(name);
  if (it == ids_.end()) return nullptr;
  const ir::Value& v = graph_.value(it->second);
  return v.constant ? &*v.constant : nullptr;
}

std::optional<std::vector<int64_t>> Importer::ShapeOf(const std::string& name) const {
  auto it = ids_.find(name);
  if (it == ids_.end()) return std::nullopt;
  return graph_.value(it->second).shape;
}

std::string Importer::ReserveName(const std::string& base) {
  std::string name = FreshName(base);
  names_.insert(name);
  return name;
}

Status Importer::NotKnown(const std::string& who, int index, const std::string& field,
                          const std::string& value, const std::string& why) const {
  auto it = ids_.find(value);
  const std::string hint = it == ids_.end() ? "" : ConstantHint(it->second);
  return InvalidArgument(who + ": input " + std::to_string(index) + " (" + field +
                         ") must be a constant: " + why + hint);
}

Status Importer::AddOutputs() {
  for (const auto& out : model_.graph().output()) {
    auto it = ids_.find(out.name());
    if (it == ids_.end()) {
      return InvalidArgument("graph output '" + out.name() + "' is never computed");
    }
    graph_.outputs.push_back(it->second);
  }
  return Status::Ok();
}

Result<int> Importer::Lookup(const std::string& name, const ir::Node& node) {
  auto it = ids_.find(name);
  if (it == ids_.end()) {
    return InvalidArgument(node.Describe() + ": input '" + name + "' is not defined before it");
  }
  return it->second;
}

Result<int> Importer::Define(const std::string& name, const ir::Node& node) {
  if (ids_.count(name)) {
    return InvalidArgument(node.Describe() + ": value '" + name + "' is already defined");
  }
  ir::Value v;
  v.name = name;
  const int id = NewValue(std::move(v));
  ids_[name] = id;
  return id;
}

Status Importer::DefineConstant(const std::string& name, ir::HostTensor tensor,
                                const ir::Node& node) {
  MLF_RETURN_IF_ERROR(CheckShape(node.Describe() + ": value '" + name + "'", tensor.shape,
                                 options_.tensor_limits));
  MLF_ASSIGN_OR_RETURN(int id, Define(name, node));
  ir::Value& v = graph_.value(id);
  v.dtype = tensor.dtype;
  v.shape = tensor.shape;
  v.constant = std::move(tensor);
  return CompareWithOnnx(node, id);
}

int Importer::AddConstant(const std::string& base, ir::HostTensor tensor) {
  ir::Value v;
  v.name = FreshName(base);
  v.dtype = tensor.dtype;
  v.shape = tensor.shape;
  v.constant = std::move(tensor);
  return NewValue(std::move(v));
}

int Importer::AddTemp(const std::string& base) {
  ir::Value v;
  v.name = FreshName(base);
  return NewValue(std::move(v));
}

Status Importer::CompareWithOnnx(const ir::Node& node, int value_id) const {
  const ir::Value& v = graph_.value(value_id);
  auto it = onnx_types_.find(v.name);
  if (it == onnx_types_.end()) return Status::Ok();
  for (const OnnxType& t : it->second) {
    bool agree = t.elem_type == 0 || t.elem_type == OnnxDType(v.dtype);
    if (t.has_shape) {
      agree = agree && t.dims.size() == v.shape.size();
      for (size_t i = 0; agree && i < t.dims.size(); ++i) {
        agree = !t.dims[i] || *t.dims[i] == v.shape[i];
      }
    }
    if (!agree) {
      return InvalidArgument(node.Describe() + ": output '" + v.name + "' is " +
                             DTypeName(v.dtype) + " " + FormatShape(v.shape) +
                             " by mlfkit's shape rules, but " + FormatOnnxType(t) +
                             " by ONNX (declared in the model or inferred)");
    }
  }
  return Status::Ok();
}

// The graph inputs that value `value_id` is computed from, through the
// nodes emitted so far (values of folded nodes are constants), in the order
// of the graph's inputs.
std::vector<int> Importer::GraphInputsFeeding(int value_id) const {
  std::set<int> seen{value_id}, found;
  std::vector<int> pending{value_id};
  while (!pending.empty()) {
    const int id = pending.back();
    pending.pop_back();
    if (std::find(graph_.inputs.begin(), graph_.inputs.end(), id) != graph_.inputs.end()) {
      found.insert(id);
      continue;
    }
    const int producer = graph_.Producer(id);
    if (producer < 0) continue;
    for (int in : graph_.nodes[static_cast<size_t>(producer)].inputs) {
      if (in >= 0 && seen.insert(in).second) pending.push_back(in);
    }
  }
  std::vector<int> ordered;
  for (int id : graph_.inputs) {
    if (found.count(id)) ordered.push_back(id);
  }
  return ordered;
}

// "... input 1 (shape) must be a constant": when that input is a graph input,
// or is computed from graph inputs, says how to freeze them.
Status Importer::WithConstantHint(const Status& st, const ir::Node& node) const {
  const std::string& m = st.message();
  const size_t at = m.find("must be a constant");
  const size_t input = m.rfind("input ", at);
  if (at == std::string::npos || input == std::string::npos) return st;
  char* end = nullptr;
  const long index = std::strtol(m.c_str() + input + 6, &end, 10);
  if (end == m.c_str() + input + 6 || !node.HasInput(static_cast<size_t>(index))) return st;
  const std::string hint = ConstantHint(node.inputs[static_cast<size_t>(index)]);
  return hint.empty() ? st : Status(st.code(), m + hint);
}

std::string Importer::ConstantHint(int id) const {
  const std::string& flag = options_.constant_inputs_option;
  if (std::find(graph_.inputs.begin(), graph_.inputs.end(), id) != graph_.inputs.end()) {
    return " (it is graph input '" + graph_.value(id).name + "': give its value with " + flag +
           " " + graph_.value(id).name + "=FILE.npy)";
  }
  const std::vector<int> sources = GraphInputsFeeding(id);
  if (sources.empty()) return "";
  std::string names, flags;
  for (int source : sources) {
    const std::string& name = graph_.value(source).name;
    names += (names.empty() ? "'" : ", '") + name + "'";
    flags += (flags.empty() ? "" : " ") + flag + " " + name + "=FILE.npy";
  }
  return " (it is computed from graph input" + std::string(sources.size() > 1 ? "s " : " ") +
         names + ": give " + (sources.size() > 1 ? "their values" : "its value") + " with " +
         flags + ")";
}

Status Importer::Emit(ir::Node node) {
  bool folded = false;
  if (node.op == "Shape" || node.op == "Size") {
    MLF_ASSIGN_OR_RETURN(folded, passes::TryFoldNode(graph_, node, options_.folding));
  } else {
    Status st = ops::InferNode(node, graph_);
    if (!st.ok()) return WithConstantHint(st, node);
  }
  for (int id : node.outputs) {
    const ir::Value& v = graph_.value(id);
    MLF_RETURN_IF_ERROR(CheckShape(node.Describe() + ": output '" + v.name + "'", v.shape,
                                   options_.tensor_limits));
    MLF_RETURN_IF_ERROR(CompareWithOnnx(node, id));
  }
  if (!folded) {
    passes::FoldOptions folding = options_.folding;
    folding.fold_dequantize_linear = false;  // for the QDQ lowering (codegen/passes/qdq_lowering.h)
    MLF_ASSIGN_OR_RETURN(folded, passes::TryFoldNode(graph_, node, folding));
  }
  if (!folded) graph_.nodes.push_back(std::move(node));
  return Status::Ok();
}

Result<ir::Graph> Importer::Run(std::string_view bytes, OnnxModelInfo* info) {
  MLF_RETURN_IF_ERROR(Parse(bytes));
  MLF_RETURN_IF_ERROR(ApplyInputOptions());
  MLF_RETURN_IF_ERROR(CheckInputs());
  MLF_RETURN_IF_ERROR(Convert());
  if (info != nullptr) {
    info->opset = original_opset_;
    info->ir_version = model_.ir_version();
    info->converted = original_opset_ != opset_;
    info->producer_name = model_.producer_name();
    info->producer_version = model_.producer_version();
  }
  const onnx::GraphProto& g = model_.graph();
  for (const auto* list : {&g.value_info(), &g.input(), &g.output()}) {
    for (const auto& vi : *list) onnx_types_[vi.name()].push_back(FromTypeProto(vi.type()));
  }
  MLF_RETURN_IF_ERROR(AddInitializers());
  MLF_RETURN_IF_ERROR(AddInputs());
  MLF_RETURN_IF_ERROR(LowerNodes());
  MLF_RETURN_IF_ERROR(AddOutputs());
  passes::PruneGraph(graph_);
  MLF_RETURN_IF_ERROR(graph_.Validate());
  return std::move(graph_);
}

}  // namespace

Result<ir::Graph> ImportOnnx(std::string_view model_bytes, const OnnxImportOptions& options,
                             OnnxModelInfo* info) {
  try {
    Importer importer(options);
    return importer.Run(model_bytes, info);
  } catch (const std::bad_alloc&) {
    return OutOfRange("out of memory while importing the ONNX model");
  } catch (const std::exception& e) {
    return Internal(std::string("importing the ONNX model failed: ") + e.what());
  } catch (...) {
    return Internal("importing the ONNX model failed with an unknown exception");
  }
}

Result<ir::Graph> ImportOnnxFile(const std::string& path, const OnnxImportOptions& options,
                                 OnnxModelInfo* info) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return ErrnoError("cannot read '" + path + "'");
  if (!S_ISREG(st.st_mode)) return InvalidArgument("'" + path + "' is not a regular file");
  if (static_cast<uint64_t>(st.st_size) > options.max_model_bytes) {
    return OutOfRange("'" + path + "': the ONNX model is " + std::to_string(st.st_size) +
                      " bytes, more than the limit of " +
                      std::to_string(options.max_model_bytes) + " bytes");
  }
  std::string bytes;
  try {
    std::ifstream f(path, std::ios::binary);
    if (!f) return ErrnoError("cannot read '" + path + "'");
    bytes.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
    if (f.bad()) return ErrnoError("cannot read '" + path + "'");
  } catch (const std::exception& e) {
    return IoError("cannot read '" + path + "': " + e.what());
  }
  Result<ir::Graph> g = ImportOnnx(bytes, options, info);
  if (!g.ok()) return g.status().WithContext(path);
  return g;
}

}  // namespace mlf::frontend
