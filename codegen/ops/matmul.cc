// MatMul (numpy semantics: 1-D promotion, batch broadcasting) and Gemm
// (transA, transB, alpha, beta, optional unidirectionally broadcast C, fused
// activation).
//
// Generated code is a register-tiled, cache-blocked matrix multiply:
//   - B not transposed (MatMul, Gemm transB=0): tiles of kMr rows x kNr
//     columns of Y are accumulated in a local array (kept in registers by the
//     compiler) with the innermost loop contiguous over a row of B; K is
//     blocked by kKc and N by kNc so the B block stays in cache;
//   - B transposed (Gemm transB=1): a row of B^T is contiguous over K, so
//     tiles of kDotMr x kDotNr outputs accumulate kLanes independent partial
//     dot products over contiguous K (vectorisable without reassociating a
//     reduction), summed at the end.
// Batched MatMul with a 2-D B folds A's batch into M.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <type_traits>
#include <variant>

#include "codegen/ops/activation.h"
#include "codegen/ops/conv_geometry.h"
#include "codegen/ops/gemm_kernel.h"
#include "codegen/ops/op.h"
#include "codegen/ops/op_util.h"

namespace mlf::ops {
namespace {

// Register tile and cache blocks, tuned with gcc 12 -O3 on x86-64 for both the
// portable baseline (SSE2, 16 registers) and AVX-512: 256^3 float32 reaches
// ~36 GFLOP/s (SSE2) and ~75 GFLOP/s (-march=native) on one core.
constexpr int64_t kMr = 4;
constexpr int64_t kNr = 32;
constexpr int64_t kKc = 256;
constexpr int64_t kNc = 512;
constexpr int64_t kDotMr = 1;
constexpr int64_t kDotNr = 8;
constexpr int64_t kLanes = 16;

const std::vector<DType> kMatMulDTypes = {DType::kFloat32, DType::kFloat64, DType::kInt32,
                                           DType::kInt64,   DType::kUInt32,  DType::kUInt64};

// ---------------------------------------------------------------- shapes

struct MatMulShape {
  int64_t m = 1, n = 1, k = 1;
  std::vector<int64_t> batch;    // output batch dims
  std::vector<int64_t> a_batch;  // A's batch dims, left-padded with 1 to batch's rank
  std::vector<int64_t> b_batch;
  std::vector<int64_t> out;      // output shape
  bool fold_batch = false;       // B has no batch dims: A's batch folds into m

