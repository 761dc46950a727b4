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
    fail_shape_inference(op, ": W has rank ", w_rank, " but X has rank ", x_rank,
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
    fail_shape_inference("LayerNormalization: axis ", axis, " is out of range for X of rank ",
                         rank);
  }
  return true;
}

// Input `index`, when present with a shape, must have rank `rank`.
void RequireRank(onnx::InferenceContext& ctx, size_t index, int rank, const char* what) {
  if (!onnx::hasInputShape(ctx, index)) return;
  const int actual = onnx::getInputShape(ctx, index).dim_size();
  if (actual != rank) {
    fail_shape_inference("STFT: ", what, " has rank ", actual, ", expected ", rank);
  }
}

// STFT-17 reads the signal's dims 0..2 without checking its rank (a rank-1
// signal crashes); the ranks are the ones the operator defines.
bool StftRanks(onnx::InferenceContext& ctx) {
  RequireRank(ctx, 0, 3, "signal");
  RequireRank(ctx, 1, 0, "frame_step");
  RequireRank(ctx, 2, 1, "window");
  RequireRank(ctx, 3, 0, "frame_length");
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
};

onnx::InferenceFunction Guard(const GuardedOp& op, onnx::InferenceFunction original) {
  return [op, original = std::move(original)](onnx::InferenceContext& ctx) {
    if (op.check(ctx)) {
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

}  // namespace

Status InferOnnxShapes(onnx::ModelProto& model) {
  try {
    onnx::shape_inference::InferShapes(model, &Registry());
  } catch (const std::exception& e) {
    return InvalidArgument(std::string("ONNX shape inference failed: ") + e.what());
  }
  return Status::Ok();
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
