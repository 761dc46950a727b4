// The document `mlf inspect --json` prints and mlfkit.inspect() returns
// (docs/cli-json.md): the archive's path, compression and signer, its
// metadata as stored, and for foreign (TVM) archives the normalised model
// with what this host can run.
#ifndef MLFKIT_ARTIFACT_ARCHIVE_INSPECT_DOCUMENT_H_
#define MLFKIT_ARTIFACT_ARCHIVE_INSPECT_DOCUMENT_H_

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "artifact/archive/foreign_archive.h"
#include "artifact/archive/read_metadata.h"
#include "artifact/base/status.h"

namespace mlf {

// The fingerprint (hex SHA-256 of the public key) the archive's signature
// names; "" when unsigned, "malformed" when the signature member is not one.
std::string SignerFingerprint(const ArchiveHead& head);

// `host_checks`: for a foreign archive, what running each module on this
// host would meet, the vendor libraries it needs and where it runs, by module name (tvm/tvm.h HostChecks); ignored otherwise.
// Without the "schema_version" and "mlf_version" that the caller adds.
nlohmann::json InspectDocument(const std::string& path, const ArchiveHead& head,
                               const std::map<std::string, ForeignModuleCheck>& host_checks);

}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_ARCHIVE_INSPECT_DOCUMENT_H_