  int64_t BatchCount() const {
    int64_t count = 1;
    for (int64_t d : batch) count *= d;
    return count;
  }
};

Result<MatMulShape> ComputeMatMulShape(const ir::Node& node, std::vector<int64_t> a,
                                       std::vector<int64_t> b) {
  if (a.empty() || b.empty()) {
    return InvalidArgument(node.Describe() + ": MatMul inputs must have rank >= 1, got A " +
                           FormatShape(a) + " and B " + FormatShape(b));
  }
  const bool a_vec = a.size() == 1, b_vec = b.size() == 1;
  if (a_vec) a.insert(a.begin(), 1);
  if (b_vec) b.push_back(1);
  MatMulShape s;
  s.m = a[a.size() - 2];
  s.k = a.back();
  s.n = b.back();
  if (b[b.size() - 2] != s.k) {
    return InvalidArgument(node.Describe() + ": inner dimensions do not match: A " +
                           FormatShape(a) + " has K=" + std::to_string(s.k) + ", B " +
                           FormatShape(b) + " has K=" + std::to_string(b[b.size() - 2]));
  }
  std::vector<int64_t> ab(a.begin(), a.end() - 2), bb(b.begin(), b.end() - 2);
  const size_t rank = std::max(ab.size(), bb.size());
  ab.insert(ab.begin(), rank - ab.size(), 1);
  bb.insert(bb.begin(), rank - bb.size(), 1);
  for (size_t d = 0; d < rank; ++d) {
    if (ab[d] != bb[d] && ab[d] != 1 && bb[d] != 1) {
      return InvalidArgument(node.Describe() + ": batch dimensions of A " + FormatShape(a) +
                             " and B " + FormatShape(b) + " do not broadcast");
    }
    s.batch.push_back(ab[d] == 1 ? bb[d] : ab[d]);
  }
  s.a_batch = ab;
  s.b_batch = bb;
  s.out = s.batch;
  if (!a_vec) s.out.push_back(s.m);
  if (!b_vec) s.out.push_back(s.n);
  s.fold_batch = std::all_of(bb.begin(), bb.end(), [](int64_t d) { return d == 1; });
  return s;
}

struct GemmShape {
  int64_t m, n, k;
  bool trans_a, trans_b;
  double alpha, beta;
  bool has_c;
  int64_t c_rows = 1, c_cols = 1;  // C as 2-D after right-aligned padding
};

Result<GemmShape> ComputeGemmShape(const ir::Node& node, const std::vector<int64_t>& a,
                                   const std::vector<int64_t>& b,
                                   const std::vector<int64_t>* c_shape) {
  GemmShape g;
  MLF_ASSIGN_OR_RETURN(int64_t ta, node.Int("transA", 0));
  MLF_ASSIGN_OR_RETURN(int64_t tb, node.Int("transB", 0));
  MLF_ASSIGN_OR_RETURN(g.alpha, node.Float("alpha", 1.0));
  MLF_ASSIGN_OR_RETURN(g.beta, node.Float("beta", 1.0));
  if ((ta != 0 && ta != 1) || (tb != 0 && tb != 1)) {
    return InvalidArgument(node.Describe() + ": attributes 'transA' and 'transB' must be 0 or 1");
  }
  g.trans_a = ta == 1;
  g.trans_b = tb == 1;
  if (a.size() != 2 || b.size() != 2) {
    return InvalidArgument(node.Describe() + ": Gemm inputs A and B must be 2-D, got " +
                           FormatShape(a) + " and " + FormatShape(b));
  }
  g.m = g.trans_a ? a[1] : a[0];
  g.k = g.trans_a ? a[0] : a[1];
  const int64_t kb = g.trans_b ? b[1] : b[0];
  g.n = g.trans_b ? b[0] : b[1];
  if (kb != g.k) {
    return InvalidArgument(node.Describe() + ": inner dimensions do not match: A " +
                           FormatShape(a) + (g.trans_a ? " (transposed)" : "") + " has K=" +
                           std::to_string(g.k) + ", B " + FormatShape(b) +
                           (g.trans_b ? " (transposed)" : "") + " has K=" + std::to_string(kb));
  }
  g.has_c = c_shape != nullptr;
  if (g.has_c) {
    std::vector<int64_t> c = *c_shape;
    if (c.size() > 2) {
      return InvalidArgument(node.Describe() + ": C " + FormatShape(c) +
                             " must have rank <= 2 to broadcast to [" + std::to_string(g.m) +
                             ", " + std::to_string(g.n) + "]");
    }
    c.insert(c.begin(), 2 - c.size(), 1);
    if ((c[0] != 1 && c[0] != g.m) || (c[1] != 1 && c[1] != g.n)) {
      return InvalidArgument(node.Describe() + ": C " + FormatShape(*c_shape) + " does not broadcast to [" + std::to_string(g.m) + ", " +
                             std::to_string(g.n) + "]");
    }
    g.c_rows = c[0];
    g.c_cols = c[1];
  }
  return g;
}

Result<GemmShape> ComputeGemmShape(const ir::Node& node, const ir::Graph& graph) {
  return ComputeGemmShape(node, graph.value(node.inputs[0]).shape,
                          graph.value(node.inputs[1]).shape,
                          node.HasInput(2) ? &graph.value(node.inputs[2]).shape : nullptr);
}

// ---------------------------------------------------------------- infer

Status InferMatMul(const ir::Node& node, ir::Graph& graph) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 2, 2));
  MLF_RETURN_IF_ERROR(CheckPresent(node, 1, "B"));
  const ir::Value& a = graph.value(node.inputs[0]);
  const ir::Value& b = graph.value(node.inputs[1]);
  MLF_RETURN_IF_ERROR(CheckDType(node, a.dtype, kMatMulDTypes, "A"));
  if (b.dtype != a.dtype) {
    return NodeError(node, "A is " + std::string(DTypeName(a.dtype)) + " but B is " +
                               DTypeName(b.dtype));
  }
  MLF_ASSIGN_OR_RETURN(MatMulShape s, ComputeMatMulShape(node, a.shape, b.shape));
  SetOutput(node, graph, 0, a.dtype, s.out);
  return CheckIndexable(node, graph);
}

Status InferGemm(const ir::Node& node, ir::Graph& graph) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 2, 3));
  MLF_RETURN_IF_ERROR(CheckPresent(node, 1, "B"));
  const DType t = graph.value(node.inputs[0]).dtype;
  MLF_RETURN_IF_ERROR(CheckDType(node, t, kFloatDTypes, "A"));
  for (size_t i = 1; i < node.inputs.size(); ++i) {
    if (node.HasInput(i) && graph.value(node.inputs[i]).dtype != t) {
      return NodeError(node, std::string(i == 1 ? "B" : "C") + " is " +
                                 DTypeName(graph.value(node.inputs[i]).dtype) + ", expected " +
                                 DTypeName(t) + " like A");
    }
  }
  MLF_ASSIGN_OR_RETURN(GemmShape g, ComputeGemmShape(node, graph));
  MLF_RETURN_IF_ERROR(CheckActivationDType(node, t));
  MLF_RETURN_IF_ERROR(FusedActivation(node).status());
  SetOutput(node, graph, 0, t, {g.m, g.n});
  return CheckIndexable(node, graph);
}

