// Normalising Apache TVM Model Library Format metadata (versions 5, 6, 7)
// into mlfkit's one metadata model (artifact/format/metadata.h). The rules, and
// what each field becomes, are in docs/archive-format.md ("TVM archives").
//
// Two steps, because TVM's metadata.json alone does not describe a model
// (no shapes, no file list, no order of inputs):
//
//   1. ParseTvmMetadata(json): JSON bounds, then the version's own schema
//      (schemas/tvm-metadata-v<N>.schema.json), then one ModuleMetadata per
//      model with its TvmModuleInfo: v5/v6 and v7 operator style are one flat
//      model; v7 full models are nested under "modules". Inputs and outputs
//      come from memory.functions.main[0].inputs/outputs when TVM wrote them
//      (late 2022), with shapes unknown.
//
//   2. CompleteTvmMetadata(metadata, contents): what the archive holds
//      (collected by tvm/format/tvm_archive.h) fills in the rest:
//        - sources, interface header, Relay text, graph JSON, .params of
//          each module (members with or without "./", found by name);
//        - inputs and outputs: names and dtypes from metadata, else from the
//          graph JSON (graph executor) or the Relay signature, minus the
//          names in the module's .params; shapes from the graph JSON or Relay
//          (else unknown, with the byte size kept); order and C names from
//          the interface header's structs when present (TVM's calling
//          order), else the Relay / graph order; C names otherwise sanitised
//          as TVM did (SanitizeCName);
//        - interface_api "c" when the header declares tvmgen_<mod>_run (or
//          the target says -interface-api=c), else "packed";
//        - the inner entry point (___tvm_main__ or the older _run_model),
//          foreign-architecture evidence, headers from outside the archive;
//        - `files`: every member but metadata.json with its size and SHA-256.
//      Problems that `mlf verify` must refuse (a missing referenced file, a
//      corrupt .params, sizes that contradict each other) are returned, each
//      naming the module and the member; they do not stop the completion, so
//      `mlf inspect` can still show the archive.
#ifndef MLFKIT_TVM_FORMAT_TVM_METADATA_H_
#define MLFKIT_TVM_FORMAT_TVM_METADATA_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "artifact/base/status.h"
#include "artifact/format/metadata.h"
#include "tvm/format/tvm_code.h"
#include "tvm/format/tvm_params.h"

namespace mlf {

// Step 1. Errors: the JSON bounds of ParseMetadata; kInvalidArgument
// "metadata.json does not match the TVM version N schema: ..."; a dtype
// mlfkit does not know; modules that clash after C-name sanitising.
Result<Metadata> ParseTvmMetadata(std::string_view json_text);

// The index of a TVM .params member, or why it could not be read.
struct TvmParamsContents {
  Status status;                         // not ok: corrupt (verify refuses it)
  std::vector<ParamTensorInfo> tensors;  // offsets: where each tensor's data starts in the file
};

// What step 2 needs from the archive; filled by ScanTvmArchive.
struct TvmArchiveContents {
  std::map<std::string, FileEntry> files;      // every member except metadata.json
  std::map<std::string, std::string> texts;    // Relay texts, graph JSON, interface headers
  std::map<std::string, TvmCodeScan> code;     // codegen/host/src/*, codegen/host/include/**
  std::map<std::string, TvmParamsContents> params;  // parameters/*.params
  // Members not analysed because they are larger than the analysis bound.
  std::map<std::string, uint64_t> too_large;
};

struct TvmCompletion {
  std::vector<Status> problems;           // what verify refuses
  std::vector<std::string> unreferenced;  // members no module uses (e.g. appended later)
};

// Step 2. `metadata` must come from ParseTvmMetadata.
TvmCompletion CompleteTvmMetadata(Metadata* metadata, const TvmArchiveContents& contents);

// The index of parsed .params tensors: the offset of each tensor's data in
// the file, as WriteTvmParams lays it out.
std::vector<ParamTensorInfo> TvmParamsIndex(const std::vector<NamedTensor>& tensors);

// Members whose text ScanTvmArchive keeps for step 2 (Relay text, graph
// JSON, C interface headers) and whose code it scans.
bool IsTvmTextMember(const std::string& path);
bool IsTvmCodeMember(const std::string& path);

// The value of option `-<key>=...` in a TVM target string ("" when absent),
// e.g. TvmTargetOption("c -keys=arm_cpu,cpu -mcpu=cortex-m4", "mcpu").
std::string TvmTargetOption(std::string_view target, std::string_view key);

}  // namespace mlf

#endif  // MLFKIT_TVM_FORMAT_TVM_METADATA_H_
