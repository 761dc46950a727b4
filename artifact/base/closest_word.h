// "Did you mean ...?" for mistyped command and option names.
//
//   ClosestWord("inpsect", {"inspect", "export"})  // "inspect"
//   ClosestWord("frob", {"inspect", "export"})     // "" (nothing close)
//
// Close means an edit distance (insertions, deletions, substitutions, and a
// swap of two neighbouring letters counting as one edit) of at most a third of
// the typed word's length, and never more than 2: a suggestion must look like
// a typo of the word, not a different word.
#ifndef MLFKIT_ARTIFACT_BASE_CLOSEST_WORD_H_
#define MLFKIT_ARTIFACT_BASE_CLOSEST_WORD_H_

#include <string>
#include <string_view>
#include <vector>

namespace mlf {

// Optimal-string-alignment distance between `a` and `b` (bytes).
size_t EditDistance(std::string_view a, std::string_view b);

// The candidate closest to `typed` (the first of equally close ones), or ""
// when none is close enough.
std::string ClosestWord(std::string_view typed, const std::vector<std::string>& candidates);

}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_BASE_CLOSEST_WORD_H_