// ---------------------------------------------------------------- evaluate

// Floats accumulate in double; integers wrap (as the generated code does, in
// WrapCType arithmetic).
template <typename T>
using Acc = std::conditional_t<std::is_floating_point_v<T>, double,
                               std::conditional_t<(sizeof(T) > 4), uint64_t, uint32_t>>;

// Offset of output batch `bt` in an operand with batch dims `dims`.
int64_t BatchOffset(const MatMulShape& s, const std::vector<int64_t>& dims, int64_t bt,
                    int64_t matrix) {
  int64_t offset = 0, stride = matrix, rest = bt;
  for (size_t d = s.batch.size(); d-- > 0;) {
    const int64_t idx = rest % s.batch[d];
    rest /= s.batch[d];
    if (dims[d] != 1) offset += idx * stride;
    stride *= dims[d];
  }
  return offset;
}

template <typename T>
void MatMulLoops(const MatMulShape& s, const T* a, const T* b, T* y) {
  for (int64_t bt = 0; bt < s.BatchCount(); ++bt) {
    const T* ab = a + BatchOffset(s, s.a_batch, bt, s.m * s.k);
    const T* bb = b + BatchOffset(s, s.b_batch, bt, s.k * s.n);
    T* yb = y + bt * s.m * s.n;
    for (int64_t i = 0; i < s.m; ++i) {
      for (int64_t j = 0; j < s.n; ++j) {
        Acc<T> acc = 0;
        for (int64_t k = 0; k < s.k; ++k) {
          acc += static_cast<Acc<T>>(ab[i * s.k + k]) * static_cast<Acc<T>>(bb[k * s.n + j]);
        }
        yb[i * s.n + j] = static_cast<T>(acc);
      }
    }
  }
}

Status EvaluateMatMul(const ir::Node& node, const std::vector<const ir::HostTensor*>& in,
                      std::vector<ir::HostTensor>* out) {
  if (in.size() != 2 || in[0] == nullptr || in[1] == nullptr) {
    return InvalidArgument(node.Describe() + ": MatMul needs inputs A and B");
  }
  MLF_ASSIGN_OR_RETURN(MatMulShape s, ComputeMatMulShape(node, in[0]->shape, in[1]->shape));
  ir::HostTensor y = ir::HostTensor::Zeros(in[0]->dtype, s.out);
  MLF_RETURN_IF_ERROR(CheckDType(node, in[0]->dtype, kMatMulDTypes, "A"));
  VisitNumeric(in[0]->dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    MatMulLoops<T>(s, in[0]->data<T>(), in[1]->data<T>(), y.data<T>());
  });
  out->push_back(std::move(y));
  return Status::Ok();
}

template <typename T>
void GemmLoops(const GemmShape& g, const T* a, const T* b, const T* c, T* y,
               const std::function<float(float)>& act, bool has_act) {
  for (int64_t i = 0; i < g.m; ++i) {
    for (int64_t j = 0; j < g.n; ++j) {
      double acc = 0;
      for (int64_t k = 0; k < g.k; ++k) {
        const double av = g.trans_a ? a[k * g.m + i] : a[i * g.k + k];
        const double bv = g.trans_b ? b[j * g.k + k] : b[k * g.n + j];
        acc += av * bv;
      }
      double v = g.alpha * acc;
      if (c != nullptr) {
        v += g.beta * c[(g.c_rows == 1 ? 0 : i) * g.c_cols + (g.c_cols == 1 ? 0 : j)];
      }
      y[i * g.n + j] = has_act ? static_cast<T>(act(static_cast<float>(v))) : static_cast<T>(v);
    }
  }
}

