// The document `mlf verify --json` prints for a verified archive and
// mlfkit.verify() returns (docs/cli-json.md): what was checked, and for
// foreign (TVM) archives what each module is and whether this host runs it.
#ifndef MLFKIT_ARTIFACT_ARCHIVE_VERIFY_DOCUMENT_H_
#define MLFKIT_ARTIFACT_ARCHIVE_VERIFY_DOCUMENT_H_

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "artifact/archive/foreign_archive.h"
#include "artifact/archive/verify.h"
#include "artifact/base/status.h"

namespace mlf {

// `host_checks`: for a foreign archive, what running each module on this
// host would meet, the vendor libraries it needs and where it runs, by module name (tvm/tvm.h HostChecks); ignored otherwise.
// Without the "schema_version" and "mlf_version" that the caller adds.
nlohmann::json VerifyDocument(const std::string& path, const VerifyReport& report,
                              const std::map<std::string, ForeignModuleCheck>& host_checks);

}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_ARCHIVE_VERIFY_DOCUMENT_H_
