#include "artifact/archive/archive_assembler.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "artifact/archive/testing/example_archive.h"
#include "schemas/embedded.h"

namespace mlf {
namespace {

using testutil::Entries;
using testutil::EntriesOf;
using testutil::Exists;
using testutil::FreshDir;
using testutil::MakeExample;
using testutil::ReadFile;
using testutil::WriteFile;

constexpr char kAbiHeader[] = "codegen/host/include/mlf/model_abi.h";

// The example's module as staged by a producer: no host library yet, and a
// parameter path the assembler replaces.
AssembledModule ExampleModule(bool build_host_library) {
  AssembledModule m;
  m.name = "default";
  m.metadata = MakeExample().metadata.modules.at("default");
  m.metadata.parameters->path = "elsewhere.bin";
  m.parameter_blob = MakeExample().members.at(testutil::kExampleParams);
  m.build_host_library = build_host_library;
  return m;
}

// Stages the example: its module, code and source model.
void StageExample(ArchiveAssembler* assembler, bool build_host_library) {
  const testutil::Example ex = MakeExample();
  ASSERT_TRUE(assembler->AddModule(ExampleModule(build_host_library)).ok());
  assembler->AddCode(testutil::kExampleSource, ex.members.at(testutil::kExampleSource));
  assembler->AddCode(testutil::kExampleHeader, ex.members.at(testutil::kExampleHeader));
  assembler->AddMember({testutil::kExampleModel, MemberSource::Bytes(ex.members.at(testutil::kExampleModel)),
                        false});
}

// What a builder was called with.
struct BuildCall {
  std::vector<std::string> code_paths;
  std::vector<std::string> sources;
};

// A builder that compiles nothing: the library is "lib:" + the sources.
HostLibraryBuilder FakeBuilder(std::vector<BuildCall>* calls) {
  return [calls](const std::map<std::string, std::string>& code, const std::vector<std::string>& sources)
             -> Result<BuiltHostLibrary> {
    BuildCall call;
    for (const auto& [path, content] : code) call.code_paths.push_back(path);
    call.sources = sources;
    calls->push_back(call);
    std::string bytes = "lib:";
    for (const std::string& s : sources) bytes += s + ";";
    return BuiltHostLibrary{bytes, "x86_64-linux-gnu", "gcc 1.2.3", {"-O1", "-lm"}};
  };
}

std::vector<std::string> Names(const Entries& entries) {
  std::vector<std::string> out;
  for (const auto& [name, data] : entries) out.push_back(name);
  return out;
}

TEST(ArchiveAssemblerTest, WritesCodeParametersLibraryAndMembersInCanonicalOrder) {
  const std::string out = FreshDir("assemble") + "/a.tar";
  ArchiveAssembler assembler;
  StageExample(&assembler, true);
  std::vector<BuildCall> calls;
  AssemblyOptions options;
  options.generator_version = "9.9.9";
  options.build_host_library = FakeBuilder(&calls);
  Result<Metadata> md = std::move(assembler).Write(out, options);
  ASSERT_TRUE(md.ok()) << md.status().ToString();

  const Entries entries = EntriesOf(out);
  EXPECT_EQ(Names(entries),
            (std::vector<std::string>{"metadata.json", kAbiHeader, testutil::kExampleHeader,
                                      "codegen/host/lib/default.so", testutil::kExampleSource,
                                      "parameters/default.bin", testutil::kExampleModel}));
  EXPECT_EQ(entries[1].second, *EmbeddedFile("model_abi.h"));
  EXPECT_EQ(entries[3].second, "lib:codegen/host/src/default_lib0.c;");
  EXPECT_EQ(entries[5].second, MakeExample().members.at(testutil::kExampleParams));

  // The builder saw every code file, the ABI header included, and the module's sources.
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].code_paths,
            (std::vector<std::string>{kAbiHeader, testutil::kExampleHeader, testutil::kExampleSource}));
  EXPECT_EQ(calls[0].sources, std::vector<std::string>{testutil::kExampleSource});

