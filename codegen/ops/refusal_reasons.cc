#include "codegen/ops/refusal_reasons.h"

#include <set>

namespace mlf::ops {
namespace {

struct Reason {
  std::set<std::string> ops;
  const char* why;
};

const Reason kReasons[] = {
    {{"RandomNormal", "RandomNormalLike", "RandomUniform", "RandomUniformLike", "Bernoulli",
      "Multinomial"},
     "it draws random numbers, and a compiled model gives the same outputs for the same inputs"},
    {{"NonZero", "NonMaxSuppression", "Unique"},
     "its output shape depends on the input values, and compiled models have static shapes"},
    {{"SequenceConstruct", "SequenceEmpty", "SequenceAt", "SequenceErase", "SequenceInsert",
      "SequenceLength", "SequenceMap", "SplitToSequence", "ConcatFromSequence", "Optional",
      "OptionalHasElement", "OptionalGetElement"},
     "it works on sequences or optionals (sequences, maps and optionals are not supported)"},
    {{"StringNormalizer", "RegexFullMatch", "StringConcat", "StringSplit"},
     "it works on strings (dtype STRING is not supported)"},
};

}  // namespace

std::string WhyNotSupported(const std::string& op) {
  for (const Reason& r : kReasons) {
    if (r.ops.count(op)) return r.why;
  }
  return "";
}

}  // namespace mlf::ops