Status EvaluateGemm(const ir::Node& node, const std::vector<const ir::HostTensor*>& in,
                    std::vector<ir::HostTensor>* out) {
  if (in.size() < 2 || in[0] == nullptr || in[1] == nullptr) {
    return InvalidArgument(node.Describe() + ": Gemm needs inputs A and B");
  }
  if (node.attrs.count(kWeightLayoutAttr)) {
    // Packing is the last step before emission; nothing evaluates after it.
    return NodeError(node, "weight B is packed for the kernel layer and cannot be evaluated");
  }
  const ir::HostTensor* c = in.size() > 2 ? in[2] : nullptr;
  MLF_ASSIGN_OR_RETURN(GemmShape s, ComputeGemmShape(node, in[0]->shape, in[1]->shape,
                                                     c ? &c->shape : nullptr));
  MLF_ASSIGN_OR_RETURN(auto act, FusedActivation(node));
  const bool has_act = HasFusedActivation(node);
  ir::HostTensor y = ir::HostTensor::Zeros(in[0]->dtype, {s.m, s.n});
  if (in[0]->dtype == DType::kFloat32) {
    GemmLoops<float>(s, in[0]->data<float>(), in[1]->data<float>(),
                     c ? c->data<float>() : nullptr, y.data<float>(), act, has_act);
  } else if (in[0]->dtype == DType::kFloat64) {
    GemmLoops<double>(s, in[0]->data<double>(), in[1]->data<double>(),
                      c ? c->data<double>() : nullptr, y.data<double>(), act, has_act);
  } else {
    return Unimplemented(node.Describe() + ": Gemm of " + DTypeName(in[0]->dtype) +
                         " is not supported");
  }
  out->push_back(std::move(y));
  return Status::Ok();
}

// ---------------------------------------------------------------- emit

std::string S(int64_t v) { return std::to_string(v); }

// "base + off" without the noise of "0 + off" or "base + 0".
std::string Plus(const std::string& base, int64_t off) {
  if (off == 0) return base;
  if (base == "0") return S(off);
  return "(" + base + " + " + S(off) + ")";
}

// One matrix multiply y[m][n] = epilogue(sum_k A(i,k) * B(k,j)) over the C
// pointers a, b, y declared by the caller.
struct GemmEmitter {
  DType dtype;
  int64_t m, n, k;
  bool trans_a = false, trans_b = false;
  // Epilogue: v -> act(alpha * v + beta * C[i][j]); identity for MatMul.
  std::function<Result<std::string>(const std::string& v, const std::string& i,
                                    const std::string& j)>
      epilogue;
  bool has_epilogue = false;

  bool IsInt() const { return !IsFloatDType(dtype); }
  std::string T() const { return CType(dtype); }
  // Integers accumulate in unsigned arithmetic, which wraps without UB.
  std::string Acc() const { return IsInt() ? WrapCType(dtype) : T(); }
  std::string ToAcc(const std::string& v) const { return IsInt() ? "(" + Acc() + ")" + v : v; }
  std::string ToT(const std::string& v) const { return IsInt() ? "(" + T() + ")" + v : v; }
  std::string Zero() const { return IsInt() ? "0u" : CLiteral(dtype, 0); }
  std::string A(const std::string& i, const std::string& kk) const {
    return trans_a ? "a[(" + kk + ") * " + S(m) + " + " + i + "]"
                   : "a[(" + i + ") * " + S(k) + " + " + kk + "]";
  }

  // Raw store or epilogue for element (row, col) of y holding `v`.
  Result<std::string> Store(const std::string& v, const std::string& row, const std::string& col,
                            bool final_pass) const {
    const std::string target = "y[(" + row + ") * " + S(n) + " + " + col + "]";
    if (!final_pass || !has_epilogue) return target + " = " + ToT(v) + ";";
    MLF_ASSIGN_OR_RETURN(std::string e, epilogue(v, row, col));
    return target + " = " + e + ";";
  }

  // Tile of mr x nr outputs at rows i.., columns j.. over k in [k0, k0 + kc).
  // `first`: C condition for starting from zero (else from y); `final_pass`:
  // apply the epilogue on store.
  Status AxpyTile(CodeWriter& w, int64_t mr, int64_t nr, const std::string& i,
                  const std::string& j, const std::string& k0, int64_t kc,
                  const std::string& first, bool final_pass) const {
    w.Open("{");
    w.Line(Acc() + " acc[" + S(mr) + "][" + S(nr) + "];");
    auto zero = [&] {
      w.Line("for (int r = 0; r < " + S(mr) + "; ++r) for (int t = 0; t < " + S(nr) +
             "; ++t) acc[r][t] = " + Zero() + ";");
    };
    auto load = [&] {
      w.Line("for (int r = 0; r < " + S(mr) + "; ++r) for (int t = 0; t < " + S(nr) +
             "; ++t) acc[r][t] = " + ToAcc("y[(" + i + " + r) * " + S(n) + " + " + j + " + t]") + ";");
    };
    if (first == "1") {
      zero();
    } else if (first == "0") {
      load();
    } else {
      w.Open("if (" + first + ") {");
      zero();
      w.Continue("} else {");
      load();
      w.Close();
    }
    w.Open("for (int k = " + k0 + "; k < " + Plus(k0, kc) + "; ++k) {");
    w.Line("const " + T() + "* restrict bk = b + k * " + S(n) + " + " + j + ";");
    w.Open("for (int r = 0; r < " + S(mr) + "; ++r) {");
    w.Line("const " + Acc() + " av = " + ToAcc(A(i + " + r", "k")) + ";");
    w.Line("for (int t = 0; t < " + S(nr) + "; ++t) acc[r][t] += av * " + ToAcc("bk[t]") + ";");
    w.Close();
    w.Close();
    MLF_ASSIGN_OR_RETURN(std::string store,
                         Store("acc[r][t]", i + " + r", j + " + t", final_pass));
    w.Line("for (int r = 0; r < " + S(mr) + "; ++r) for (int t = 0; t < " + S(nr) + "; ++t) " +
           store);
    w.Close();
    return Status::Ok();
  }

