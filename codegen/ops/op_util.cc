#include "codegen/ops/op_util.h"

#include <algorithm>
#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <utility>

namespace mlf::ops {

// ---- Errors ----

Status NodeError(const ir::Node& node, const std::string& reason) {
  return InvalidArgument(node.Describe() + ": " + reason);
}

Status NodeUnsupported(const ir::Node& node, const std::string& reason) {
  return Unimplemented(node.Describe() + ": " + reason);
}

// ---- Checking a node ----

namespace {

std::string Plural(size_t n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

std::string Range(size_t lo, size_t hi, const char* word) {
  if (hi == lo) return Plural(lo, word);
  if (hi == kNoMax) return "at least " + Plural(lo, word);
  return std::to_string(lo) + " to " + std::to_string(hi) + " " + word + "s";
}

}  // namespace

Status CheckArity(const ir::Node& node, size_t min_inputs, size_t max_inputs, size_t min_outputs,
                  size_t max_outputs) {
  const size_t in = node.inputs.size(), out = node.outputs.size();
  if (in < min_inputs || in > max_inputs) {
    return NodeError(node, "expects " + Range(min_inputs, max_inputs, "input") + ", got " +
                                 std::to_string(in));
  }
  if (out < min_outputs || out > max_outputs) {
    return NodeError(node, "expects " + Range(min_outputs, max_outputs, "output") + ", got " +
                                 std::to_string(out));
  }
  for (size_t j = 0; j < out; ++j) {
    if (node.outputs[j] == ir::kNoValue) {
      return NodeError(node, "output " + std::to_string(j) + " is omitted");
    }
  }
  if (min_inputs > 0 && !node.HasInput(0)) return NodeError(node, "input 0 is required");
  return Status::Ok();
}

Status CheckPresent(const ir::Node& node, size_t index, const std::string& what) {
  if (node.HasInput(index)) return Status::Ok();
  return NodeError(node, "input " + std::to_string(index) + " (" + what + ") is required");
}

Status CheckDType(const ir::Node& node, DType dtype, const std::vector<DType>& allowed,
                  const std::string& what) {
  if (std::find(allowed.begin(), allowed.end(), dtype) != allowed.end()) return Status::Ok();
  std::string list;
  for (DType d : allowed) list += (list.empty() ? "" : ", ") + std::string(DTypeName(d));
  return NodeUnsupported(node, what + " has dtype " + DTypeName(dtype) + "; supported: " + list);
}

Result<size_t> NormalizeAxis(const ir::Node& node, int64_t axis, size_t rank, const std::string& what,
                             bool inclusive) {
  const int64_t r = static_cast<int64_t>(rank);
  const int64_t hi = inclusive ? r : r - 1;
  if (axis < -r || axis > hi) {
    if (hi < 0) {
      return NodeError(node, what + " " + std::to_string(axis) + " is out of range for a rank-0 input");
    }
    return NodeError(node, what + " " + std::to_string(axis) + " is out of range for rank " +
                               std::to_string(r) + " (expected " + std::to_string(-r) + " to " +
                               std::to_string(hi) + ")");
  }
  return static_cast<size_t>(axis < 0 ? axis + r : axis);
}

// ---- Inputs and outputs ----

std::vector<InputInfo> GraphInputs(const ir::Node& node, const ir::Graph& graph) {
  std::vector<InputInfo> in(node.inputs.size());
  for (size_t i = 0; i < in.size(); ++i) {
    if (!node.HasInput(i)) continue;
    const ir::Value& v = graph.value(node.inputs[i]);
    in[i].present = true;
    in[i].dtype = v.dtype;
    in[i].shape = v.shape;
    in[i].data = v.is_constant() ? &*v.constant : nullptr;
  }
  return in;
}

std::vector<InputInfo> TensorInputs(const std::vector<const ir::HostTensor*>& inputs) {
  std::vector<InputInfo> in(inputs.size());
  for (size_t i = 0; i < in.size(); ++i) {
    if (inputs[i] == nullptr) continue;
    in[i].present = true;
    in[i].dtype = inputs[i]->dtype;
    in[i].shape = inputs[i]->shape;
    in[i].data = inputs[i];
  }
  return in;
}

bool Has(const std::vector<InputInfo>& in, size_t i) { return i < in.size() && in[i].present; }

Result<const InputInfo*> RequiredInput(const ir::Node& node, const std::vector<InputInfo>& in,
                                       size_t i, const std::string& what) {
  if (!Has(in, i)) {
    return NodeError(node, "input " + std::to_string(i) + " (" + what + ") is required");
  }
  return &in[i];
}

Result<std::vector<int64_t>> ConstantInts(const ir::Node& node, const std::vector<InputInfo>& in,
                                          size_t i, const std::string& what) {
  MLF_ASSIGN_OR_RETURN(const InputInfo* v, RequiredInput(node, in, i, what));
  const std::string name = "input " + std::to_string(i) + " (" + what + ")";
  if (v->data == nullptr) return NodeError(node, name + " must be a constant");
  if (v->dtype != DType::kInt64 && v->dtype != DType::kInt32) {
    return NodeError(node, name + " must be int64 or int32, got " + DTypeName(v->dtype));
  }
  if (v->shape.size() > 1) {
    return NodeError(node, name + " must be 1-D, got shape " + FormatShape(v->shape));
  }
  return v->data->ToInts();
}

void SetOutput(const ir::Node& node, ir::Graph& graph, size_t j, DType dtype,
               std::vector<int64_t> shape) {
  ir::Value& v = graph.value(node.outputs.at(j));
  v.dtype = dtype;
  v.shape = std::move(shape);
}

// ---- Dtypes ----

const std::vector<DType> kFloatDTypes = {DType::kFloat32, DType::kFloat64};
const std::vector<DType> kSignedDTypes = {DType::kInt8,  DType::kInt16,   DType::kInt32,
                                          DType::kInt64, DType::kFloat32, DType::kFloat64};
const std::vector<DType> kNumericDTypes = {
    DType::kInt8,   DType::kInt16,  DType::kInt32,  DType::kInt64,   DType::kUInt8,
    DType::kUInt16, DType::kUInt32, DType::kUInt64, DType::kFloat32, DType::kFloat64};

bool IsFloatDType(DType dtype) { return dtype == DType::kFloat32 || dtype == DType::kFloat64; }

bool IsSignedIntDType(DType dtype) {
  return dtype == DType::kInt8 || dtype == DType::kInt16 || dtype == DType::kInt32 ||
         dtype == DType::kInt64;
}

bool IsUnsignedIntDType(DType dtype) {
  return dtype == DType::kUInt8 || dtype == DType::kUInt16 || dtype == DType::kUInt32 ||
         dtype == DType::kUInt64;
}

int DTypeBits(DType dtype) { return static_cast<int>(DTypeSize(dtype) * 8); }

// ---- Shapes ----

uint64_t Elements(const std::vector<int64_t>& shape) {
  uint64_t n = 1;
  for (int64_t d : shape) n *= static_cast<uint64_t>(d);
  return n;
}

std::vector<int64_t> Strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) s[d - 1] = s[d] * shape[d];
  return s;
}

