// The fuzz input as a file path, for entry points that read files
// (ArchiveReader, VerifyArchive). One memfd per process, rewritten for each
// input; the path "/proc/self/fd/<n>" opens it anew with offset 0.
#ifndef MLFKIT_FUZZ_INPUT_FILE_H_
#define MLFKIT_FUZZ_INPUT_FILE_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace mlf::fuzz {

// Replaces the memfd's content with `data` and returns its path. Aborts when
// the memfd cannot be created or written (an environment problem, not a
// finding).
std::string InputFile(const uint8_t* data, size_t size);

}  // namespace mlf::fuzz

#endif  // MLFKIT_FUZZ_INPUT_FILE_H_