  // Tiles over columns [j0, j0 + cols) for rows i.. (mr of them).
  Status AxpyColumns(CodeWriter& w, int64_t mr, const std::string& i, int64_t j0, int64_t cols,
                     const std::string& k0, int64_t kc, const std::string& first,
                     bool final_pass, const std::string& jb) const {
    const std::string base = jb.empty() ? S(j0) : jb;
    const int64_t full = cols / kNr * kNr;
    if (full > 0) {
      w.Open("for (int j = " + base + "; j < " + Plus(base, full) + "; j += " + S(kNr) + ") {");
      MLF_RETURN_IF_ERROR(AxpyTile(w, mr, kNr, i, "j", k0, kc, first, final_pass));
      w.Close();
    }
    if (cols > full) {
      MLF_RETURN_IF_ERROR(
          AxpyTile(w, mr, cols - full, i, Plus(base, full), k0, kc, first, final_pass));
    }
    return Status::Ok();
  }

  Status AxpyRows(CodeWriter& w, int64_t j0, int64_t cols, const std::string& k0, int64_t kc,
                  const std::string& first, bool final_pass, const std::string& jb) const {
    const int64_t full = m / kMr * kMr;
    if (full > 0) {
      w.Open("for (int i = 0; i < " + S(full) + "; i += " + S(kMr) + ") {");
      MLF_RETURN_IF_ERROR(AxpyColumns(w, kMr, "i", j0, cols, k0, kc, first, final_pass, jb));
      w.Close();
    }
    if (m > full) {
      MLF_RETURN_IF_ERROR(
          AxpyColumns(w, m - full, S(full), j0, cols, k0, kc, first, final_pass, jb));
    }
    return Status::Ok();
  }

  // All of N for one K block, in blocks of kNc columns.
  Status AxpyKBlock(CodeWriter& w, const std::string& k0, int64_t kc, const std::string& first,
                    bool final_pass) const {
    if (n <= kNc) return AxpyRows(w, 0, n, k0, kc, first, final_pass, "");
    const int64_t full = n / kNc * kNc;
    w.Open("for (int jb = 0; jb < " + S(full) + "; jb += " + S(kNc) + ") {");
    MLF_RETURN_IF_ERROR(AxpyRows(w, 0, kNc, k0, kc, first, final_pass, "jb"));
    w.Close();
    if (n > full) MLF_RETURN_IF_ERROR(AxpyRows(w, full, n - full, k0, kc, first, final_pass, ""));
    return Status::Ok();
  }

  Status Axpy(CodeWriter& w) const {
    if (k <= kKc) return AxpyKBlock(w, "0", k, "1", true);
    const int64_t full = k / kKc * kKc;
    w.Open("for (int kb = 0; kb < " + S(full) + "; kb += " + S(kKc) + ") {");
    MLF_RETURN_IF_ERROR(AxpyKBlock(w, "kb", kKc, "kb == 0", false));
    w.Close();
    if (k > full) MLF_RETURN_IF_ERROR(AxpyKBlock(w, S(full), k - full, "0", false));
    if (has_epilogue) {
      MLF_ASSIGN_OR_RETURN(std::string store, Store("y[i * " + S(n) + " + j]", "i", "j", true));
    // (Only Gemm has an epilogue, and Gemm is float-only.)
      w.Line("for (int i = 0; i < " + S(m) + "; ++i) for (int j = 0; j < " + S(n) + "; ++j) " +
             store);
    }
    return Status::Ok();
  }