int64_t Product(const std::vector<int64_t>& shape, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t d = begin; d < end && d < shape.size(); ++d) p *= shape[d];
  return p;
}

std::vector<int64_t> Unravel(uint64_t flat, const std::vector<int64_t>& shape) {
  std::vector<int64_t> idx(shape.size(), 0);
  for (size_t d = shape.size(); d-- > 0;) {
    const uint64_t n = static_cast<uint64_t>(shape[d]);
    idx[d] = static_cast<int64_t>(flat % n);
    flat /= n;
  }
  return idx;
}

// ---- C emission ----

std::string Num(int64_t v) { return std::to_string(v); }

const char* WrapCType(DType dtype) { return DTypeSize(dtype) > 4 ? "uint64_t" : "uint32_t"; }

std::string MathFn(DType dtype, const std::string& base) {
  return dtype == DType::kFloat32 ? base + "f" : base;
}

std::string UnusedParams(const ir::Node& node, const std::vector<size_t>& inputs) {
  std::string s;
  for (size_t i : inputs) {
    if (node.HasInput(i)) s += "  (void)" + EmitContext::In(i) + ";\n";
  }
  return s;
}


namespace {

bool MentionsWord(const std::string& text, const std::string& word) {
  auto is_ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
    const bool left = at == 0 || !is_ident(text[at - 1]);
    const bool right = at + word.size() >= text.size() || !is_ident(text[at + word.size()]);
    if (left && right) return true;
  }
  return false;
}

}  // namespace

