#include "tvm/format/tvm_params.h"

#include <cstdio>
#include <unordered_map>
#include <utility>

#include "artifact/base/display_text.h"

namespace mlf {
namespace {

constexpr uint64_t kFileMagic = 0xF7E58D4F05049CB7;
constexpr uint64_t kArrayMagic = 0xDD5E40F096B4A13F;
constexpr int32_t kCpuDeviceType = 1;  // kDLCPU; TVM always saves CPU tensors

// The smallest encodings, used to reject counts the remaining bytes cannot
// hold before reserving memory for them.
constexpr uint64_t kMinNameBytes = 8;    // u64 length, empty name
constexpr uint64_t kMinArrayBytes = 40;  // 0-d header (32) + nbytes (8)

std::string Hex64(uint64_t v) {
  char buf[19];
  std::snprintf(buf, sizeof(buf), "0x%016llX", static_cast<unsigned long long>(v));
  return buf;
}

// Sequential little-endian reads that fail instead of running off the end.
class Cursor {
 public:
  explicit Cursor(std::string_view bytes) : bytes_(bytes) {}

  uint64_t offset() const { return pos_; }
  uint64_t remaining() const { return bytes_.size() - pos_; }

  // `ctx` prefixes the message; `what` names the field being read.
  Result<std::string_view> Take(uint64_t n, const std::string& ctx, const char* what) {
    if (n > remaining()) {
      return DataLoss(ctx + ": truncated at offset " + std::to_string(pos_) + ": " + what +
                      " needs " + std::to_string(n) + " bytes but only " +
                      std::to_string(remaining()) + " remain");
    }
    std::string_view out = bytes_.substr(pos_, n);
    pos_ += n;
    return out;
  }

  // An unsigned little-endian integer of `size` bytes (at most 8).
  Result<uint64_t> Uint(size_t size, const std::string& ctx, const char* what) {
    MLF_ASSIGN_OR_RETURN(std::string_view raw, Take(size, ctx, what));
    uint64_t v = 0;
    for (size_t i = 0; i < size; ++i) {
      v |= uint64_t{static_cast<unsigned char>(raw[i])} << (8 * i);
    }
    return v;
  }

