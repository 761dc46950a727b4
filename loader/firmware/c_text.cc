#include "loader/firmware/c_text.h"

#include <cstdio>

#include "artifact/format/c_name.h"

namespace mlf::firmware {

std::string CByteInitializer(std::string_view bytes) {
  if (bytes.empty()) return "{0}";
  std::string out = "{";
  out.reserve(bytes.size() * 6 + bytes.size() / 16 * 4 + 8);
  for (size_t i = 0; i < bytes.size(); ++i) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02x,", static_cast<unsigned char>(bytes[i]));
    out += i % 16 == 0 ? "\n  " : " ";
    out += hex;
  }
  return out + "\n}";
}

const char* CElementType(DType dtype) {
  switch (dtype) {
    case DType::kBool:
      return "uint8_t";
    case DType::kInt8:
      return "int8_t";
    case DType::kInt16:
      return "int16_t";
    case DType::kInt32:
      return "int32_t";
    case DType::kInt64:
      return "int64_t";
    case DType::kUInt8:
      return "uint8_t";
    case DType::kUInt16:
      return "uint16_t";
    case DType::kUInt32:
      return "uint32_t";
    case DType::kUInt64:
      return "uint64_t";
    case DType::kFloat16:
      return "uint16_t";
    case DType::kBFloat16:
      return "uint16_t";
    case DType::kFloat32:
      return "float";
    case DType::kFloat64:
      return "double";
  }
  return "uint8_t";
}

const char* FormatFunction(DType dtype) {
  switch (dtype) {
    case DType::kBool:
      return "mlf_format_bool";
    case DType::kInt8:
      return "mlf_format_i8";
    case DType::kInt16:
      return "mlf_format_i16";
    case DType::kInt32:
      return "mlf_format_i32";
    case DType::kInt64:
      return "mlf_format_i64";
    case DType::kUInt8:
      return "mlf_format_u8";
    case DType::kUInt16:
      return "mlf_format_u16";
    case DType::kUInt32:
      return "mlf_format_u32";
    case DType::kUInt64:
      return "mlf_format_u64";
    case DType::kFloat16:
      return "mlf_format_f16";
    case DType::kBFloat16:
      return "mlf_format_bf16";
    case DType::kFloat32:
      return "mlf_format_f32";
    case DType::kFloat64:
      return "mlf_format_f64";
  }
  return "mlf_format_u8";
}

bool IsBuildSafePath(std::string_view path) {
  if (!IsSafeMemberPath(path)) return false;
  char previous = '/';
  for (char c : path) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-' || c == '+' || c == '.' || c == '/';
    if (!ok || (c == '-' && previous == '/')) return false;
    previous = c;
  }
  return true;
}

}  // namespace mlf::firmware