void VoidUnusedParams(const EmitContext& ctx, std::string* body) {
  std::string voids;
  auto check = [&](const std::string& name) {
    if (!MentionsWord(*body, name)) voids += "  (void)" + name + ";\n";
  };
  for (size_t i = 0; i < ctx.node.inputs.size(); ++i) {
    if (ctx.node.HasInput(i)) check(EmitContext::In(i));
  }
  for (size_t j = 0; j < ctx.node.outputs.size(); ++j) check(EmitContext::Out(j));
  body->insert(0, voids);
}

namespace {

template <typename T>
T LoadAs(const void* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

}  // namespace

std::string ElementLiteral(DType dtype, const void* p) {
  char text[64];
  switch (dtype) {
    case DType::kBool:
    case DType::kUInt8: std::snprintf(text, sizeof text, "%u", unsigned{LoadAs<uint8_t>(p)}); break;
    case DType::kInt8: std::snprintf(text, sizeof text, "%d", int{LoadAs<int8_t>(p)}); break;
    case DType::kInt16: std::snprintf(text, sizeof text, "%d", int{LoadAs<int16_t>(p)}); break;
    case DType::kUInt16: std::snprintf(text, sizeof text, "%uu", unsigned{LoadAs<uint16_t>(p)}); break;
    case DType::kInt32: {
      const int32_t v = LoadAs<int32_t>(p);
      if (v == INT32_MIN) return "(-2147483647 - 1)";
      std::snprintf(text, sizeof text, "%" PRId32, v);
      break;
    }
    case DType::kUInt32: std::snprintf(text, sizeof text, "%" PRIu32 "u", LoadAs<uint32_t>(p)); break;
    case DType::kInt64: {
      const int64_t v = LoadAs<int64_t>(p);
      if (v == INT64_MIN) return "INT64_MIN";
      std::snprintf(text, sizeof text, "INT64_C(%" PRId64 ")", v);
      break;
    }
    case DType::kUInt64: std::snprintf(text, sizeof text, "UINT64_C(%" PRIu64 ")", LoadAs<uint64_t>(p)); break;
    case DType::kFloat16:
    case DType::kBFloat16:
      std::snprintf(text, sizeof text, "0x%04xu", unsigned{LoadAs<uint16_t>(p)});
      break;
    case DType::kFloat32: return CLiteral(DType::kFloat32, LoadAs<float>(p));
    case DType::kFloat64: return CLiteral(DType::kFloat64, LoadAs<double>(p));
  }
  return text;
}

bool IsZeroBytes(DType dtype, const void* element) {
  const auto* b = static_cast<const unsigned char*>(element);
  for (size_t i = 0; i < DTypeSize(dtype); ++i) {
    if (b[i] != 0) return false;
  }
  return true;
}

namespace {

std::string Table(const std::string& indent, const std::string& type, const std::string& name,
                  const std::vector<std::string>& items) {
  std::string s = indent + "static const " + type + " " + name + "[" + std::to_string(items.size()) +
                  "] = {";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i % 16 == 0) s += "\n" + indent + "    ";
    s += items[i] + (i + 1 < items.size() ? ", " : "");
  }
  return s + "\n" + indent + "};\n";
}

}  // namespace

std::string StaticTable(const std::string& indent, const std::string& type, const std::string& name,
                        const std::vector<int64_t>& values) {
  std::vector<std::string> items;
  for (int64_t v : values) items.push_back(Num(v) + (v > 2147483647 ? "u" : ""));
  return Table(indent, type, name, items);
}

std::string StaticFloatTable(const std::string& indent, DType dtype, const std::string& name,
                             const std::vector<double>& values) {
  std::vector<std::string> items;
  for (double v : values) items.push_back(CLiteral(dtype, v));
  return Table(indent, CType(dtype), name, items);
}

const char* IndexType(int64_t max_value) {
  if (max_value <= 0xffff) return "uint16_t";
  if (max_value <= 0xffffffffll) return "uint32_t";
  return "uint64_t";
}

