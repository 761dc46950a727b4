// Runs the official JSON Schema test suite (draft7, top-level files; not
// optional/) against JsonSchema. A test group whose schema fails to Compile
// with kUnimplemented (a keyword or a remote $ref this validator refuses) is
// unsupported; every other test must give the expected validity.
//
// Pinned: the unsupported groups, each with the refusal naming what it needs,
// are exactly the lines of artifact/jsonschema/json_schema_suite_unsupported.txt, and
// exactly kExpectedPasses tests pass; a group that becomes unsupported, or a
// test that disappears, fails the test, and so does a listed group that now
// compiles (remove its line, raise kExpectedPasses).
//
// The suite comes from Debian's json-schema-test-suite package 2.0.0
// (scripts/setup.sh); its absence is a failure. JSON_SCHEMA_TEST_SUITE_DIR
// overrides its location (the pins are for 2.0.0).
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "artifact/jsonschema/json_schema.h"

namespace mlf {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr char kDefaultSuiteDir[] = "/usr/share/json-schema-test-suite/tests/draft7";
constexpr char kUnsupportedFile[] = "artifact/jsonschema/json_schema_suite_unsupported.txt";
// The tests of the groups that compile (all of which must pass).
constexpr int kExpectedPasses = 404;

fs::path SuiteDir() {
  const char* dir = std::getenv("JSON_SCHEMA_TEST_SUITE_DIR");
  return (dir != nullptr && *dir != '\0') ? fs::path(dir) : fs::path(kDefaultSuiteDir);
}

struct Counts {
  int passed = 0;
  int failed = 0;
  int unsupported = 0;  // tests of unsupported groups

  void Add(const Counts& other) {
    passed += other.passed;
    failed += other.failed;
    unsupported += other.unsupported;
  }
  std::string ToString() const {
    return std::to_string(passed) + " passed, " + std::to_string(failed) + " failed, " +
           std::to_string(unsupported) + " in unsupported groups";
  }
};

std::vector<fs::path> SuiteFiles(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".json") {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Runs one group (a schema and its tests); adds "<file> / <group>: <refusal>"
// to `unsupported` when the schema does not compile with kUnimplemented.
Counts RunGroup(const std::string& file, const json& group, std::set<std::string>& unsupported) {
  Counts counts;
  const std::string name = file + " / " + group.value("description", "?");
  const json& tests = group.at("tests");
  Result<JsonSchema> schema = JsonSchema::Compile(group.at("schema"));
  if (!schema.ok()) {
    if (schema.status().code() == StatusCode::kUnimplemented) {
      counts.unsupported = static_cast<int>(tests.size());
      unsupported.insert(name + ": " + schema.status().message());
    } else {
      counts.failed = static_cast<int>(tests.size());
      ADD_FAILURE() << name << ": schema does not compile: " << schema.status().ToString();
    }
    return counts;
  }
  for (const json& test : tests) {
    Status status = schema->Validate(test.at("data"));
    bool expected = test.at("valid").get<bool>();
    bool sound = status.ok() || status.code() == StatusCode::kInvalidArgument;
    if (sound && status.ok() == expected) {
      ++counts.passed;
      continue;
    }
    ++counts.failed;
    ADD_FAILURE() << name << " / " << test.value("description", "?") << ": expected "
                  << (expected ? "valid" : "invalid") << ", got " << status.ToString()
                  << "\n  data: " << test.at("data").dump();
  }
  return counts;
}

Counts RunFile(const fs::path& path, std::set<std::string>& unsupported) {
  Counts counts;
  std::ifstream in(path);
  json groups = json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!groups.is_array()) {
    ADD_FAILURE() << path << ": not a JSON array of test groups";
    counts.failed = 1;
    return counts;
  }
  for (const json& group : groups) counts.Add(RunGroup(path.filename().string(), group, unsupported));
  return counts;
}

// The lines of kUnsupportedFile but its comments.
std::set<std::string> ReadUnsupported() {
  std::ifstream in(kUnsupportedFile);
  EXPECT_TRUE(in.is_open()) << "cannot read " << kUnsupportedFile;
  std::set<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] != '#') lines.insert(line);
  }
  return lines;
}

TEST(JsonSchemaSuiteTest, Draft7) {
  const fs::path dir = SuiteDir();
  ASSERT_TRUE(fs::is_directory(dir))
      << "JSON Schema test suite not found at " << dir
      << "; run scripts/setup.sh (it installs Debian's json-schema-test-suite), or set "
         "JSON_SCHEMA_TEST_SUITE_DIR";
  std::vector<fs::path> files = SuiteFiles(dir);
  ASSERT_FALSE(files.empty()) << "no *.json test files in " << dir;

  Counts total;
  std::set<std::string> unsupported;
  for (const fs::path& file : files) {
    Counts counts = RunFile(file, unsupported);
    std::cout << "  " << file.filename().string() << ": " << counts.ToString() << "\n";
    total.Add(counts);
  }
  std::cout << "unsupported groups (" << unsupported.size() << "):\n";
  for (const std::string& group : unsupported) std::cout << "  " << group << "\n";
  std::cout << "json-schema-test-suite draft7: " << total.ToString() << std::endl;
  RecordProperty("passed", total.passed);
  RecordProperty("failed", total.failed);
  RecordProperty("unsupported", total.unsupported);
  EXPECT_EQ(total.failed, 0);
  EXPECT_EQ(total.passed, kExpectedPasses);

  const std::set<std::string> expected = ReadUnsupported();
  for (const std::string& group : unsupported) {
    EXPECT_TRUE(expected.count(group))
        << "newly unsupported (not in " << kUnsupportedFile << "): " << group;
  }
  for (const std::string& group : expected) {
    EXPECT_TRUE(unsupported.count(group))
        << "listed in " << kUnsupportedFile << " but not refused so (remove the line if the "
        << "group now compiles, and raise kExpectedPasses by its tests): " << group;
  }
}

}  // namespace
}  // namespace mlf
