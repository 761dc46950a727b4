#include "codegen/ops/broadcast.h"

#include <algorithm>

#include "artifact/format/dtype.h"

namespace mlf::ops {

Result<std::vector<int64_t>> BroadcastShapes(const std::vector<int64_t>& a,
                                             const std::vector<int64_t>& b) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank);
  for (size_t k = 0; k < rank; ++k) {
    // Axis k of the output, counted from the left; operands are right-aligned.
    const int64_t da = k + a.size() >= rank ? a[k + a.size() - rank] : 1;
    const int64_t db = k + b.size() >= rank ? b[k + b.size() - rank] : 1;
    if (da == db || db == 1) {
      out[k] = da;
    } else if (da == 1) {
      out[k] = db;
    } else {
      return InvalidArgument("shapes " + FormatShape(a) + " and " + FormatShape(b) +
                             " are not broadcastable (" + std::to_string(da) + " vs " +
                             std::to_string(db) + " at output axis " + std::to_string(k) + ")");
    }
  }
  return out;
}

std::vector<int64_t> ContiguousStrides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size());
  int64_t s = 1;
  for (size_t k = shape.size(); k-- > 0;) {
    strides[k] = s;
    s *= shape[k];
  }
  return strides;
}

std::vector<int64_t> BroadcastStrides(const std::vector<int64_t>& in,
                                      const std::vector<int64_t>& out) {
  const std::vector<int64_t> own = ContiguousStrides(in);
  std::vector<int64_t> strides(out.size(), 0);
  const size_t lead = out.size() - in.size();
  for (size_t k = 0; k < in.size(); ++k) {
    strides[lead + k] = in[k] == 1 ? 0 : own[k];
  }
  return strides;
}

LoopNest LoopNest::Collapse(const std::vector<int64_t>& shape,
                            const std::vector<std::vector<int64_t>>& strides) {
  LoopNest nest;
  nest.strides.resize(strides.size());
  for (size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] == 1) continue;
    bool merge = !nest.dims.empty() && shape[k] != 0 && nest.dims.back() != 0;
    for (size_t op = 0; merge && op < strides.size(); ++op) {
      merge = nest.strides[op].back() == strides[op][k] * shape[k];
    }
    if (merge) {
      nest.dims.back() *= shape[k];
      for (size_t op = 0; op < strides.size(); ++op) nest.strides[op].back() = strides[op][k];
    } else {
      nest.dims.push_back(shape[k]);
      for (size_t op = 0; op < strides.size(); ++op) nest.strides[op].push_back(strides[op][k]);
    }
  }
  return nest;
}

std::vector<std::vector<uint64_t>> LoopNest::Offsets() const {
  uint64_t count = 1;
  for (int64_t d : dims) count *= static_cast<uint64_t>(d);
  std::vector<std::vector<uint64_t>> offsets(strides.size(), std::vector<uint64_t>(count));
  std::vector<int64_t> index(dims.size(), 0);
  for (uint64_t it = 0; it < count; ++it) {
    for (size_t op = 0; op < strides.size(); ++op) {
      int64_t off = 0;
      for (size_t k = 0; k < dims.size(); ++k) off += index[k] * strides[op][k];
      offsets[op][it] = static_cast<uint64_t>(off);
    }
    for (size_t k = dims.size(); k-- > 0;) {
      if (++index[k] < dims[k]) break;
      index[k] = 0;
    }
  }
  return offsets;
}

std::string LoopNest::Emit(const std::function<std::string(const std::vector<std::string>&)>& body,
                           int indent) const {
  for (int64_t d : dims) {
    if (d == 0) return "";
  }
  std::vector<std::string> index;
  for (const std::vector<int64_t>& s : strides) {
    std::string e;
    for (size_t k = 0; k < dims.size(); ++k) {
      if (s[k] == 0) continue;
      const std::string term = "i" + std::to_string(k) + (s[k] == 1 ? "" : " * " + std::to_string(s[k]));
      e += (e.empty() ? "" : " + ") + term;
    }
    index.push_back(e.empty() ? "0" : e);
  }
  std::string out;
  for (size_t k = 0; k < dims.size(); ++k) {
    const std::string i = "i" + std::to_string(k);
    out += std::string(indent + 2 * k, ' ') + "for (size_t " + i + " = 0; " + i + " < " +
           std::to_string(dims[k]) + "; ++" + i + ") {\n";
  }
  const std::string pad(indent + 2 * dims.size(), ' ');
  std::string inner = body(index);
  // Indent every line of the body.
  size_t start = 0;
  while (start < inner.size()) {
    size_t end = inner.find('\n', start);
    if (end == std::string::npos) end = inner.size();
    out += pad + inner.substr(start, end - start) + "\n";
    start = end + 1;
  }
  for (size_t k = dims.size(); k-- > 0;) out += std::string(indent + 2 * k, ' ') + "}\n";
  return out;
}

Result<BroadcastPlan> PlanBroadcast(const std::vector<std::vector<int64_t>>& inputs) {
  BroadcastPlan p;
  for (size_t k = 0; k < inputs.size(); ++k) {
    if (k == 0) {
      p.out = inputs[0];
    } else {
      MLF_ASSIGN_OR_RETURN(p.out, BroadcastShapes(p.out, inputs[k]));
    }
  }
  std::vector<std::vector<int64_t>> strides = {ContiguousStrides(p.out)};
  for (const std::vector<int64_t>& in : inputs) strides.push_back(BroadcastStrides(in, p.out));
  p.nest = LoopNest::Collapse(p.out, strides);
  return p;
}

}  // namespace mlf::ops