std::string IndexExpr(int64_t base, const Terms& terms) {
  std::string s = base != 0 ? Num(base) : "";
  for (const auto& [var, stride] : terms) {
    if (stride == 0) continue;
    const int64_t mag = stride < 0 ? -stride : stride;
    const std::string term = mag == 1 ? var : var + " * " + Num(mag);
    if (s.empty()) s = stride < 0 ? "0 - " + term : term;
    else s += (stride < 0 ? " - " : " + ") + term;
  }
  return s.empty() ? "0" : s;
}

std::string Times(const std::string& a, int64_t b) {
  if (b == 0) return "0";
  if (b == 1) return a;
  return a + " * " + Num(b);
}

std::string PlusConst(const std::string& e, int64_t c) {
  if (c == 0) return e;
  if (!e.empty() && e.find_first_not_of("0123456789") == std::string::npos) {
    return Num(std::stoll(e) + c);
  }
  return e + (c > 0 ? " + " + Num(c) : " - " + Num(-c));
}

namespace {

std::string Index(int64_t base, const Terms& terms) { return IndexExpr(base, terms); }

std::string Ptr(const std::string& base, const std::string& index) {
  return index == "0" ? base : base + " + " + index;
}

std::string For(const std::string& var, const std::string& from, const std::string& to,
                const std::string& step = "") {
  return "for (size_t " + var + " = " + from + "; " + var + " < " + to + "; " +
         (step.empty() ? "++" + var : var + " += " + step) + ") {\n";
}

// Drops length-1 dimensions and merges dimensions that are contiguous in
// both source and destination. Returns false when there is nothing to copy.
bool Canonical(const std::vector<CopyDim>& in, std::vector<CopyDim>* out) {
  std::vector<CopyDim> dims;
  for (const CopyDim& d : in) {
    if (d.len == 0) return false;
    if (d.len != 1) dims.push_back(d);
  }
  std::vector<CopyDim> reversed;
  for (size_t k = dims.size(); k-- > 0;) {
    const CopyDim& d = dims[k];
    if (!reversed.empty()) {
      CopyDim& inner = reversed.back();
      if (d.src_stride == inner.len * inner.src_stride && d.dst_stride == inner.len * inner.dst_stride) {
        inner.len *= d.len;
        continue;
      }
    }
    reversed.push_back(d);
  }
  out->assign(reversed.rbegin(), reversed.rend());
  return true;
}

constexpr int64_t kBlock = 8;

}  // namespace