  // B transposed: b[j * k + kk] is contiguous over kk.
  Status DotTile(CodeWriter& w, int64_t mr, int64_t nr, const std::string& i,
                 const std::string& j) const {
    const int64_t kl = k / kLanes * kLanes;
    w.Open("{");
    w.Line(T() + " acc[" + S(mr) + "][" + S(nr) + "][" + S(kLanes) + "];");
    w.Line("for (int r = 0; r < " + S(mr) + "; ++r) for (int c = 0; c < " + S(nr) +
           "; ++c) for (int l = 0; l < " + S(kLanes) + "; ++l) acc[r][c][l] = " + Zero() + ";");
    if (kl > 0) {
      w.Open("for (int k = 0; k < " + S(kl) + "; k += " + S(kLanes) + ") {");
      w.Open("for (int r = 0; r < " + S(mr) + "; ++r) {");
      w.Open("for (int c = 0; c < " + S(nr) + "; ++c) {");
      w.Line("const " + T() + "* restrict bj = b + (" + j + " + c) * " + S(k) + " + k;");
      w.Line("for (int l = 0; l < " + S(kLanes) + "; ++l) acc[r][c][l] += " +
             A(i + " + r", "k + l") + " * bj[l];");
      w.Close();
      w.Close();
      w.Close();
    }
    w.Open("for (int r = 0; r < " + S(mr) + "; ++r) {");
    w.Open("for (int c = 0; c < " + S(nr) + "; ++c) {");
    w.Line(T() + " v = " + Zero() + ";");
    if (k > kl) {
      w.Line("for (int k = " + S(kl) + "; k < " + S(k) + "; ++k) v += " + A(i + " + r", "k") +
             " * b[(" + j + " + c) * " + S(k) + " + k];");
    }
    w.Line("for (int l = 0; l < " + S(kLanes) + "; ++l) v += acc[r][c][l];");
    MLF_ASSIGN_OR_RETURN(std::string store, Store("v", i + " + r", j + " + c", true));
    w.Line(store);
    w.Close();
    w.Close();
    w.Close();
    return Status::Ok();
  }

  Status DotColumns(CodeWriter& w, int64_t mr, const std::string& i) const {
    const int64_t full = n / kDotNr * kDotNr;
    if (full > 0) {
      w.Open("for (int j = 0; j < " + S(full) + "; j += " + S(kDotNr) + ") {");
      MLF_RETURN_IF_ERROR(DotTile(w, mr, kDotNr, i, "j"));
      w.Close();
    }
    if (n > full) MLF_RETURN_IF_ERROR(DotTile(w, mr, n - full, i, S(full)));
    return Status::Ok();
  }

  Status Dot(CodeWriter& w) const {
    const int64_t full = m / kDotMr * kDotMr;
    if (full > 0) {
      w.Open("for (int i = 0; i < " + S(full) + "; i += " + S(kDotMr) + ") {");
      MLF_RETURN_IF_ERROR(DotColumns(w, kDotMr, "i"));
      w.Close();
    }
    if (m > full) MLF_RETURN_IF_ERROR(DotColumns(w, m - full, S(full)));
    return Status::Ok();
  }

  Status Emit(CodeWriter& w) const { return trans_b ? Dot(w) : Axpy(w); }
};

Status EmitMatMul(const EmitContext& ctx, std::string* body) {
  const ir::Value& av = ctx.input(0);
  const ir::Value& bv = ctx.input(1);
  MLF_ASSIGN_OR_RETURN(MatMulShape s, ComputeMatMulShape(ctx.node, av.shape, bv.shape));
  GemmEmitter g;
  g.dtype = av.dtype;
  g.m = s.m;
  g.n = s.n;
  g.k = s.k;
  const std::string t = CType(av.dtype);
  CodeWriter w;
  int64_t batch = s.BatchCount();
  if (s.fold_batch) {
    g.m *= batch;
    batch = 1;
  }
  if (g.m == 0 || g.n == 0 || batch == 0) {  // empty output
    *body = UnusedParams(ctx.node, {0, 1}) + "  (void)out0;\n";
    return Status::Ok();
  }
  if (batch == 1) {
    w.Line("const " + t + "* restrict a = in0;");
    w.Line("const " + t + "* restrict b = in1;");
    w.Line(t + "* restrict y = out0;");
    MLF_RETURN_IF_ERROR(g.Emit(w));
  } else {
    // Offsets of batch bt in A and B: sum over batch dims of index * stride.
    auto offset = [&](const std::vector<int64_t>& dims, int64_t matrix) {
      std::string expr;
      int64_t stride = matrix, inner = 1;
      for (size_t d = s.batch.size(); d-- > 0;) {
        if (dims[d] != 1) {
          std::string idx = "bt";
          if (inner > 1) idx = "(" + idx + " / " + S(inner) + ")";
          if (d > 0) idx = "(" + idx + " % " + S(s.batch[d]) + ")";
          expr += (expr.empty() ? "" : " + ") + idx + " * " + S(stride);
        }
        stride *= dims[d];
        inner *= s.batch[d];
      }
      return expr.empty() ? std::string("0") : expr;
    };
    w.Open("for (int bt = 0; bt < " + S(batch) + "; ++bt) {");
    w.Line("const " + t + "* restrict a = in0 + " + offset(s.a_batch, s.m * s.k) + ";");
    w.Line("const " + t + "* restrict b = in1 + " + offset(s.b_batch, s.k * s.n) + ";");
    w.Line(t + "* restrict y = out0 + bt * " + S(s.m * s.n) + ";");
    MLF_RETURN_IF_ERROR(g.Emit(w));
    w.Close();
  }
  *body = w.str();
  return Status::Ok();
}

