#include "codegen/frontend/onnx_lowering.h"

#include <onnx/defs/schema.h>

#include <utility>
#include <vector>

namespace mlf::frontend {
namespace {

using onnx::AttributeProto;

ir::HostTensor Int64Vector(const std::vector<int64_t>& v) {
  ir::HostTensor t = ir::HostTensor::Zeros(DType::kInt64, {static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) t.data<int64_t>()[i] = v[i];
  return t;
}

ir::HostTensor Scalar(DType dtype, double value) {
  ir::HostTensor t = ir::HostTensor::Zeros(dtype, {});
  t.SetDouble(0, value);
  return t;
}

void SetInput(ir::Node& node, size_t index, int value) {
  if (node.inputs.size() <= index) node.inputs.resize(index + 1, ir::kNoValue);
  node.inputs[index] = value;
}

// Moves integer-list attribute `attr` to constant int64 input `index`.
Status IntsAttrToInput(ir::Node& node, LoweringContext& ctx, const std::string& attr,
                       size_t index) {
  if (!node.HasAttr(attr)) return Status::Ok();
  MLF_ASSIGN_OR_RETURN(std::vector<int64_t> v, node.Ints(attr, {}));
  if (node.HasInput(index)) {
    return InvalidArgument(node.Describe() + ": has both attribute '" + attr + "' and input " +
                           std::to_string(index));
  }
  node.attrs.erase(attr);
  SetInput(node, index, ctx.AddConstant(node.name + "_" + attr, Int64Vector(v)));
  return Status::Ok();
}

// Moves float attribute `attr` to a scalar input `index` of the dtype of input 0.
Status FloatAttrToInput(ir::Node& node, LoweringContext& ctx, const std::string& attr,
                        size_t index) {
  if (!node.HasAttr(attr)) return Status::Ok();
  MLF_ASSIGN_OR_RETURN(double v, node.Float(attr, 0));
  node.attrs.erase(attr);
  const DType dtype = ctx.graph().value(node.inputs.at(0)).dtype;
  SetInput(node, index, ctx.AddConstant(node.name + "_" + attr, Scalar(dtype, v)));
  return Status::Ok();
}

bool IsReduce(const std::string& op) { return op.rfind("Reduce", 0) == 0; }

// Softmax/LogSoftmax/Hardmax before opset 13: the input is coerced to 2-D
// [prod(dims[:axis]), prod(dims[axis:])] and the op runs over the second axis.
Status LowerOldSoftmax(ir::Node node, LoweringContext& ctx) {
  MLF_ASSIGN_OR_RETURN(int64_t axis, node.Int("axis", 1));
  const std::vector<int64_t> shape = ctx.graph().value(node.inputs.at(0)).shape;
  const auto rank = static_cast<int64_t>(shape.size());
  if (axis < -rank || axis >= rank) {
    if (rank == 0) return ctx.Emit(std::move(node));
    return InvalidArgument(node.Describe() + ": axis " + std::to_string(axis) +
                           " is out of range for rank " + std::to_string(rank));
  }
  if (axis < 0) axis += rank;
  node.attrs["axis"] = int64_t{-1};
  if (axis == rank - 1) return ctx.Emit(std::move(node));
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < rank; ++i) (i < axis ? outer : inner) *= shape[static_cast<size_t>(i)];
  const int out = node.outputs.at(0);
  ir::Node to2d;
  to2d.name = node.name + "_to_2d";
  to2d.op = "Reshape";
  to2d.inputs = {node.inputs[0], ctx.AddConstant(node.name + "_shape_2d", Int64Vector({outer, inner}))};
  to2d.outputs = {ctx.AddTemp(node.name + "_2d_in")};
  const int flat_out = ctx.AddTemp(node.name + "_2d_out");
  ir::Node back;
  back.name = node.name + "_from_2d";
  back.op = "Reshape";
  back.inputs = {flat_out, ctx.AddConstant(node.name + "_shape", Int64Vector(shape))};
  back.outputs = {out};
  node.inputs[0] = to2d.outputs[0];
  node.outputs = {flat_out};
  MLF_RETURN_IF_ERROR(ctx.Emit(std::move(to2d)));
  MLF_RETURN_IF_ERROR(ctx.Emit(std::move(node)));
  return ctx.Emit(std::move(back));
}

Status LowerConstant(const onnx::NodeProto& proto, const ir::Node& node, LoweringContext& ctx) {
  if (proto.output_size() != 1 || proto.attribute_size() != 1) {
    return InvalidArgument(node.Describe() + ": needs exactly one output and one attribute");
  }
  const std::string& key = proto.attribute(0).name();
  const ir::AttrValue& v = node.attrs.at(key);
  ir::HostTensor t;
  if (key == "value" && std::holds_alternative<ir::HostTensor>(v)) {
    t = std::get<ir::HostTensor>(v);
  } else if (key == "value_float" && std::holds_alternative<double>(v)) {
    t = Scalar(DType::kFloat32, std::get<double>(v));
  } else if (key == "value_int" && std::holds_alternative<int64_t>(v)) {
    t = Scalar(DType::kInt64, 0);
    t.data<int64_t>()[0] = std::get<int64_t>(v);
  } else if (key == "value_floats" && std::holds_alternative<std::vector<double>>(v)) {
    const auto& f = std::get<std::vector<double>>(v);
    t = ir::HostTensor::Zeros(DType::kFloat32, {static_cast<int64_t>(f.size())});
    for (size_t i = 0; i < f.size(); ++i) t.SetDouble(i, f[i]);
  } else if (key == "value_ints" && std::holds_alternative<std::vector<int64_t>>(v)) {
    t = Int64Vector(std::get<std::vector<int64_t>>(v));
  } else if (key == "value_string" || key == "value_strings") {
    return Unimplemented(node.Describe() + ": string constants are not supported");
  } else {
    return InvalidArgument(node.Describe() + ": unsupported attribute '" + key + "'");
  }
  return ctx.DefineConstant(proto.output(0), std::move(t), node);
}

// Op- and opset-specific rewrites to the canonical form, then Emit.
Status Canonicalise(ir::Node node, int64_t opset, LoweringContext& ctx) {
  const std::string& op = node.op;
  if ((op == "Squeeze" || op == "Unsqueeze") && opset < 13) {
    MLF_RETURN_IF_ERROR(IntsAttrToInput(node, ctx, "axes", 1));
  } else if (IsReduce(op) && (op == "ReduceSum" ? opset < 13 : opset < 18)) {
    MLF_RETURN_IF_ERROR(IntsAttrToInput(node, ctx, "axes", 1));
  } else if (op == "Split" && opset < 13) {
    MLF_RETURN_IF_ERROR(IntsAttrToInput(node, ctx, "split", 1));
  } else if (op == "Clip" && opset < 11) {
    MLF_RETURN_IF_ERROR(FloatAttrToInput(node, ctx, "min", 1));
    MLF_RETURN_IF_ERROR(FloatAttrToInput(node, ctx, "max", 2));
  } else if (op == "Pad" && opset < 11) {
    if (node.HasAttr("paddings")) {
      node.attrs["pads"] = node.attrs["paddings"];
      node.attrs.erase("paddings");
    }
    MLF_RETURN_IF_ERROR(IntsAttrToInput(node, ctx, "pads", 1));
    MLF_RETURN_IF_ERROR(FloatAttrToInput(node, ctx, "value", 2));
  } else if (op == "Slice" && opset < 10) {
    MLF_RETURN_IF_ERROR(IntsAttrToInput(node, ctx, "starts", 1));
    MLF_RETURN_IF_ERROR(IntsAttrToInput(node, ctx, "ends", 2));
    MLF_RETURN_IF_ERROR(IntsAttrToInput(node, ctx, "axes", 3));
  } else if (op == "Reshape" && opset < 5) {
    MLF_RETURN_IF_ERROR(IntsAttrToInput(node, ctx, "shape", 1));
  } else if (op == "Resize" && opset == 10) {
    if (node.inputs.size() == 2) node.inputs = {node.inputs[0], ir::kNoValue, node.inputs[1]};
    node.attrs.emplace("coordinate_transformation_mode", std::string("asymmetric"));
    node.attrs.emplace("nearest_mode", std::string("floor"));
  } else if (op == "Upsample") {
    // Upsample (opsets 7-9, gone in 10) is opset 10's Resize: scales (an
    // attribute before opset 9) as input 2, asymmetric coordinates, floor.
    if (node.HasAttr("scales")) {
      MLF_ASSIGN_OR_RETURN(std::vector<double> scales, node.Floats("scales", {}));
      ir::HostTensor t = ir::HostTensor::Zeros(DType::kFloat32, {static_cast<int64_t>(scales.size())});
      for (size_t i = 0; i < scales.size(); ++i) t.SetDouble(i, scales[i]);
      node.attrs.erase("scales");
      node.inputs = {node.inputs.at(0), ir::kNoValue, ctx.AddConstant(node.name + "_scales", std::move(t))};
    } else if (node.inputs.size() == 2) {
      node.inputs = {node.inputs[0], ir::kNoValue, node.inputs[1]};
    }
    node.op = "Resize";
    node.attrs.emplace("coordinate_transformation_mode", std::string("asymmetric"));
    node.attrs.emplace("nearest_mode", std::string("floor"));
  } else if ((op == "Softmax" || op == "LogSoftmax" || op == "Hardmax") && opset < 13) {
    return LowerOldSoftmax(std::move(node), ctx);
  } else if (op == "BatchNormalization") {
    MLF_ASSIGN_OR_RETURN(int64_t training, node.Int("training_mode", 0));
    if (training != 0) {
      return Unimplemented(node.Describe() + ": training_mode=1 is not supported (inference only)");
    }
    node.attrs.erase("training_mode");
    if (node.outputs.size() > 1) {
      return Unimplemented(node.Describe() + ": outputs other than Y (training statistics) are "
                           "not supported (inference only)");
    }
  }
  return ctx.Emit(std::move(node));
}

}  // namespace

Result<ir::AttrValue> ConvertAttribute(const AttributeProto& a, const ir::Node& node,
                                       const TensorLimits& limits) {
  const std::string what = node.Describe() + ": attribute '" + a.name() + "'";
  AttributeProto::AttributeType type = a.type();
  if (type == AttributeProto::UNDEFINED) {  // very old models: the set field tells
    if (a.has_i()) type = AttributeProto::INT;
    else if (a.has_f()) type = AttributeProto::FLOAT;
    else if (a.has_s()) type = AttributeProto::STRING;
    else if (a.has_t()) type = AttributeProto::TENSOR;
    else if (a.ints_size() > 0) type = AttributeProto::INTS;
    else if (a.floats_size() > 0) type = AttributeProto::FLOATS;
    else if (a.strings_size() > 0) type = AttributeProto::STRINGS;
  }
  switch (type) {
    case AttributeProto::INT: return ir::AttrValue(int64_t{a.i()});
    case AttributeProto::FLOAT: return ir::AttrValue(static_cast<double>(a.f()));
    case AttributeProto::STRING: return ir::AttrValue(a.s());
    case AttributeProto::INTS:
      return ir::AttrValue(std::vector<int64_t>(a.ints().begin(), a.ints().end()));
    case AttributeProto::FLOATS:
      return ir::AttrValue(std::vector<double>(a.floats().begin(), a.floats().end()));
    case AttributeProto::STRINGS:
      return ir::AttrValue(std::vector<std::string>(a.strings().begin(), a.strings().end()));
    case AttributeProto::TENSOR: {
      Result<ir::HostTensor> t = FromTensorProto(a.t(), limits);
      if (!t.ok()) return t.status().WithContext(what);
      return ir::AttrValue(std::move(*t));
    }
    case AttributeProto::GRAPH:
    case AttributeProto::GRAPHS:
      // If, Loop and Scan never get here: the importer unrolls them
      // (onnx_control_flow.h).
      return Unimplemented(what + " is a subgraph; only If, Loop and Scan take subgraphs, "
                           "unrolled at export");
    case AttributeProto::SPARSE_TENSOR:
    case AttributeProto::SPARSE_TENSORS:
      return Unimplemented(what + " is a sparse tensor, which is not supported");
    case AttributeProto::TYPE_PROTO:
    case AttributeProto::TYPE_PROTOS:
      return Unimplemented(what + " is a type, which is not supported");
    case AttributeProto::TENSORS:
      return Unimplemented(what + " is a list of tensors, which is not supported");
    default:
      return InvalidArgument(what + " has no type");
  }
}

Status UnsupportedDomain(const std::string& who, const std::string& domain) {
  if (domain == "ai.onnx.preview.training") {
    return Unimplemented(who + ": domain '" + domain +
                         "' holds training operators; mlfkit compiles inference only");
  }
  return Unimplemented(who + ": domain '" + domain +
                       "' is not supported; mlfkit compiles operators of the default ONNX "
                       "domain only");
}

Status LowerNode(const onnx::NodeProto& proto, const std::string& name, int64_t opset,
                 LoweringContext& ctx) {
  ir::Node node;
  node.name = name;
  node.op = proto.op_type();
  if (!proto.domain().empty() && proto.domain() != "ai.onnx") {
    return UnsupportedDomain(node.Describe(), proto.domain());
  }
  for (const AttributeProto& a : proto.attribute()) {
    if (!a.ref_attr_name().empty()) {
      return InvalidArgument(node.Describe() + ": attribute '" + a.name() +
                             "' refers to a function attribute outside a function");
    }
    if (ir::IsCompilerAttribute(a.name())) {
      return InvalidArgument(node.Describe() + ": attribute '" + a.name() +
                             "': names starting with 'mlf.' are reserved for mlfkit's compiler");
    }
    MLF_ASSIGN_OR_RETURN(node.attrs[a.name()], ConvertAttribute(a, node, ctx.limits()));
  }
  if (node.op == "Constant") return LowerConstant(proto, node, ctx);

  int num_inputs = proto.input_size();
  while (num_inputs > 0 && proto.input(num_inputs - 1).empty()) --num_inputs;
  for (int i = 0; i < num_inputs; ++i) {
    if (proto.input(i).empty()) {
      node.inputs.push_back(ir::kNoValue);
    } else {
      MLF_ASSIGN_OR_RETURN(int id, ctx.Lookup(proto.input(i), node));
      node.inputs.push_back(id);
    }
  }

  // Optional outputs nothing reads are dropped (trailing) or get fresh values.
  const onnx::OpSchema* schema =
      onnx::OpSchemaRegistry::Schema(node.op, static_cast<int>(opset), onnx::ONNX_DOMAIN);
  auto droppable = [&](int j) {
    const std::string& out = proto.output(j);
    if (out.empty()) return true;
    if (schema == nullptr || ctx.IsUsed(out)) return false;
    const auto& formal = schema->outputs();
    if (formal.empty()) return false;
    const auto& param = formal[std::min<size_t>(static_cast<size_t>(j), formal.size() - 1)];
    return param.GetOption() == onnx::OpSchema::Optional;
  };
  int num_outputs = proto.output_size();
  while (num_outputs > 1 && droppable(num_outputs - 1)) --num_outputs;
  for (int j = 0; j < num_outputs; ++j) {
    if (proto.output(j).empty()) {
      node.outputs.push_back(ctx.AddTemp(name + "_unused_" + std::to_string(j)));
    } else {
      MLF_ASSIGN_OR_RETURN(int id, ctx.Define(proto.output(j), node));
      node.outputs.push_back(id);
    }
  }
  return Canonicalise(std::move(node), opset, ctx);
}

}  // namespace mlf::frontend
