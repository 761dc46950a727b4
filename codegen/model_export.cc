#include "codegen/model_export.h"

#include "artifact/format/c_name.h"
#include "codegen/model_import.h"

namespace mlf {

Result<ModuleArtifacts> CompileModelFile(const std::string& path, const std::string& module,
                                         const ModelFileOptions& options,
                                         std::vector<std::string>* read_files) {
  MLF_ASSIGN_OR_RETURN(ImportedModel model, ImportModelFile(path, options.import));
  if (read_files != nullptr) {
    read_files->insert(read_files->end(), model.npy_files.begin(), model.npy_files.end());
  }
  MLF_ASSIGN_OR_RETURN(ModuleArtifacts artifacts,
                       CompileGraph(module, std::move(model.graph), options.compile));
  if (options.keep_source) {
    model.source.path = "src/" + SanitizeCName(module) + "." + model.extension;
    artifacts.extra_members.push_back({model.source.path, std::move(model.source_bytes)});
  }
  artifacts.metadata.source = model.source;
  artifacts.metadata.description = model.description;
  return artifacts;
}

nlohmann::json ExportDocument(const std::string& out, const Metadata& written,
                              bool parameters_linked) {
  nlohmann::json modules = nlohmann::json::array();
  for (const auto& [name, m] : written.modules) {
    modules.push_back({{"name", name},
                       {"operators", m.operators.size()},
                       {"workspace_bytes", m.memory.workspace_size_bytes},
                       {"parameter_bytes", m.memory.constants_size_bytes},
                       {"parameters_linked", parameters_linked}});
  }
  return {{"ok", true}, {"archive", out}, {"modules", modules}};
}

}  // namespace mlf
