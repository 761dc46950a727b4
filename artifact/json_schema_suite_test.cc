// Runs the official JSON Schema test suite (draft7, top-level files; not
// optional/) against JsonSchema. A test group whose schema fails to Compile
// with kUnimplemented (a keyword or a remote $ref this validator refuses) is
// skipped with the reason; every other test must give the expected validity.
//
// The suite comes from Debian's json-schema-test-suite package
// (scripts/setup.sh). JSON_SCHEMA_TEST_SUITE_DIR overrides its location.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "artifact/json_schema.h"

namespace mlf {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr char kDefaultSuiteDir[] = "/usr/share/json-schema-test-suite/tests/draft7";

fs::path SuiteDir() {
  const char* dir = std::getenv("JSON_SCHEMA_TEST_SUITE_DIR");
  return (dir != nullptr && *dir != '\0') ? fs::path(dir) : fs::path(kDefaultSuiteDir);
}

struct Counts {
  int passed = 0;
  int failed = 0;
  int skipped = 0;

  void Add(const Counts& other) {
    passed += other.passed;
    failed += other.failed;
    skipped += other.skipped;
  }
  std::string ToString() const {
    return std::to_string(passed) + " passed, " + std::to_string(failed) + " failed, " +
           std::to_string(skipped) + " skipped";
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

// Runs one group (a schema and its tests); appends skip reasons to `skips`.
Counts RunGroup(const std::string& file, const json& group, std::vector<std::string>& skips) {
  Counts counts;
  const std::string name = file + " / " + group.value("description", "?");
  const json& tests = group.at("tests");
  Result<JsonSchema> schema = JsonSchema::Compile(group.at("schema"));
  if (!schema.ok()) {
    if (schema.status().code() == StatusCode::kUnimplemented) {
      counts.skipped = static_cast<int>(tests.size());
      skips.push_back(name + ": " + schema.status().message());
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

Counts RunFile(const fs::path& path, std::vector<std::string>& skips) {
  Counts counts;
  std::ifstream in(path);
  json groups = json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!groups.is_array()) {
    ADD_FAILURE() << path << ": not a JSON array of test groups";
    counts.failed = 1;
    return counts;
  }
  for (const json& group : groups) counts.Add(RunGroup(path.filename().string(), group, skips));
  return counts;
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
  std::vector<std::string> skips;
  for (const fs::path& file : files) {
    Counts counts = RunFile(file, skips);
    std::cout << "  " << file.filename().string() << ": " << counts.ToString() << "\n";
    total.Add(counts);
  }
  std::cout << "skipped groups (" << skips.size() << "):\n";
  for (const std::string& skip : skips) std::cout << "  " << skip << "\n";
  std::cout << "json-schema-test-suite draft7: " << total.ToString() << std::endl;
  EXPECT_EQ(total.failed, 0);
  EXPECT_GT(total.passed, 0);
}

}  // namespace
}  // namespace mlf
