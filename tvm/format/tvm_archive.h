// Reading a whole archive written by Apache TVM's export_model_library_format
// (metadata versions 5–7) into the one metadata model.
//
// TVM archives are not laid out like version 8: Python's tarfile wrote them
// from a directory, so they start with directory members ("." and
// "./codegen"), name members "./x" (the reader normalises that to "x"),
// carry metadata.json somewhere in the middle, and tools may have appended
// members later, owned by any user. They record no sizes, digests or
// signatures. So the scan reads every member once:
//   - metadata.json (found anywhere) is checked against its version's schema
//     and normalised (tvm/format/tvm_metadata.h);
//   - every member's size and SHA-256 are computed (they become `files`,
//     so a second pass can prove it reads the same bytes);
//   - Relay text, graph JSON and interface headers are kept, C code is
//     scanned and .params files are indexed (each up to a bound: larger
//     members are only hashed, and the completion says so);
//   - CompleteTvmMetadata then fills in shapes, order, entry points, and
//     lists the problems verify refuses.
// Reader errors and limits are those of artifact/archive/archive_reader.h.
#ifndef MLFKIT_TVM_FORMAT_TVM_ARCHIVE_H_
#define MLFKIT_TVM_FORMAT_TVM_ARCHIVE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "artifact/archive/archive_reader.h"
#include "artifact/archive/archive_source.h"
#include "artifact/archive/foreign_archive.h"
#include "artifact/base/status.h"
#include "artifact/format/metadata.h"

namespace mlf {

// What a TVM archive's reader found beyond the metadata model (problems:
// a referenced file missing, a corrupt .params, sizes that contradict each
// other), and the whole scan: the seam's types (foreign_archive.h).
using TvmArchiveReport = ForeignArchiveReport;
using TvmArchiveScan = ForeignArchiveScan;

// Bounds on what the scan holds in memory for analysis (larger members are
// still hashed and listed).
inline constexpr uint64_t kMaxTvmTextBytes = 64ull << 20;    // Relay, graph JSON, headers
inline constexpr uint64_t kMaxTvmCodeBytes = 64ull << 20;    // one C source
inline constexpr uint64_t kMaxTvmParamsBytes = 256ull << 20;  // one .params file
inline constexpr uint64_t kMaxTvmRetainedBytes = 256ull << 20;  // all texts kept at once

// Scans `path`. nullopt when it is not a TVM archive: no metadata.json, or
// one that is not JSON or whose version is not 5–7, or a reader error before
// metadata.json was found (callers then report their own error). Once a TVM
// metadata.json was found, reader and metadata errors are returned as they
// are. `progress` sees the data bytes read so far. The source is read from
// its start twice (a stream cannot be: nullopt).
Result<std::optional<TvmArchiveScan>> ScanTvmArchive(
    const ArchiveSource& source, const ReaderLimits& limits,
    const std::function<void(uint64_t done)>& progress = nullptr);
// The same for the file at `path`.
Result<std::optional<TvmArchiveScan>> ScanTvmArchive(
    const std::string& path, const ReaderLimits& limits,
    const std::function<void(uint64_t done)>& progress = nullptr);

// TVM's archive format behind the seam of artifact/archive/foreign_archive.h
// (name "TVM", versions 5–7, Scan = ScanTvmArchive), for VerifyOptions and
// ReadArchiveHead. One immutable instance, safe to share between threads.
const ForeignArchiveFormat& TvmArchiveFormat();

}  // namespace mlf

#endif  // MLFKIT_TVM_FORMAT_TVM_ARCHIVE_H_