// A float32 Gemm with transB = 1 and at most kGemvMaxRows rows runs through
// gemm_f32's GEMV-style kernels, the same sums in the same order as the
// loops below, split over the run's threads by output columns: with the
// weight packed at export (gemm_kernel.h: a constant weight of its own,
// LeNet-5's and the MLP's layers, the classifiers) whatever its size; as
// exported when it has at least kGemvMinMacs products (a runtime or shared
// weight). Other Gemms keep the loops.
constexpr int64_t kGemvMinMacs = int64_t{1} << 18;

// The clamp bounds of a fused Relu or Clip as C literals; false for other
// activations.
Result<bool> GemvClamp(const ir::Node& node, std::string* lo, std::string* hi) {
  *lo = "-HUGE_VALF";
  *hi = "HUGE_VALF";
  MLF_ASSIGN_OR_RETURN(std::string act, node.String("mlf.activation", ""));
  if (act.empty()) return true;
  if (act == "Relu") {
    *lo = "0.0f";
    return true;
  }
  if (act != "Clip") return false;
  MLF_ASSIGN_OR_RETURN(double min, node.Float("mlf.activation.min", -INFINITY));
  MLF_ASSIGN_OR_RETURN(double max, node.Float("mlf.activation.max", INFINITY));
  if (min > -INFINITY) *lo = CLiteral(DType::kFloat32, min);
  if (max < INFINITY) *hi = CLiteral(DType::kFloat32, max);
  return true;
}

// Whether a Gemm of shape `s` is a GEMV the kernels compute (any size).
bool GemvShapeSuits(const ir::Node& node, const ir::Graph& graph, const GemmShape& s) {
  const bool bias_per_column =
      !s.has_c || (s.c_rows == 1 && s.c_cols == s.n && s.beta == 1.0 &&
                   graph.value(node.inputs[2]).dtype == DType::kFloat32);
  if (graph.value(node.inputs[0]).dtype != DType::kFloat32 ||
      graph.value(node.inputs[1]).dtype != DType::kFloat32 || !s.trans_b || s.trans_a ||
      s.alpha != 1.0 || !bias_per_column || s.m < 1 || s.m > kGemvMaxRows || s.n < 1 ||
      s.k < 1 || s.n > INT32_MAX || s.k > INT32_MAX || s.m * s.k > INT32_MAX ||
      s.n * s.k > INT32_MAX || s.m * s.n > INT32_MAX) {
    return false;
  }
  std::string lo, hi;
  Result<bool> clamps = GemvClamp(node, &lo, &hi);
  return clamps.ok() && *clamps;
}

bool WeightIsGemvPacked(const ir::Node& node) {
  auto it = node.attrs.find(kWeightLayoutAttr);
  return it != node.attrs.end() && std::holds_alternative<std::string>(it->second) &&
         std::get<std::string>(it->second) == kGemvBlocksLayout;
}

// Writes the kernel call into `body` when the Gemm suits one; false otherwise.
Result<bool> EmitGemvKernel(const EmitContext& ctx, const GemmShape& s, std::string* body) {
  const bool packed = WeightIsGemvPacked(ctx.node);
  if (ctx.node.attrs.count(kWeightLayoutAttr) && !packed) {
    return NodeError(ctx.node, "unknown weight layout in attribute '" + std::string(kWeightLayoutAttr) + "'");
  }
  if (!GemvShapeSuits(ctx.node, ctx.graph, s)) {
    if (packed) return NodeError(ctx.node, "weight B is packed but the Gemm is no GEMV the kernel computes");
    return false;
  }
  if (!packed && s.m * s.n * s.k < kGemvMinMacs) return false;
  std::string lo, hi;
  MLF_ASSIGN_OR_RETURN(bool clamps, GemvClamp(ctx.node, &lo, &hi));
  if (!clamps) return false;
  ctx.UseKernel("gemm_f32");
  CodeWriter w;
  w.Line(std::string("/* Y = clamp(A * B^T + C, lo, hi)") + (packed ? ", B packed" : "") +
         ": m, n, k, A, B, C, Y, lo, hi */");
  w.Line(std::string(packed ? "mlfk_gemv_f32_packed_exec(" : "mlfk_gemv_f32_exec(") +
         EmitContext::kExec + ", " + S(s.m) + ", " + S(s.n) + ", " + S(s.k) + ", in0, in1, " +
         (s.has_c ? "in2" : "NULL") + ", out0, " + lo + ", " + hi + ");");
  *body = w.str();
  return true;
}

