#include "python/native/archive_binding.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <map>
#include <optional>
#include <string>

#include "artifact/archive/inspect_document.h"
#include "artifact/archive/pack.h"
#include "artifact/archive/read_metadata.h"
#include "artifact/archive/sign.h"
#include "artifact/archive/signature.h"
#include "artifact/archive/verify.h"
#include "artifact/archive/verify_document.h"
#include "artifact/base/version.h"
#include "codegen/model_export.h"
#include "loader/firmware/project.h"
#include "loader/firmware/project_build.h"
#include "loader/firmware/project_document.h"
#include "python/native/status_error.h"
#include "python/native/tensor_arrays.h"
#include "tvm/tvm.h"

namespace mlf::py {
namespace {

namespace pb = pybind11;

// Runs `work` without the GIL (it must not touch Python objects).
template <typename F>
auto WithoutGil(F work) {
  pb::gil_scoped_release release;
  return work();
}

Result<Compression> CompressionFrom(const std::string& text) {
  if (text == "none") return Compression::kNone;
  if (text == "gzip") return Compression::kGzip;
  if (text == "zstd") return Compression::kZstd;
  return InvalidArgument("compress must be 'none', 'gzip' or 'zstd', not '" + text + "'");
}

// A JSON document as a Python dict (json.loads of its text).
pb::object ToDict(nlohmann::json doc) {
  doc["schema_version"] = kJsonReportSchemaVersion;
  doc["mlf_version"] = kMlfkitVersion;
  return pb::module_::import("json").attr("loads")(
      doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

// constants={name: array}: each array's dtype, shape and bytes (C order).
std::map<std::string, ir::HostTensor> ConstantsFrom(const std::map<std::string, pb::array>& arrays) {
  std::map<std::string, ir::HostTensor> tensors;
  for (const auto& [name, given] : arrays) {
    const std::string what = "constants['" + name + "']";
    pb::array array = pb::array::ensure(given, pb::array::c_style);
    std::vector<int64_t> shape, strides;
    const DLTensor t = DescribeArray(array, what, &shape, &strides);
    ir::HostTensor& tensor = tensors[name];
    tensor.dtype = ValueOrRaise(FromDLPack(t.dtype));
    tensor.shape = shape;
    tensor.bytes.assign(static_cast<const char*>(array.data()), array.nbytes());
  }
  return tensors;
}

pb::object Export(const std::string& model, const std::string& out, const std::string& name,
                bool link_params, bool keep_source, bool build_host_library,
                const std::string& compress,
                const std::map<std::string, std::vector<int64_t>>& input_shapes,
                const std::map<std::string, pb::array>& constants) {
  ModelFileOptions compile;
  compile.compile.link_params = link_params;
  compile.keep_source = keep_source;
  compile.import.input_shapes = input_shapes;
  compile.import.constants = ConstantsFrom(constants);
  compile.import.input_shapes_option = "input_shapes";
  compile.import.constants_option = "constants";
  ExportOptions options;
  options.build_host_library = build_host_library;
  options.pack.compression = ValueOrRaise(CompressionFrom(compress));
  options.pack.mtime = ValueOrRaise(ArchiveMtimeFromEnvironment());
  Result<Metadata> written = WithoutGil([&]() -> Result<Metadata> {
    MLF_ASSIGN_OR_RETURN(ModuleArtifacts m, CompileModelFile(model, name, compile));
    return ExportArchive({std::move(m)}, out, options);
  });
  return ToDict(ExportDocument(out, ValueOrRaise(std::move(written)), link_params));
}

// The document of `mlf verify --json` (docs/cli-json.md).
pb::object VerifyReportDict(const std::string& path, const VerifyReport& r) {
  std::map<std::string, ForeignModuleCheck> host;
  if (r.foreign) host = WithoutGil([&] { return tvm_wing::HostChecks(path, r.metadata); });
  return ToDict(VerifyDocument(path, r, host));
}

VerifyOptions VerifyOptionsFrom(const std::optional<std::string>& key, bool require_signature) {
  VerifyOptions options;
  options.require_signature = require_signature;
  options.foreign_format = &tvm_wing::ArchiveFormat();  // TVM archives (5-7) too
  if (key) options.public_key_pem = ValueOrRaise(ReadKeyFile(*key));
  return options;
}

pb::object Verify(const std::string& path, const std::optional<std::string>& key,
                bool require_signature) {
  const VerifyOptions options = VerifyOptionsFrom(key, require_signature);
  Result<VerifyReport> report = WithoutGil([&] { return VerifyArchive(path, options); });
  if (!report.ok()) Raise(report.status().WithContext(path));
  return VerifyReportDict(path, *report);
}

pb::object SignFile(const std::string& path, const std::string& key, const std::optional<std::string>& out) {
  const std::string private_pem = ValueOrRaise(ReadKeyFile(key));
  SignOptions options;
  options.mtime = ValueOrRaise(ArchiveMtimeFromEnvironment());
  const std::string target = out ? *out : path;
  Result<VerifyReport> report =
      WithoutGil([&] { return SignArchive(path, private_pem, target, options); });
  if (!report.ok()) Raise(report.status().WithContext(path));
  return VerifyReportDict(target, *report);
}

// The document of `mlf inspect --json`, as a dict.
pb::object Inspect(const std::string& path) {
  Result<ArchiveHead> head =
      WithoutGil([&] { return ReadArchiveHead(path, {}, &tvm_wing::ArchiveFormat()); });
  if (!head.ok()) Raise(head.status().WithContext(path));
  std::map<std::string, ForeignModuleCheck> host;
  if (head->foreign) host = WithoutGil([&] { return tvm_wing::HostChecks(path, head->metadata); });
  return ToDict(InspectDocument(path, *head, host));
}

// The document of `mlf project --json`: generates the project into `out`
// (missing or empty; nothing is written there on failure), then builds and
// runs it as asked. A firmware that exits non-zero is a result ("ok":
// false, run.exit_status), as for the CLI.
pb::object Project(const std::string& archive, const std::string& out, const std::string& board,
                   const std::string& build_system, const std::map<std::string, std::string>& sample_inputs,
                   bool quantize_inputs, bool build, bool run, const std::optional<std::string>& key,
                   bool require_signature, bool profile) {
  firmware::ProjectOptions options;
  options.target = ValueOrRaise(firmware::ResolveBoard(board));
  options.measure_fit = true;  // as mlf project: a misfit is refused before anything is written
  options.count_instructions = run;  // as mlf project --run
  options.profile = profile;          // as mlf project --profile
  options.foreign_modules = &tvm_wing::FirmwareModules();
  options.verify.require_signature = require_signature;
  if (key) options.verify.public_key_pem = ValueOrRaise(ReadKeyFile(*key));
  for (const auto& [name, path] : sample_inputs) options.sample_inputs.push_back({name, path});
  options.quantize_sample_inputs = quantize_inputs;
  firmware::BuildOptions build_options;
  build_options.system = ValueOrRaise(firmware::ParseBuildSystem(build_system));
  Result<nlohmann::json> doc = WithoutGil([&]() -> Result<nlohmann::json> {
    MLF_ASSIGN_OR_RETURN(firmware::GeneratedProject p, firmware::GenerateProject(archive, out, options));
    if (!build && !run) return firmware::ProjectDocument(out, p);
    MLF_ASSIGN_OR_RETURN(firmware::BuiltFirmware built, firmware::BuildProject(out, p.platform, build_options));
    if (!run) return firmware::ProjectDocument(out, p, &built);
    MLF_ASSIGN_OR_RETURN(firmware::FirmwareRun ran, firmware::RunFirmware(out, p.platform));
    MLF_ASSIGN_OR_RETURN(std::optional<firmware::RunMeasurements> measured,
                         firmware::ReadRunMeasurements(out, p, ran));
    return firmware::ProjectDocument(out, p, &built, &ran, measured ? &*measured : nullptr);
  });
  return ToDict(ValueOrRaise(std::move(doc)));
}

pb::tuple Keygen(const std::string& prefix) {
  OkOrRaise(WriteKeyFiles(prefix));
  return pb::make_tuple(prefix + ".key", prefix + ".pub");
}

}  // namespace

void BindArchiveOperations(pb::module_& m) {
  m.def("_export", &Export, pb::arg("model"), pb::arg("out"), pb::arg("name"),
        pb::arg("link_params"), pb::arg("keep_source"), pb::arg("build_host_library"),
        pb::arg("compress"), pb::arg("input_shapes"), pb::arg("constants"));
  m.def("_verify", &Verify, pb::arg("path"), pb::arg("key"), pb::arg("require_signature"));
  m.def("_sign", &SignFile, pb::arg("path"), pb::arg("key"), pb::arg("out"));
  m.def("_keygen", &Keygen, pb::arg("prefix"));
  m.def("_inspect", &Inspect, pb::arg("path"));
  m.def("_project", &Project, pb::arg("archive"), pb::arg("out"), pb::arg("board"), pb::arg("build_system"),
        pb::arg("sample_inputs"), pb::arg("quantize_inputs"), pb::arg("build"), pb::arg("run"),
        pb::arg("key"),
        pb::arg("require_signature"), pb::arg("profile") = false);
}

}  // namespace mlf::py
