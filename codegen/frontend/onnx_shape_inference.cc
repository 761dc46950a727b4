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

// A guarded operator: where its data input X and its weight W are.
struct GuardedOp {
  const char* name;
  size_t x;
  size_t w;
  bool transpose;  // ConvTranspose reads W's shape without checking it exists
};

constexpr GuardedOp kGuardedOps[] = {
    {"Conv", 0, 1, false},
    {"ConvInteger", 0, 1, false},
    {"QLinearConv", 0, 3, false},
    {"ConvTranspose", 0, 1, true},
};

// The precondition libonnx 1.12 assumes without checking. Returns whether the
// original inference function may run; fails the node's inference (throws
// onnx::InferenceError, which libonnx records against the node) on a rank
// mismatch.
bool RanksAllowInference(onnx::InferenceContext& ctx, const GuardedOp& op) {
  if (!onnx::hasInputShape(ctx, op.x)) return true;  // libonnx stops here itself
  const int x_rank = onnx::getInputShape(ctx, op.x).dim_size();
  if (!onnx::hasInputShape(ctx, op.w)) {
    // Conv and friends return early without W's shape; ConvTranspose would
    // read it (or dereference a null type).
    return !op.transpose;
  }
  const int w_rank = onnx::getInputShape(ctx, op.w).dim_size();
  if (w_rank != x_rank) {
    fail_shape_inference(op.name, ": W has rank ", w_rank, " but X has rank ", x_rank,
                         "; W must have the rank of X");
  }
  return true;
}

onnx::InferenceFunction Guard(const GuardedOp& op, onnx::InferenceFunction original) {
  return [op, original = std::move(original)](onnx::InferenceContext& ctx) {
    if (RanksAllowInference(ctx, op)) {
      original(ctx);
    } else {
      onnx::propagateElemTypeFromInputToOutput(ctx, op.x, 0);
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