Status EmitGemm(const EmitContext& ctx, std::string* body) {
  MLF_ASSIGN_OR_RETURN(GemmShape s, ComputeGemmShape(ctx.node, ctx.graph));
  const DType dtype = ctx.input(0).dtype;
  MLF_RETURN_IF_ERROR(CheckActivationDType(ctx.node, dtype));
  MLF_ASSIGN_OR_RETURN(bool kernel, EmitGemvKernel(ctx, s, body));
  if (kernel) return Status::Ok();
  MLF_ASSIGN_OR_RETURN(std::string act_probe, ctx.Activation("v"));
  GemmEmitter g;
  g.dtype = dtype;
  g.m = s.m;
  g.n = s.n;
  g.k = s.k;
  g.trans_a = s.trans_a;
  g.trans_b = s.trans_b;
  g.has_epilogue = s.alpha != 1.0 || s.has_c || act_probe != "v";
  g.epilogue = [&ctx, s, dtype](const std::string& v, const std::string& i,
                                const std::string& j) -> Result<std::string> {
    std::string e = s.alpha == 1.0 ? v : CLiteral(dtype, s.alpha) + " * " + v;
    if (s.has_c) {
      std::string index;  // C broadcast to [m, n]
      if (s.c_rows != 1) index = "(" + i + ")" + (s.c_cols != 1 ? " * " + S(s.c_cols) : "");
      if (s.c_cols != 1) index += (index.empty() ? "" : " + ") + j;
      const std::string c = "in2[" + (index.empty() ? std::string("0") : index) + "]";
      e += " + " + (s.beta == 1.0 ? c : CLiteral(dtype, s.beta) + " * " + c);
    }
    return ctx.Activation(e);
  };
  if (s.m == 0 || s.n == 0) {  // empty output
    *body = UnusedParams(ctx.node, {0, 1, 2}) + "  (void)out0;\n";
    return Status::Ok();
  }
  const std::string t = CType(dtype);
  CodeWriter w;
  w.Line("const " + t + "* restrict a = in0;");
  w.Line("const " + t + "* restrict b = in1;");
  w.Line(t + "* restrict y = out0;");
  MLF_RETURN_IF_ERROR(g.Emit(w));
  *body = w.str();
  return Status::Ok();
}

}  // namespace

bool GemmSuitsGemvKernel(const ir::Node& node, const ir::Graph& graph) {
  if (node.op != "Gemm" || !node.HasInput(1) || node.attrs.count(kWeightLayoutAttr)) return false;
  const ir::Value& b = graph.value(node.inputs[1]);
  if (!b.is_constant() || b.shape.size() != 2) return false;
  auto s = ComputeGemmShape(node, graph);
  if (!s.ok() || !GemvShapeSuits(node, graph, *s)) return false;
  // The packed weight replaces the original: nothing else may read it.
  int readers = 0;
  for (const ir::Node& n : graph.nodes) {
    for (int id : n.inputs) readers += id == node.inputs[1];
  }
  for (int id : graph.outputs) readers += id == node.inputs[1];
  return readers == 1;
}

namespace {

uint64_t MatMulMacs(const ir::Node& node, const ir::Graph& graph) {
  auto s = ComputeMatMulShape(node, graph.value(node.inputs[0]).shape,
                              graph.value(node.inputs[1]).shape);
  if (!s.ok()) return 0;
  return static_cast<uint64_t>(s->BatchCount() * s->m * s->n * s->k);
}

uint64_t GemmMacs(const ir::Node& node, const ir::Graph& graph) {
  auto s = ComputeGemmShape(node, graph);
  if (!s.ok()) return 0;
  return static_cast<uint64_t>(s->m * s->n * s->k);
}

}  // namespace

void RegisterMatMulOps(std::vector<OpDef>* table) {
  table->push_back(
      OpDef{"MatMul", InferMatMul, EvaluateMatMul, EmitMatMul, MatMulMacs, nullptr, false});
  table->push_back(OpDef{"Gemm", InferGemm, EvaluateGemm, EmitGemm, GemmMacs, nullptr, true});
}

}  // namespace mlf::ops
