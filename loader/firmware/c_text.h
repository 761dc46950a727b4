// Pieces of generated C and build-file text: byte arrays, element types, and
// the check that keeps archive paths from injecting anything into a Makefile
// or CMakeLists.txt. Literals and comments: artifact/base/c_text.h, included here.
#ifndef MLFKIT_LOADER_FIRMWARE_C_TEXT_H_
#define MLFKIT_LOADER_FIRMWARE_C_TEXT_H_

#include <string>
#include <string_view>

#include "artifact/base/c_text.h"
#include "artifact/format/dtype.h"

namespace mlf::firmware {

// The initializer of a byte array, "{\n  0x00, 0x01, ...\n}", sixteen bytes
// per line. Empty data gives "{0}" (C has no empty initializers).
std::string CByteInitializer(std::string_view bytes);

// The C element type that holds one `dtype` element: "float", "int8_t",
// "uint16_t" (float16 and bfloat16: raw bits), "uint8_t" (bool), ...
const char* CElementType(DType dtype);

// The name of the element formatter in templates/mlf_print.h ("mlf_format_f32").
const char* FormatFunction(DType dtype);

// True when `path` can go into a Makefile and a CMakeLists.txt as is: a safe
// relative path (artifact/format/c_name.h) of letters, digits and "_-+./", no
// component starting with '-'. Anything else could be read by make or cmake
// as syntax (spaces, '$', '#', ';', quotes), so such archives are refused.
bool IsBuildSafePath(std::string_view path);

}  // namespace mlf::firmware

#endif  // MLFKIT_LOADER_FIRMWARE_C_TEXT_H_