  EXPECT_EQ(md->generator_version, "9.9.9");
  EXPECT_EQ(md->export_datetime, "1970-01-01 00:00:00Z");
  const ModuleMetadata& m = md->modules.at("default");
  EXPECT_EQ(m.parameters->path, "parameters/default.bin");
  ASSERT_TRUE(m.host_library.has_value());
  EXPECT_EQ(m.host_library->path, "codegen/host/lib/default.so");
  EXPECT_EQ(m.host_library->triple, "x86_64-linux-gnu");
  EXPECT_EQ(m.host_library->compiler, "gcc 1.2.3");
  EXPECT_EQ(m.host_library->flags, (std::vector<std::string>{"-O1", "-lm"}));
  EXPECT_EQ(md->files.size(), 6u);
  EXPECT_EQ(entries[0].second, SerializeMetadata(*md));
}

TEST(ArchiveAssemblerTest, WithoutALibraryNoneIsRecordedAndNoBuilderIsNeeded) {
  const std::string out = FreshDir("nolib") + "/a.tar";
  ArchiveAssembler assembler;
  AssembledModule m = ExampleModule(false);
  m.metadata.host_library = HostLibraryInfo{"codegen/host/lib/stale.so", "x", "y", {}};
  ASSERT_TRUE(assembler.AddModule(m).ok());
  const testutil::Example ex = MakeExample();
  assembler.AddCode(testutil::kExampleSource, ex.members.at(testutil::kExampleSource));
  assembler.AddCode(testutil::kExampleHeader, ex.members.at(testutil::kExampleHeader));
  assembler.AddMember({testutil::kExampleModel, MemberSource::Bytes(ex.members.at(testutil::kExampleModel)),
                       false});
  AssemblyOptions options;
  options.export_datetime = "2024-01-02 03:04:05Z";
  Result<Metadata> md = std::move(assembler).Write(out, options);
  ASSERT_TRUE(md.ok()) << md.status().ToString();
  EXPECT_FALSE(md->modules.at("default").host_library.has_value());
  EXPECT_EQ(md->export_datetime, "2024-01-02 03:04:05Z");
  EXPECT_EQ(Names(EntriesOf(out)),
            (std::vector<std::string>{"metadata.json", kAbiHeader, testutil::kExampleHeader,
                                      testutil::kExampleSource, "parameters/default.bin",
                                      testutil::kExampleModel}));
}

TEST(ArchiveAssemblerTest, LaterCodeReplacesEarlierAndTheAbiHeaderIsAlwaysTheProjects) {
  const std::string out = FreshDir("replace") + "/a.tar";
  ArchiveAssembler assembler;
  StageExample(&assembler, false);
  assembler.AddCode(testutil::kExampleHeader, "#pragma once\nint tvmgen_default_run(void); /* 2 */\n");
  assembler.AddCode(kAbiHeader, "/* not the ABI */\n");
  ASSERT_TRUE(std::move(assembler).Write(out, {}).ok());
  const Entries entries = EntriesOf(out);
  ASSERT_EQ(entries.size(), 6u);
  EXPECT_EQ(entries[1], (std::pair<std::string, std::string>{kAbiHeader, *EmbeddedFile("model_abi.h")}));
  EXPECT_EQ(entries[2], (std::pair<std::string, std::string>{
                            testutil::kExampleHeader, "#pragma once\nint tvmgen_default_run(void); /* 2 */\n"}));
}

TEST(ArchiveAssemblerTest, StagingOrderDoesNotChangeTheBytes) {
  const std::string dir = FreshDir("order");
  const testutil::Example ex = MakeExample();
  ArchiveAssembler a;
  StageExample(&a, false);
  ASSERT_TRUE(std::move(a).Write(dir + "/a.tar", {}).ok());
  ArchiveAssembler b;
  b.AddMember({testutil::kExampleModel, MemberSource::Bytes(ex.members.at(testutil::kExampleModel)), false});
  b.AddCode(testutil::kExampleHeader, ex.members.at(testutil::kExampleHeader));
  b.AddCode(testutil::kExampleSource, ex.members.at(testutil::kExampleSource));
  ASSERT_TRUE(b.AddModule(ExampleModule(false)).ok());
  ASSERT_TRUE(std::move(b).Write(dir + "/b.tar", {}).ok());
  EXPECT_EQ(ReadFile(dir + "/a.tar"), ReadFile(dir + "/b.tar"));
}

