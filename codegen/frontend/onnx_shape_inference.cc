#include "codegen/frontend/onnx_shape_inference.h"

#include <onnx/defs/schema.h>
#include <onnx/defs/shape_inference.h>
#include <onnx/shape_inference/implementation.h>

#include <climits>
#include <exception>
#include <map>
#include <utility>

namespace mlf::frontend {
namespace {

// Starts every message of a failed precondition, so that it can be found in
// libonnx's report of all node errors.
constexpr char kMarker[] = "rank precondition: ";

// Failed preconditions in this thread's current InferOnnxShapes.
thread_local int guard_failures = 0;

// Inputs of the Conv family: X, and W at `w`.
template <size_t w>
bool WeightHasTheRankOfX(onnx::InferenceContext& ctx, const char* op, bool transpose) {
  if (!onnx::hasInputShape(ctx, 0)) return true;  // libonnx stops here itself
  const int x_rank = onnx::getInputShape(ctx, 0).dim_size();
  if (!onnx::hasInputShape(ctx, w)) {
    // Conv and friends return early without W's shape; ConvTranspose would
    // read it (or dereference a null type).
    return !transpose;
  }
  const int w_rank = onnx::getInputShape(ctx, w).dim_size();
  if (w_rank != x_rank) {
    fail_shape_inference(kMarker, op, ": W has rank ", w_rank, " but X has rank ", x_rank,
                         "; W must have the rank of X");
  }
  return true;
}

bool ConvRanks(onnx::InferenceContext& ctx) { return WeightHasTheRankOfX<1>(ctx, "Conv", false); }
bool ConvIntegerRanks(onnx::InferenceContext& ctx) {
  return WeightHasTheRankOfX<1>(ctx, "ConvInteger", false);
}
bool QLinearConvRanks(onnx::InferenceContext& ctx) {
  return WeightHasTheRankOfX<3>(ctx, "QLinearConv", false);
}
bool ConvTransposeRanks(onnx::InferenceContext& ctx) {
  return WeightHasTheRankOfX<1>(ctx, "ConvTranspose", true);
}

// LayerNormalization-17 indexes X's dims from axis + rank, which is negative
// for axis < -rank.
bool LayerNormalizationAxis(onnx::InferenceContext& ctx) {
  if (!onnx::hasInputShape(ctx, 0)) return true;
  const int rank = onnx::getInputShape(ctx, 0).dim_size();
  const onnx::AttributeProto* attr = ctx.getAttribute("axis");
  const int64_t axis = attr != nullptr ? attr->i() : -1;
  if (axis < -rank || axis >= rank) {
    fail_shape_inference(kMarker, "LayerNormalization: axis ", axis, " is out of range for X of rank ",
                         rank);
  }
  return true;
}

// Input `index` of `op`, when present with a shape, must have rank `rank`.
void RequireRank(onnx::InferenceContext& ctx, const char* op, size_t index, int rank,
                 const char* what) {
  if (!onnx::hasInputShape(ctx, index)) return;
  const int actual = onnx::getInputShape(ctx, index).dim_size();
  if (actual != rank) {
    fail_shape_inference(kMarker, op, ": ", what, " has rank ", actual, ", expected ", rank);
  }
}

// STFT-17 reads the signal's dims 0..2 without checking its rank (ranks 0 and
// 1 crash); the ranks are the ones the operator defines. Its shape also
// ignores `onesided`: it gives frame_length bins where a one-sided transform
// has frame_length / 2 + 1 (ONNX's own test_stft declares and expects 9 of
// 16), so with onesided (the default) only the element type is propagated and
// mlfkit's shape rule (codegen/ops/dft.cc) gives the shape.
bool StftRanks(onnx::InferenceContext& ctx) {
  RequireRank(ctx, "STFT", 0, 3, "signal");
  RequireRank(ctx, "STFT", 1, 0, "frame_step");
  RequireRank(ctx, "STFT", 2, 1, "window");
  RequireRank(ctx, "STFT", 3, 0, "frame_length");
  const onnx::AttributeProto* onesided = ctx.getAttribute("onesided");
  return onesided != nullptr && onesided->i() == 0;
}

// Gemm-6 reads dims 0 and 1 of A and B whatever their ranks.
bool GemmRanks(onnx::InferenceContext& ctx) {
  RequireRank(ctx, "Gemm", 0, 2, "A");
  RequireRank(ctx, "Gemm", 1, 2, "B");
  return true;
}

// RNN-1, GRU-3 and LSTM-1 read X's dims 0 and 1 whatever its rank; the ranks
// are the ones the operators define (all versions).
void RecurrentRanks(onnx::InferenceContext& ctx, const char* op) {
  RequireRank(ctx, op, 0, 3, "X");
  RequireRank(ctx, op, 1, 3, "W");
  RequireRank(ctx, op, 2, 3, "R");
  RequireRank(ctx, op, 3, 2, "B");
  RequireRank(ctx, op, 4, 1, "sequence_lens");
  RequireRank(ctx, op, 5, 3, "initial_h");
}
bool RnnRanks(onnx::InferenceContext& ctx) {
  RecurrentRanks(ctx, "RNN");
  return true;
}
bool GruRanks(onnx::InferenceContext& ctx) {
  RecurrentRanks(ctx, "GRU");
  return true;
}
bool LstmRanks(onnx::InferenceContext& ctx) {
  RecurrentRanks(ctx, "LSTM");
  RequireRank(ctx, "LSTM", 6, 3, "initial_c");
  RequireRank(ctx, "LSTM", 7, 2, "P");
  return true;
}

// A guarded operator: every version of it runs `check` first, which throws
// onnx::InferenceError when the precondition fails, and returns false when
// the original function must not run (only the element type is propagated).
struct GuardedOp {
  const char* name;
  bool (*check)(onnx::InferenceContext&);
};

constexpr GuardedOp kGuardedOps[] = {
    {"Conv", ConvRanks},
    {"ConvInteger", ConvIntegerRanks},
    {"QLinearConv", QLinearConvRanks},
    {"ConvTranspose", ConvTransposeRanks},
    {"LayerNormalization", LayerNormalizationAxis},
    {"STFT", StftRanks},
    {"Gemm", GemmRanks},
    {"RNN", RnnRanks},
    {"GRU", GruRanks},
    {"LSTM", LstmRanks},
};

onnx::InferenceFunction Guard(const GuardedOp& op, onnx::InferenceFunction original) {
  return [op, original = std::move(original)](onnx::InferenceContext& ctx) {
    bool run_original = false;
    try {
      run_original = op.check(ctx);
    } catch (const onnx::InferenceError&) {
      ++guard_failures;
      throw;
    }
    if (run_original) {
      original(ctx);
    } else {
      onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
    }
  };
}

// The default registry, with every version of the guarded operators replaced
// by a copy whose inference function is guarded. Immutable once built.
class GuardedRegistry final : public onnx::ISchemaRegistry {
 public:
  GuardedRegistry() {
    for (const GuardedOp& op : kGuardedOps) {
      // Walk the versions from the newest down: each lookup with a maximum
      // version below the previous schema's since_version finds the next older.
      int max_version = INT_MAX;
      while (const onnx::OpSchema* s =
                 onnx::OpSchemaRegistry::Schema(op.name, max_version, onnx::ONNX_DOMAIN)) {
        onnx::OpSchema copy = *s;
        copy.TypeAndShapeInferenceFunction(Guard(op, s->GetTypeAndShapeInferenceFunction()));
        guarded_.emplace(s, std::move(copy));
        max_version = s->since_version() - 1;
        if (max_version < 1) break;
      }
    }
  }

