// embed: writes a C++ header and source that compile files into a binary.
// Called by the embed_files() macro (embed.bzl); see kUsage for the command.
//
// The source holds each file as a string literal in which every byte that is
// not plain printable ASCII is escaped (also quotes, backslashes and '?',
// against trigraphs), so no content can break the generated code, and the
// table is constant-initialised, so it may be used during static
// initialisation. The output depends only on the keys and
// bytes of the inputs, never on host paths or time: builds are reproducible.
#include <fstream>
#include <iostream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr char kUsage[] =
    "usage: embed --function NS::NAME --include HEADER --strip PREFIX OUT.h OUT.cc FILE...\n"
    "Writes OUT.h, declaring `::mlf::embed::Table NS::NAME()` (embed/embedded_files.h),\n"
    "and OUT.cc (which includes it as HEADER), defining it over the bytes of each FILE.\n"
    "Each FILE (relative to the execution root, as in a genrule) is keyed by its path\n"
    "below its repository's root (so also under bazel-out/*/bin/) with PREFIX removed.\n";

struct Options {
  std::string ns;        // namespace of the generated function, e.g. "mlf::firmware"
  std::string function;  // its name, e.g. "TemplateFiles"
  std::string include;   // how OUT.cc includes OUT.h
  std::string strip;     // removed from each file's path to make its key
  std::string out_h, out_cc;
  std::vector<std::string> files;
};

struct Input {
  std::string key;
  std::string data;
};

bool Fail(const std::string& message) {
  std::cerr << "embed: " << message << "\n";
  return false;
}

bool IsIdentifier(const std::string& s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_';
    if (!ok) return false;
  }
  return true;
}

// Splits "a::b::Name" into namespace "a::b" and "Name"; false unless every
// part is an identifier and there is a namespace.
bool SplitQualified(const std::string& qualified, std::string* ns, std::string* name) {
  const size_t last = qualified.rfind("::");
  if (last == std::string::npos || last == 0) return false;
  *ns = qualified.substr(0, last);
  *name = qualified.substr(last + 2);
  if (!IsIdentifier(*name)) return false;
  for (size_t begin = 0;;) {
    const size_t end = ns->find("::", begin);
    if (!IsIdentifier(ns->substr(begin, end - begin))) return false;
    if (end == std::string::npos) return true;
    begin = end + 2;
  }
}

// Reads the command line; false (after printing why) on bad usage.
bool ParseArgs(int argc, char** argv, Options* options) {
  std::vector<std::string> positional;
  std::string function;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    std::string* value = arg == "--function"  ? &function
                         : arg == "--include" ? &options->include
                         : arg == "--strip"   ? &options->strip
                                              : nullptr;
    if (value == nullptr) {
      if (arg.size() > 1 && arg[0] == '-') return Fail("unknown option " + arg);
      positional.push_back(arg);
    } else if (i + 1 == argc) {
      return Fail(arg + " wants a value");
    } else {
      *value = argv[++i];
    }
  }
  if (!SplitQualified(function, &options->ns, &options->function)) {
    return Fail("--function wants a qualified C++ name such as mlf::Files, not '" + function +
                "'");
  }
  if (options->include.empty()) return Fail("--include wants the path OUT.cc includes OUT.h by");
  if (positional.size() < 3) return Fail("wants OUT.h, OUT.cc and at least one FILE");
  options->out_h = positional[0];
  options->out_cc = positional[1];
  options->files.assign(positional.begin() + 2, positional.end());
  return true;
}

// Removes the first `n` components of `path`; false when it has fewer.
bool DropComponents(std::string* path, int n) {
  size_t at = 0;
  for (int i = 0; i < n; ++i) {
    at = path->find('/', at);
    if (at == std::string::npos) return false;
    ++at;
  }
  path->erase(0, at);
  return true;
}

// The key of `path` (relative to the execution root, as a genrule sees it):
// its path below its repository's root with `strip` removed from the front;
// false when that path does not start with `strip`.
bool KeyOf(std::string path, const std::string& strip, std::string* key) {
  if (path.rfind("bazel-out/", 0) == 0) DropComponents(&path, 3);  // bazel-out/<config>/bin/
  if (path.rfind("external/", 0) == 0) DropComponents(&path, 2);   // external/<repository>/
  if (path.rfind(strip, 0) != 0 || path.size() == strip.size()) return false;
  *key = path.substr(strip.size());
  return true;
}

bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  out->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return !in.bad();
}