TEST(ArchiveAssemblerTest, LibrariesAreBuiltInTheOrderModulesWereAdded) {
  const std::string out = FreshDir("two") + "/a.tar";
  ArchiveAssembler assembler;
  for (const std::string name : {"zeta", "alpha"}) {
    AssembledModule m;
    m.name = name;
    m.metadata = MakeExample().metadata.modules.at("default");
    m.metadata.parameters.reset();
    m.metadata.memory.constants_size_bytes = 0;
    m.metadata.source.reset();
    m.metadata.sources = {"codegen/host/src/" + name + ".c"};
    m.build_host_library = true;
    ASSERT_TRUE(assembler.AddModule(m).ok());
    assembler.AddCode("codegen/host/src/" + name + ".c", "int " + name + ";\n");
  }
  std::vector<BuildCall> calls;
  AssemblyOptions options;
  options.build_host_library = FakeBuilder(&calls);
  Result<Metadata> md = std::move(assembler).Write(out, options);
  ASSERT_TRUE(md.ok()) << md.status().ToString();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].sources, std::vector<std::string>{"codegen/host/src/zeta.c"});
  EXPECT_EQ(calls[1].sources, std::vector<std::string>{"codegen/host/src/alpha.c"});
  // Each build sees the whole archive's code.
  EXPECT_EQ(calls[0].code_paths, (std::vector<std::string>{kAbiHeader, "codegen/host/src/alpha.c",
                                                           "codegen/host/src/zeta.c"}));
  EXPECT_EQ(md->modules.at("alpha").host_library->path, "codegen/host/lib/alpha.so");
  EXPECT_EQ(md->modules.at("zeta").host_library->path, "codegen/host/lib/zeta.so");
}

TEST(ArchiveAssemblerTest, AModuleGivenTwiceIsRefused) {
  ArchiveAssembler assembler;
  ASSERT_TRUE(assembler.AddModule(ExampleModule(false)).ok());
  Status twice = assembler.AddModule(ExampleModule(true));
  EXPECT_EQ(twice.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(twice.message(), "module 'default' given twice");
}

TEST(ArchiveAssemblerTest, NameClashesAreRefusedBeforeAnythingIsBuiltOrWritten) {
  const std::string out = FreshDir("clash") + "/a.tar";
  ArchiveAssembler assembler;
  for (const char* name : {"a-b", "a_b"}) {
    AssembledModule m = ExampleModule(true);
    m.name = name;
    ASSERT_TRUE(assembler.AddModule(m).ok());
  }
  std::vector<BuildCall> calls;
  AssemblyOptions options;
  options.build_host_library = FakeBuilder(&calls);
  Result<Metadata> md = std::move(assembler).Write(out, options);
  ASSERT_FALSE(md.ok());
  EXPECT_EQ(md.status().message(), "modules 'a-b' and 'a_b' both map to the C name 'a_b'");
  EXPECT_TRUE(calls.empty());
  EXPECT_FALSE(Exists(out));
}

TEST(ArchiveAssemblerTest, ABuilderErrorNamesTheModuleAndLeavesTheOutputAsItWas) {
  const std::string out = FreshDir("fail") + "/a.tar";
  WriteFile(out, "old");
  ArchiveAssembler assembler;
  StageExample(&assembler, true);
  AssemblyOptions options;
  options.build_host_library = [](const std::map<std::string, std::string>&,
                                  const std::vector<std::string>&) -> Result<BuiltHostLibrary> {
    return FailedPrecondition("compiling the host library failed");
  };
  Result<Metadata> md = std::move(assembler).Write(out, options);
  ASSERT_FALSE(md.ok());
  EXPECT_EQ(md.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(md.status().message(), "module 'default': compiling the host library failed");
  EXPECT_EQ(ReadFile(out), "old");
}

TEST(ArchiveAssemblerTest, ALibraryWithoutABuilderIsRefused) {
  const std::string out = FreshDir("nobuilder") + "/a.tar";
  ArchiveAssembler assembler;
  StageExample(&assembler, true);
  Result<Metadata> md = std::move(assembler).Write(out, {});
  ASSERT_FALSE(md.ok());
  EXPECT_EQ(md.status().message(), "module 'default': a host library was asked for but no builder was given");
  EXPECT_FALSE(Exists(out));
}

}  // namespace
}  // namespace mlf