  const onnx::OpSchema* GetSchema(const std::string& key, const int max_inclusive_version,
                                  const std::string& domain) const override {
    const onnx::OpSchema* s =
        onnx::OpSchemaRegistry::Schema(key, max_inclusive_version, domain);
    auto it = guarded_.find(s);
    return it == guarded_.end() ? s : &it->second;
  }

  int size() const { return static_cast<int>(guarded_.size()); }

 private:
  // Keyed by the default registry's schema (its address is stable: the
  // registry's map lives for the whole process).
  std::map<const onnx::OpSchema*, onnx::OpSchema> guarded_;
};

const GuardedRegistry& Registry() {
  static const GuardedRegistry* const registry = new GuardedRegistry();  // never destroyed
  return *registry;
}

// From libonnx's report of node errors ("... (op_type:Gemm, node name: g):
// [ShapeInferenceError] rank precondition: Gemm: B has rank 1, expected 2"),
// the first failed precondition as "node 'g' (Gemm): B has rank 1, expected 2".
std::string FailedRankPrecondition(const std::string& report) {
  const size_t marker = report.find(kMarker);
  if (marker == std::string::npos) return report;
  size_t end = report.find('\n', marker);
  if (end == std::string::npos) end = report.size();
  std::string what = report.substr(marker + sizeof kMarker - 1, end - marker - sizeof kMarker + 1);
  const size_t colon = what.find(": ");  // after the op name, which the node part repeats
  const size_t node = report.rfind("(op_type:", marker);
  if (node == std::string::npos || colon == std::string::npos) return what;
  const size_t op_end = report.find_first_of(",)", node);
  const std::string op = report.substr(node + 9, op_end - node - 9);
  const std::string name_key = ", node name: ";
  std::string name;
  if (report.compare(op_end, name_key.size(), name_key) == 0) {
    const size_t name_end = report.find("): ", op_end);
    name = report.substr(op_end + name_key.size(), name_end - op_end - name_key.size());
  }
  return (name.empty() ? "a node" : "node '" + name + "'") + " (" + op + "): " +
         what.substr(colon + 2);
}

}  // namespace

Status InferOnnxShapes(onnx::ModelProto& model) {
  guard_failures = 0;
  try {
    onnx::shape_inference::InferShapes(model, &Registry());
  } catch (const std::exception& e) {
    return InvalidArgument(std::string("ONNX shape inference failed: ") + e.what());
  }
  if (guard_failures == 0) return Status::Ok();
  // The model is invalid, and libonnx's version converter would read out of
  // bounds on it too. Inference again, in the mode that throws every node
  // error with the node's name, finds the node.
  guard_failures = 0;
  try {
    onnx::shape_inference::InferShapes(model, &Registry(), onnx::ShapeInferenceOptions(false, 1));
  } catch (const std::exception& e) {
    return InvalidArgument("the ONNX model is invalid: " + FailedRankPrecondition(e.what()));
  }
  return Internal("an ONNX rank precondition failed once and not again");
}

const std::vector<std::string>& GuardedOnnxOps() {
  static const std::vector<std::string>* const ops = [] {
    auto* v = new std::vector<std::string>();
    for (const GuardedOp& op : kGuardedOps) v->push_back(op.name);
    return v;
  }();
  return *ops;
}

int GuardedOnnxSchemaCount() { return Registry().size(); }

}  // namespace mlf::frontend