 private:
  std::string_view bytes_;
  uint64_t pos_ = 0;
};

// Prefix of every message.
constexpr char kCtx[] = ".params";

void PutUint(std::string& out, uint64_t v, size_t size) {
  for (size_t i = 0; i < size; ++i) out += static_cast<char>((v >> (8 * i)) & 0xFF);
}

Status CheckFileHeader(Cursor& c) {
  MLF_ASSIGN_OR_RETURN(const uint64_t magic, c.Uint(8, kCtx, "the file magic"));
  if (magic != kFileMagic) {
    return InvalidArgument(std::string(kCtx) + ": bad file magic " + Hex64(magic) +
                           " at offset 0 (expected " + Hex64(kFileMagic) +
                           "); not a TVM .params file");
  }
  // TVM writes 0 and never reads the reserved word back; neither do we.
  return c.Uint(8, kCtx, "the reserved field").status();
}

// Reads a u64 count and checks that `min_entry` bytes per entry could follow.
Result<uint64_t> ReadCount(Cursor& c, const char* what, uint64_t min_entry) {
  const uint64_t at = c.offset();
  MLF_ASSIGN_OR_RETURN(const uint64_t n, c.Uint(8, kCtx, what));
  if (n > c.remaining() / min_entry) {
    return DataLoss(std::string(kCtx) + ": " + what + " " + std::to_string(n) + " at offset " +
                    std::to_string(at) + " cannot fit in the " + std::to_string(c.remaining()) +
                    " remaining bytes");
  }
  return n;
}

Result<std::string> ReadName(Cursor& c, uint64_t i) {
  const std::string ctx = std::string(kCtx) + ": name " + std::to_string(i);
  MLF_ASSIGN_OR_RETURN(const uint64_t len, c.Uint(8, ctx, "the name length"));
  if (len > c.remaining()) {
    return DataLoss(ctx + ": declared length " + std::to_string(len) + " but only " +
                    std::to_string(c.remaining()) + " bytes remain at offset " +
                    std::to_string(c.offset()));
  }
  MLF_ASSIGN_OR_RETURN(std::string_view name, c.Take(len, ctx, "the name"));
  return std::string(name);
}

Result<std::vector<std::string>> ReadNames(Cursor& c) {
  MLF_ASSIGN_OR_RETURN(const uint64_t n, ReadCount(c, "name count", kMinNameBytes));
  std::vector<std::string> names;
  names.reserve(n);
  std::unordered_map<std::string, uint64_t> seen;
  for (uint64_t i = 0; i < n; ++i) {
    MLF_ASSIGN_OR_RETURN(std::string name, ReadName(c, i));
    auto [it, inserted] = seen.emplace(name, i);
    if (!inserted) {
      return InvalidArgument(std::string(kCtx) + ": name " + QuoteForMessage(name) +
                             " appears twice (names " + std::to_string(it->second) + " and " +
                             std::to_string(i) + ")");
    }
    names.push_back(std::move(name));
  }
  return names;
}

// Reads the NDArray header fields before the shape: magic, reserved, device.
Status ReadArrayPrefix(Cursor& c, const std::string& ctx) {
  const uint64_t at = c.offset();
  MLF_ASSIGN_OR_RETURN(const uint64_t magic, c.Uint(8, ctx, "the array magic"));
  if (magic != kArrayMagic) {
    return InvalidArgument(ctx + ": bad array magic " + Hex64(magic) + " at offset " +
                           std::to_string(at) + " (expected " + Hex64(kArrayMagic) + ")");
  }
  MLF_RETURN_IF_ERROR(c.Uint(8, ctx, "the reserved field").status());
  const uint64_t device_at = c.offset();
  MLF_ASSIGN_OR_RETURN(const uint64_t device_type, c.Uint(4, ctx, "device_type"));
  if (static_cast<int32_t>(device_type) != kCpuDeviceType) {
    return InvalidArgument(ctx + ": device_type " +
                           std::to_string(static_cast<int32_t>(device_type)) + " at offset " +
                           std::to_string(device_at) + " is not CPU (1)");
  }
  return c.Uint(4, ctx, "device_id").status();
}

Result<int32_t> ReadNdim(Cursor& c, const std::string& ctx) {
  const uint64_t at = c.offset();
  MLF_ASSIGN_OR_RETURN(const uint64_t raw, c.Uint(4, ctx, "ndim"));
  const int32_t ndim = static_cast<int32_t>(raw);
  if (ndim < 0 || ndim > kTvmParamsMaxNdim) {
    return InvalidArgument(ctx + ": ndim " + std::to_string(ndim) + " at offset " +
                           std::to_string(at) + " is out of range (0 to " +
                           std::to_string(kTvmParamsMaxNdim) + ")");
  }
  return ndim;
}

Result<DType> ReadDType(Cursor& c, const std::string& ctx) {
  const uint64_t at = c.offset();
  MLF_ASSIGN_OR_RETURN(const uint64_t code, c.Uint(1, ctx, "the dtype code"));
  MLF_ASSIGN_OR_RETURN(const uint64_t bits, c.Uint(1, ctx, "the dtype bits"));
  MLF_ASSIGN_OR_RETURN(const uint64_t lanes, c.Uint(2, ctx, "the dtype lanes"));
  Result<DType> dtype = FromDLPack(DLDataType{
      static_cast<uint8_t>(code), static_cast<uint8_t>(bits), static_cast<uint16_t>(lanes)});
  if (!dtype.ok()) {
    return InvalidArgument(ctx + ": dtype at offset " + std::to_string(at) + ": " +
                           dtype.status().message());
  }
  return dtype;
}

Result<std::vector<int64_t>> ReadShape(Cursor& c, const std::string& ctx, int32_t ndim) {
  // ndim <= kTvmParamsMaxNdim, so this reservation is small.
  std::vector<int64_t> shape;
  shape.reserve(ndim);
  for (int32_t d = 0; d < ndim; ++d) {
    MLF_ASSIGN_OR_RETURN(const uint64_t dim, c.Uint(8, ctx, "the shape"));
    shape.push_back(static_cast<int64_t>(dim));
  }
  return shape;
}

// Reads nbytes, checks it against dtype and shape, then takes the data.
Result<std::string> ReadData(Cursor& c, const std::string& ctx, DType dtype,
                             const std::vector<int64_t>& shape) {
  Result<uint64_t> expected = ByteSize(dtype, shape);
  if (!expected.ok()) return InvalidArgument(ctx + ": " + expected.status().message());
  const uint64_t at = c.offset();
  MLF_ASSIGN_OR_RETURN(const uint64_t nbytes, c.Uint(8, ctx, "nbytes"));
  if (nbytes != *expected) {
    return InvalidArgument(ctx + ": nbytes " + std::to_string(static_cast<int64_t>(nbytes)) +
                           " at offset " + std::to_string(at) + " does not match " +
                           DTypeName(dtype) + " " + FormatShape(shape) + " (" +
                           std::to_string(*expected) + " bytes)");
  }
  if (nbytes > c.remaining()) {
    return DataLoss(ctx + ": declared " + std::to_string(nbytes) + " bytes but only " +
                    std::to_string(c.remaining()) + " remain at offset " +
                    std::to_string(c.offset()));
  }
  MLF_ASSIGN_OR_RETURN(std::string_view data, c.Take(nbytes, ctx, "the data"));
  return std::string(data);
}

Result<NamedTensor> ReadArray(Cursor& c, uint64_t i, const std::string& name) {
  const std::string ctx =
      std::string(kCtx) + ": tensor " + std::to_string(i) + " (" + QuoteForMessage(name) + ")";
  MLF_RETURN_IF_ERROR(ReadArrayPrefix(c, ctx));
  MLF_ASSIGN_OR_RETURN(const int32_t ndim, ReadNdim(c, ctx));
  NamedTensor t;
  t.name = name;
  MLF_ASSIGN_OR_RETURN(t.dtype, ReadDType(c, ctx));
  MLF_ASSIGN_OR_RETURN(t.shape, ReadShape(c, ctx, ndim));
  MLF_ASSIGN_OR_RETURN(t.data, ReadData(c, ctx, t.dtype, t.shape));
  return t;
}

void WriteArray(std::string& out, const NamedTensor& t) {
  const DLDataType dl = ToDLPack(t.dtype);
  PutUint(out, kArrayMagic, 8);
  PutUint(out, 0, 8);
  PutUint(out, kCpuDeviceType, 4);
  PutUint(out, 0, 4);  // device_id
  PutUint(out, t.shape.size(), 4);
  PutUint(out, dl.code, 1);
  PutUint(out, dl.bits, 1);
  PutUint(out, dl.lanes, 2);
  for (int64_t dim : t.shape) PutUint(out, static_cast<uint64_t>(dim), 8);
  PutUint(out, t.data.size(), 8);
  out += t.data;
}

}  // namespace

Result<std::vector<NamedTensor>> ReadTvmParams(std::string_view bytes) {
  Cursor c(bytes);
  MLF_RETURN_IF_ERROR(CheckFileHeader(c));
  MLF_ASSIGN_OR_RETURN(std::vector<std::string> names, ReadNames(c));
  const uint64_t count_at = c.offset();
  MLF_ASSIGN_OR_RETURN(const uint64_t arrays, ReadCount(c, "array count", kMinArrayBytes));
  if (arrays != names.size()) {
    return InvalidArgument(std::string(kCtx) + ": " + std::to_string(names.size()) + " names but " +
                           std::to_string(arrays) + " arrays (array count at offset " +
                           std::to_string(count_at) + ")");
  }
  std::vector<NamedTensor> tensors;
  tensors.reserve(arrays);
  for (uint64_t i = 0; i < arrays; ++i) {
    MLF_ASSIGN_OR_RETURN(NamedTensor t, ReadArray(c, i, names[i]));
    tensors.push_back(std::move(t));
  }
  if (c.remaining() != 0) {
    return InvalidArgument(std::string(kCtx) + ": " + std::to_string(c.remaining()) +
                           " trailing bytes after the last tensor at offset " +
                           std::to_string(c.offset()));
  }
  return tensors;
}

std::string WriteTvmParams(const std::vector<NamedTensor>& tensors) {
  std::string out;
  PutUint(out, kFileMagic, 8);
  PutUint(out, 0, 8);
  PutUint(out, tensors.size(), 8);
  for (const NamedTensor& t : tensors) {
    PutUint(out, t.name.size(), 8);
    out += t.name;
  }
  PutUint(out, tensors.size(), 8);
  for (const NamedTensor& t : tensors) WriteArray(out, t);
  return out;
}

}  // namespace mlf
