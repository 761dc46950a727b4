// Vendor libraries the user adds to a firmware project (`mlf project
// --vendor-source NAME=DIR`, repeatable): code that an archive's modules
// include but no archive carries (CMSIS-NN's arm_nnfunctions.h, ESP-DL's
// esp_kernel.h, a library of one's own).
//
// What is taken from DIR: every *.c file under it, recursively, compiled
// with the model (sorted by path); every *.h file, so that the project
// builds on its own. Both are copied into the project as vendor/NAME/<path
// under DIR>. The include path is vendor/NAME and, when DIR has one, its
// Include/ or include/ folder (CMSIS's and most libraries' layout; both
// when both exist). The headers a library provides are the *.h files as an
// #include names them from those include directories ("toy_vendor.h",
// "sub/x.h"); a module whose vendor headers are all provided is built like
// any other (tvm/plan FirmwareVerdict).
#ifndef MLFKIT_LOADER_FIRMWARE_VENDOR_SOURCE_H_
#define MLFKIT_LOADER_FIRMWARE_VENDOR_SOURCE_H_

#include <set>
#include <string>
#include <vector>

#include "artifact/base/status.h"
#include "loader/firmware/project_writer.h"

namespace mlf::firmware {

// What the libraries provide, as the foreign modules' check reads it
// (foreign_project.h): the headers, and the flags that gave them (for
// "esp_kernel.h is not in --vendor-source esp=DIR").
struct VendorProvision {
  std::set<std::string> headers;
  std::string flags;  // VendorSourceFlags; "" when none was given
};

// One --vendor-source NAME=DIR, as given.
struct VendorSourceSpec {
  std::string name;
  std::string dir;
};

// "NAME=DIR" -> its spec; an error names the flag's value when it has no '='.
Result<VendorSourceSpec> ParseVendorSourceFlag(const std::string& value);

struct VendorLibrary {
  VendorSourceSpec spec;
  std::vector<ProjectFile> files;         // vendor/NAME/..., every .c and .h under DIR
  std::vector<std::string> sources;       // the .c files' project paths, sorted
  std::vector<std::string> include_dirs;  // vendor/NAME[, vendor/NAME/Include][, .../include]
  std::set<std::string> headers;          // as #include names them
};

// Reads every library. Errors (each naming the flag): NAME empty, not made
// of letters, digits, '_', '-', '.', or given twice; DIR missing or not a
// directory; a file under DIR whose path a Makefile cannot list.
Result<std::vector<VendorLibrary>> LoadVendorLibraries(const std::vector<VendorSourceSpec>& specs);

// What the user gave, for messages: "--vendor-source esp=DIR, --vendor-source x=DIR2"
// (DIR shown through the display guard); "" when nothing was given.
std::string VendorSourceFlags(const std::vector<VendorSourceSpec>& specs);

// Every header the libraries provide.
std::set<std::string> VendorHeaders(const std::vector<VendorLibrary>& libraries);

}  // namespace mlf::firmware

#endif  // MLFKIT_LOADER_FIRMWARE_VENDOR_SOURCE_H_