void EmitStridedCopy(const StridedCopy& c, const std::string& indent, std::string* body) {
  std::vector<CopyDim> dims;
  if (!Canonical(c.dims, &dims)) return;
  const std::string elem = "sizeof(*" + c.dst + ")";
  if (dims.empty()) {
    *body += indent + c.dst + "[" + Num(c.dst_offset) + "] = " + c.src + "[" + Num(c.src_offset) + "];\n";
    return;
  }
  const size_t n = dims.size();
  const CopyDim& last = dims[n - 1];
  const bool contiguous = last.src_stride == 1 && last.dst_stride == 1;
  const bool blocked = !contiguous && n >= 2 && last.dst_stride == 1 && dims[n - 2].src_stride == 1 &&
                       dims[n - 2].len >= kBlock && last.len >= kBlock;
  const size_t outer = blocked ? n - 2 : n - 1;
  std::vector<std::pair<std::string, int64_t>> src_terms, dst_terms;
  std::string ind = indent;
  for (size_t k = 0; k < outer; ++k) {
    const std::string v = "i" + std::to_string(k);
    *body += ind + For(v, "0", Num(dims[k].len));
    ind += "  ";
    src_terms.push_back({v, dims[k].src_stride});
    dst_terms.push_back({v, dims[k].dst_stride});
  }
  auto assign = [&](const std::string& in, const std::vector<std::pair<std::string, int64_t>>& extra_src,
                    const std::vector<std::pair<std::string, int64_t>>& extra_dst) {
    auto s = src_terms, d = dst_terms;
    s.insert(s.end(), extra_src.begin(), extra_src.end());
    d.insert(d.end(), extra_dst.begin(), extra_dst.end());
    *body += in + c.dst + "[" + Index(c.dst_offset, d) + "] = " + c.src + "[" + Index(c.src_offset, s) + "];\n";
  };
  if (contiguous) {
    *body += ind + "memcpy(" + Ptr(c.dst, Index(c.dst_offset, dst_terms)) + ", " +
             Ptr(c.src, Index(c.src_offset, src_terms)) + ", " + Num(last.len) + " * " + elem + ");\n";
  } else if (!blocked) {
    const std::string v = "i" + std::to_string(n - 1);
    *body += ind + For(v, "0", Num(last.len));
    assign(ind + "  ", {{v, last.src_stride}}, {{v, last.dst_stride}});
    *body += ind + "}\n";
  } else {
    // a: source-contiguous dimension, b: destination-contiguous dimension.
    const CopyDim& a = dims[n - 2];
    const CopyDim& b = last;
    const std::string ia = "i" + std::to_string(n - 2), ib = "i" + std::to_string(n - 1);
    const std::string ja = "j" + std::to_string(n - 2), jb = "j" + std::to_string(n - 1);
    const int64_t a_full = a.len / kBlock * kBlock, b_full = b.len / kBlock * kBlock;
    const std::string pa = "(" + ia + " + " + ja + ")", pb = "(" + ib + " + " + jb + ")";
    *body += ind + For(ia, "0", Num(a_full), Num(kBlock));
    *body += ind + "  " + For(ib, "0", Num(b_full), Num(kBlock));
    *body += ind + "    " + For(ja, "0", Num(kBlock));
    *body += ind + "      " + For(jb, "0", Num(kBlock));
    assign(ind + "        ", {{pa, a.src_stride}, {pb, b.src_stride}}, {{pa, a.dst_stride}, {pb, b.dst_stride}});
    *body += ind + "      }\n" + ind + "    }\n" + ind + "  }\n";
    if (b_full < b.len) {
      *body += ind + "  " + For(ja, "0", Num(kBlock));
      *body += ind + "    " + For(ib, Num(b_full), Num(b.len));
      assign(ind + "      ", {{pa, a.src_stride}, {ib, b.src_stride}}, {{pa, a.dst_stride}, {ib, b.dst_stride}});
      *body += ind + "    }\n" + ind + "  }\n";
    }
    *body += ind + "}\n";
    if (a_full < a.len) {
      *body += ind + For(ia, Num(a_full), Num(a.len));
      *body += ind + "  " + For(ib, "0", Num(b.len));
      assign(ind + "    ", {{ia, a.src_stride}, {ib, b.src_stride}}, {{ia, a.dst_stride}, {ib, b.dst_stride}});
      *body += ind + "  }\n" + ind + "}\n";
    }
  }
  for (size_t k = outer; k-- > 0;) {
    ind.resize(ind.size() - 2);
    *body += ind + "}\n";
  }
}

void EmitBlockCopies(int64_t outer, const std::vector<BlockCopy>& blocks, const std::string& indent,
                     std::string* body) {
  if (outer <= 0) return;
  std::string ind = indent;
  const bool loop = outer > 1;
  if (loop) {
    *body += ind + For("o", "0", Num(outer));
    ind += "  ";
  }
  for (const BlockCopy& b : blocks) {
    if (b.len <= 0) continue;
    const std::string d = Index(b.dst_offset, loop ? Terms{{"o", b.dst_stride}} : Terms{});
    const std::string s = Index(b.src_offset, loop ? Terms{{"o", b.src_stride}} : Terms{});
    if (b.len == 1) {
      *body += ind + b.dst + "[" + d + "] = " + b.src + "[" + s + "];\n";
    } else {
      *body += ind + "memcpy(" + Ptr(b.dst, d) + ", " + Ptr(b.src, s) + ", " + Num(b.len) + " * sizeof(*" +
               b.dst + "));\n";
    }
  }
  if (loop) *body += indent + "}\n";
}

void EmitFill(const std::string& dst, const std::string& offset_expr, int64_t count,
              const std::string& value, bool zero, const std::string& indent, std::string* body) {
  if (count <= 0) return;
  const std::string base = offset_expr == "0" ? dst : dst + " + " + offset_expr;
  if (zero && count > 1) {
    *body += indent + "memset(" + base + ", 0, " + Num(count) + " * sizeof(*" + dst + "));\n";
  } else if (count == 1) {
    *body += indent + dst + "[" + offset_expr + "] = " + value + ";\n";
  } else {
    *body += indent + "for (size_t f = 0; f < " + Num(count) + "; ++f) " + dst + "[" +
             (offset_expr == "0" ? std::string("f") : offset_expr + " + f") + "] = " + value + ";\n";
  }
}

}  // namespace mlf::ops