bool ReadInputs(const Options& options, std::vector<Input>* inputs) {
  std::set<std::string> keys;
  for (const std::string& path : options.files) {
    Input input;
    if (!KeyOf(path, options.strip, &input.key)) {
      return Fail(path + " is not below '" + options.strip + "'");
    }
    if (!keys.insert(input.key).second) return Fail("two files have the key " + input.key);
    if (!ReadFile(path, &input.data)) return Fail("cannot read " + path);
    inputs->push_back(std::move(input));
  }
  return true;
}

// `byte` as it stands inside a C++ string literal: itself when printable,
// else a simple escape (\n, \t, \", \\) or a three-digit octal one ('?' too, so
// no trigraph forms; three digits, so a following digit is never absorbed).
std::string Escaped(unsigned char byte) {
  switch (byte) {
    case '\n': return "\\n";
    case '\t': return "\\t";
    case '"': return "\\\"";
    case '\\': return "\\\\";
  }
  if (byte >= 0x20 && byte < 0x7f && byte != '?') return std::string(1, static_cast<char>(byte));
  const char digits[] = {'\\', static_cast<char>('0' + (byte >> 6)),
                         static_cast<char>('0' + ((byte >> 3) & 7)),
                         static_cast<char>('0' + (byte & 7))};
  return std::string(digits, sizeof(digits));
}

// `text` as a C++ string literal on one line.
std::string Quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) out += Escaped(static_cast<unsigned char>(c));
  return out + "\"";
}

// `text` as a C++ string literal, on as many lines as it has (and at most
// about 100 characters a line), each line indented by four spaces.
std::string Literal(const std::string& text) {
  std::string out = "    \"";
  size_t line_length = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const std::string piece = Escaped(static_cast<unsigned char>(text[i]));
    out += piece;
    line_length += piece.size();
    if ((text[i] == '\n' || line_length >= 100) && i + 1 < text.size()) {
      out += "\"\n    \"";
      line_length = 0;
    }
  }
  return out + "\"";
}

std::string HeaderGuard(const std::string& include) {
  std::string guard = "MLFKIT_";
  for (char c : include) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    guard += alnum ? static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c) : '_';
  }
  return guard + "_";
}

std::string Header(const Options& options) {
  const std::string guard = HeaderGuard(options.include);
  std::ostringstream out;
  out << "// Generated by //embed. Do not edit: change the embedded files.\n"
      << "#ifndef " << guard << "\n#define " << guard << "\n\n"
      << "#include \"embed/embedded_files.h\"\n\n"
      << "namespace " << options.ns << " {\n\n"
      << "// The embedded files, keyed by their paths below " << Quoted(options.strip) << ".\n"
      << "::mlf::embed::Table " << options.function << "();\n\n"
      << "}  // namespace " << options.ns << "\n\n#endif  // " << guard << "\n";
  return out.str();
}

std::string Source(const Options& options, const std::vector<Input>& inputs) {
  std::ostringstream out;
  out << "// Generated by //embed. Do not edit: change the embedded files.\n"
      << "#include \"" << options.include << "\"\n\n"
      << "namespace " << options.ns << " {\nnamespace {\n\n";
  for (size_t i = 0; i < inputs.size(); ++i) {
    out << "// " << Quoted(inputs[i].key) << ", " << inputs[i].data.size() << " bytes\n"
        << "constexpr char kFile" << i << "[] =\n"
        << Literal(inputs[i].data) << ";\n\n";
  }
  out << "constexpr ::mlf::embed::Entry kEntries[] = {\n";
  for (size_t i = 0; i < inputs.size(); ++i) {
    out << "    {" << Quoted(inputs[i].key) << ", {kFile" << i << ", "
        << inputs[i].data.size() << "u}},\n";
  }
  out << "};\n\n}  // namespace\n\n"
      << "::mlf::embed::Table " << options.function << "() { return {kEntries, "
      << inputs.size() << "u}; }\n\n}  // namespace " << options.ns << "\n";
  return out.str();
}

bool WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  return out ? true : Fail("cannot write " + path);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "--help") {
    std::cout << kUsage;
    return 0;
  }
  Options options;
  if (!ParseArgs(argc, argv, &options)) {
    std::cerr << kUsage;
    return 2;
  }
  std::vector<Input> inputs;
  if (!ReadInputs(options, &inputs)) return 1;
  const bool written = WriteFile(options.out_h, Header(options)) &&
                       WriteFile(options.out_cc, Source(options, inputs));
  return written ? 0 : 1;
}
