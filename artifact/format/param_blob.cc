#include "artifact/format/param_blob.h"

#include <algorithm>
#include <limits>
#include <unordered_map>
#include <utility>

#include "artifact/base/display_text.h"

namespace mlf {
namespace {

std::string Range(uint64_t begin, uint64_t end) {
  return "[" + std::to_string(begin) + ", " + std::to_string(end) + ")";
}

uint64_t AlignUp(uint64_t n) {
  return (n + kParamAlignment - 1) / kParamAlignment * kParamAlignment;
}

// Shape errors keep their text but are reported as a bad index entry.
Status ShapeError(const std::string& name, const Status& status) {
  return InvalidArgument("parameter " + QuoteForMessage(name) + ": " + status.message());
}

// The checks that concern one entry on its own.
Status ValidateEntry(const ParamTensor& t, size_t position, uint64_t blob_size) {
  if (t.name.empty()) {
    return InvalidArgument("parameter " + std::to_string(position) + ": name is empty");
  }
  const std::string who = "parameter " + QuoteForMessage(t.name) + ": ";
  if (t.offset % kParamAlignment != 0) {
    return InvalidArgument(who + "offset " + std::to_string(t.offset) + " is not " +
                           std::to_string(kParamAlignment) + "-byte aligned");
  }
  Result<uint64_t> expected = ByteSize(t.dtype, t.shape);
  if (!expected.ok()) return ShapeError(t.name, expected.status());
  if (t.size_bytes != *expected) {
    return InvalidArgument(who + "size_bytes " + std::to_string(t.size_bytes) + " does not match " +
                           DTypeName(t.dtype) + " " + FormatShape(t.shape) + " (" +
                           std::to_string(*expected) + " bytes)");
  }
  if (t.size_bytes > std::numeric_limits<uint64_t>::max() - t.offset) {
    return InvalidArgument(who + "offset " + std::to_string(t.offset) + " plus size " +
                           std::to_string(t.size_bytes) + " overflows 64 bits");
  }
  if (t.offset + t.size_bytes > blob_size) {
    return InvalidArgument(who + "bytes " + Range(t.offset, t.offset + t.size_bytes) +
                           " extend past the end of the blob (" + std::to_string(blob_size) +
                           " bytes)");
  }
  return Status::Ok();
}

Status CheckUniqueNames(const std::vector<ParamTensor>& index) {
  std::unordered_map<std::string, size_t> first_seen;
  for (size_t i = 0; i < index.size(); ++i) {
    auto [it, inserted] = first_seen.emplace(index[i].name, i);
    if (!inserted) {
      return InvalidArgument("parameter " + QuoteForMessage(index[i].name) +
                             " appears twice (entries " + std::to_string(it->second) + " and " +
                             std::to_string(i) + ")");
    }
  }
  return Status::Ok();
}

// Sorted by offset, any overlap shows up between neighbours, so one pass over
// the non-empty ranges suffices. Empty tensors occupy no bytes.
Status CheckNoOverlap(const std::vector<ParamTensor>& index) {
  std::vector<size_t> order;
  for (size_t i = 0; i < index.size(); ++i) {
    if (index[i].size_bytes > 0) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return index[a].offset < index[b].offset; });
  for (size_t k = 1; k < order.size(); ++k) {
    const ParamTensor& a = index[order[k - 1]];
    const ParamTensor& b = index[order[k]];
    if (b.offset < a.offset + a.size_bytes) {
      return InvalidArgument("parameters " + QuoteForMessage(a.name) + " and " +
                             QuoteForMessage(b.name) +
                             " overlap: " + Range(a.offset, a.offset + a.size_bytes) + " and " +
                             Range(b.offset, b.offset + b.size_bytes));
    }
  }
  return Status::Ok();
}

}  // namespace

Status ParamBlobBuilder::Add(std::string name, DType dtype, std::vector<int64_t> shape,
                             std::string_view bytes) {
  if (finished_) return FailedPrecondition("ParamBlobBuilder::Add after Finish");
  if (name.empty()) return InvalidArgument("parameter name is empty");
  if (names_.count(name) > 0) {
    return InvalidArgument("parameter " + QuoteForMessage(name) + " is added twice");
  }
  Result<uint64_t> expected = ByteSize(dtype, shape);
  if (!expected.ok()) return ShapeError(name, expected.status());
  if (bytes.size() != *expected) {
    return InvalidArgument("parameter " + QuoteForMessage(name) + ": " +
                           std::to_string(bytes.size()) + " bytes given but " + DTypeName(dtype) +
                           " " + FormatShape(shape) + " needs " + std::to_string(*expected));
  }
  const uint64_t offset = AlignUp(blob_.size());
  blob_.resize(offset, '\0');
  blob_.append(bytes.data(), bytes.size());
  size_ = blob_.size();
  names_.insert(name);
  index_.push_back(ParamTensor{std::move(name), dtype, std::move(shape), offset,
                               static_cast<uint64_t>(bytes.size())});
  return Status::Ok();
}

Result<std::string> ParamBlobBuilder::Finish() {
  if (finished_) return FailedPrecondition("ParamBlobBuilder::Finish called twice");
  finished_ = true;
  std::string blob = std::move(blob_);
  blob_.clear();
  return blob;
}

Status ValidateParamIndex(const std::vector<ParamTensor>& index, uint64_t blob_size) {
  for (size_t i = 0; i < index.size(); ++i) {
    MLF_RETURN_IF_ERROR(ValidateEntry(index[i], i, blob_size));
  }
  MLF_RETURN_IF_ERROR(CheckUniqueNames(index));
  return CheckNoOverlap(index);
}

}  // namespace mlf
