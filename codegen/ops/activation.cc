#include "codegen/ops/activation.h"

#include <cmath>

namespace mlf::ops {

bool HasFusedActivation(const ir::Node& node) { return node.HasAttr("mlf.activation"); }

Result<std::function<float(float)>> FusedActivation(const ir::Node& node) {
  MLF_ASSIGN_OR_RETURN(std::string act, node.String("mlf.activation", ""));
  if (act.empty()) return std::function<float(float)>([](float v) { return v; });
  auto attr = [&](const char* key, double fallback) {
    return node.Float(std::string("mlf.activation.") + key, fallback);
  };
  if (act == "Relu") return std::function<float(float)>([](float v) { return v > 0.0f ? v : 0.0f; });
  if (act == "Clip") {
    MLF_ASSIGN_OR_RETURN(double lo, attr("min", -INFINITY));
    MLF_ASSIGN_OR_RETURN(double hi, attr("max", INFINITY));
    const float l = static_cast<float>(lo), h = static_cast<float>(hi);
    return std::function<float(float)>([l, h](float v) { return std::fmin(std::fmax(v, l), h); });
  }
  if (act == "LeakyRelu") {
    MLF_ASSIGN_OR_RETURN(double alpha, attr("alpha", 0.01));
    const float a = static_cast<float>(alpha);
    return std::function<float(float)>([a](float v) { return v >= 0.0f ? v : v * a; });
  }
  if (act == "Sigmoid") {
    return std::function<float(float)>([](float v) { return 1.0f / (1.0f + std::exp(-v)); });
  }
  if (act == "Tanh") return std::function<float(float)>([](float v) { return std::tanh(v); });
  if (act == "HardSigmoid" || act == "HardSwish") {
    MLF_ASSIGN_OR_RETURN(double alpha, attr("alpha", act == "HardSwish" ? 1.0 / 6 : 0.2));
    MLF_ASSIGN_OR_RETURN(double beta, attr("beta", 0.5));
    const float a = static_cast<float>(alpha), b = static_cast<float>(beta);
    const bool swish = act == "HardSwish";
    return std::function<float(float)>([a, b, swish](float v) {
      const float hs = std::fmin(std::fmax(v * a + b, 0.0f), 1.0f);
      return swish ? v * hs : hs;
    });
  }
  return Unimplemented(node.Describe() + ": fused activation '" + act + "' is not supported");
}

}  // namespace mlf::ops
