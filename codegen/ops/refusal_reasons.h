// Why an operator mlfkit does not compile stays out, for the refusal's
// message: the kinds of operator that a compiled, static-shape inference
// model cannot hold (issue 15's point 5), each said in words a user can act
// on. Operators not listed are simply not written yet.
#ifndef MLFKIT_CODEGEN_OPS_REFUSAL_REASONS_H_
#define MLFKIT_CODEGEN_OPS_REFUSAL_REASONS_H_

#include <string>

namespace mlf::ops {

// The reason operator `op` (of the default ONNX domain) is refused, e.g.
// "it draws random numbers, ...", or "" when there is no such reason.
std::string WhyNotSupported(const std::string& op);

}  // namespace mlf::ops

#endif  // MLFKIT_CODEGEN_OPS_REFUSAL_REASONS_H_
