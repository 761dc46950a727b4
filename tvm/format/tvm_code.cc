#include "tvm/format/tvm_code.h"

#include <cctype>

namespace mlf {
namespace {

bool IsIdent(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The text with comments and the contents of string and character literals
// blanked out (kept as spaces, so offsets and lines stay) and
// backslash-newlines removed. Preprocessor lines keep their include paths:
// `#include "x.h"` is recorded before blanking.
struct CleanText {
  std::string code;
  std::vector<CodeInclude> includes;
};

void RecordInclude(std::string_view line, std::vector<CodeInclude>* out) {
  size_t i = 0;
  auto skip = [&] {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  };
  skip();
  if (i >= line.size() || line[i] != '#') return;
  ++i;
  skip();
  if (line.substr(i, 7) != "include") return;
  i += 7;
  skip();
  if (i >= line.size()) return;
  const char open = line[i];
  const char close = open == '<' ? '>' : open == '"' ? '"' : '\0';
  if (close == '\0') return;
  const size_t end = line.find(close, i + 1);
  if (end == std::string_view::npos || end == i + 1) return;
  out->push_back(CodeInclude{std::string(line.substr(i + 1, end - i - 1)), open == '<'});
}

CleanText Clean(std::string_view text) {
  CleanText out;
  out.code.reserve(text.size());
  // Includes, line by line (joined at backslash-newline).
  std::string line;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == '\n') {
      if (!line.empty() && line.back() == '\\') {
        line.pop_back();
        continue;
      }
      RecordInclude(line, &out.includes);
      line.clear();
      continue;
    }
    if (line.size() < 4096) line += text[i];
  }
  enum { kCode, kLineComment, kBlockComment, kString, kChar } state = kCode;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const char next = i + 1 < text.size() ? text[i + 1] : '\0';
    switch (state) {
      case kCode:
        if (c == '/' && next == '/') {
          state = kLineComment;
          out.code += ' ';
        } else if (c == '/' && next == '*') {
          state = kBlockComment;
          out.code += ' ';
          ++i;
        } else if (c == '"') {
          state = kString;
          out.code += '"';
        } else if (c == '\'') {
          state = kChar;
          out.code += '\'';
        } else {
          out.code += c;
        }
        break;
      case kLineComment:
        if (c == '\n') {
          state = kCode;
          out.code += '\n';
        }
        break;
      case kBlockComment:
        if (c == '*' && next == '/') {
          state = kCode;
          ++i;
        } else if (c == '\n') {
          out.code += '\n';
        }
        break;
      case kString:
      case kChar:
        if (c == '\\') {
          ++i;
        } else if ((state == kString && c == '"') || (state == kChar && c == '\'')) {
          out.code += c;
          state = kCode;
        } else if (c == '\n') {
          state = kCode;  // an unterminated literal ends at the line (as in C)
          out.code += '\n';
        }
        break;
    }
  }
  return out;
}

// Whether the '{' at `brace` opens `extern "C" {` (string contents are blanked
// by Clean, so the text before it reads `extern ""`).
bool IsExternCBrace(const std::string& code, size_t brace) {
  size_t i = brace;
  auto skip_space = [&] {
    size_t budget = 256;
    while (i > 0 && budget-- > 0 && std::isspace(static_cast<unsigned char>(code[i - 1]))) --i;
  };
  skip_space();
  if (i < 2 || code[i - 1] != '"' || code[i - 2] != '"') return false;
  i -= 2;
  skip_space();
  return i >= 6 && code.compare(i - 6, 6, "extern") == 0 && (i == 6 || !IsIdent(code[i - 7]));
}

struct ArchHeader {
  const char* header;
  CodeArch arch;
};

constexpr ArchHeader kArchHeaders[] = {
    {"arm_acle.h", CodeArch::kArmCortexM},
    {"arm_math.h", CodeArch::kArmCortexM},
    {"arm_nnfunctions.h", CodeArch::kArmCortexM},
    {"arm_nnsupportfunctions.h", CodeArch::kArmCortexM},
    {"arm_nn_types.h", CodeArch::kArmCortexM},
    {"arm_mve.h", CodeArch::kArmCortexM},
    {"cmsis_compiler.h", CodeArch::kArmCortexM},
    {"cmsis_gcc.h", CodeArch::kArmCortexM},
    {"arm_neon.h", CodeArch::kArm},
    {"riscv_vector.h", CodeArch::kRiscV},
    {"immintrin.h", CodeArch::kX86},
    {"xmmintrin.h", CodeArch::kX86},
    {"emmintrin.h", CodeArch::kX86},
    {"x86intrin.h", CodeArch::kX86},
};

// Arm DSP (SIMD) intrinsics of CMSIS / ACLE that TVM's Cortex-M schedules emit.
constexpr const char* kCortexMIntrinsics[] = {
    "__SMLAD", "__SMLADX", "__SMLALD", "__SMLSD", "__SMUAD", "__SMUADX", "__SXTB16",
    "__SXTAB16", "__SSUB8", "__SSUB16", "__SADD8", "__SADD16", "__QADD", "__QADD8",
    "__QADD16", "__QSUB", "__QSUB8", "__QSUB16", "__SSAT", "__USAT", "__SEL", "__PKHBT",
    "__PKHTB", "__ROR", "__smlad", "__sxtb16", "__ssub8", "__qadd8", "__sel",
};

std::string_view BaseName(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Entry functions whose bodies the scan keeps (CodeEntryBody).
bool IsEntryFunction(std::string_view name) {
  return EndsWith(name, "_run_model") || EndsWith(name, "___tvm_main__");
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// `text` split at the commas outside parentheses and brackets.
std::vector<std::string_view> SplitTopLevel(std::string_view text) {
  std::vector<std::string_view> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    const char c = i < text.size() ? text[i] : ',';
    if (c == '(' || c == '[') ++depth;
    if ((c == ')' || c == ']') && depth > 0) --depth;
    if (c == ',' && depth == 0) {
      out.push_back(Trim(text.substr(start, i - start)));
      start = i + 1;
    }
  }
  return out;
}

bool IsIdentifier(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s) {
    if (!IsIdent(c)) return false;
  }
  return true;
}

// "float * placeholder" -> {"float*", "placeholder"}; "void" -> none.
std::vector<CodeParam> ParseParams(std::string_view list) {
  std::vector<CodeParam> out;
  list = Trim(list);
  if (list.empty() || list == "void") return out;
  for (std::string_view decl : SplitTopLevel(list)) {
    size_t end = decl.size();
    while (end > 0 && !IsIdent(decl[end - 1])) --end;  // an array suffix is not kept
    size_t begin = end;
    while (begin > 0 && IsIdent(decl[begin - 1])) --begin;
    CodeParam p;
    std::string_view type = decl;
    // A declaration of one word ("int") or ending in '*' names no parameter.
    if (begin > 0 && end == decl.size()) {
      p.name = std::string(decl.substr(begin, end - begin));
      type = decl.substr(0, begin);
    }
    // Words joined by one space, none around '*': "struct a *" -> "struct a*".
    bool space = false;
    for (char c : Trim(type)) {
      if (std::isspace(static_cast<unsigned char>(c))) {
        space = true;
        continue;
      }
      if (space && c != '*' && !p.type.empty() && p.type.back() != '*') p.type += ' ';
      space = false;
      p.type += c;
    }
    out.push_back(std::move(p));
  }
  return out;
}

// Calls of tvmgen_ functions and `a = b;` aliases in an entry body.
CodeEntryBody ScanEntryBody(std::string_view body, bool keep_calls) {
  CodeEntryBody out;
  std::vector<std::string_view> words;  // identifiers and single punctuation characters
  for (size_t i = 0; i < body.size();) {
    const char c = body[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    size_t end = i + 1;
    if (IsIdent(c)) {
      while (end < body.size() && IsIdent(body[end])) ++end;
    }
    words.push_back(body.substr(i, end - i));
    if (keep_calls && words.back().rfind("tvmgen_", 0) == 0) {
      size_t open = end;
      while (open < body.size() && std::isspace(static_cast<unsigned char>(body[open]))) ++open;
      if (open < body.size() && body[open] == '(') {
        int depth = 0;
        size_t close = open;
        for (; close < body.size(); ++close) {
          if (body[close] == '(') ++depth;
          if (body[close] == ')' && --depth == 0) break;
        }
        if (close < body.size()) {
          CodeCall call{std::string(words.back()), {}};
          for (std::string_view arg : SplitTopLevel(body.substr(open + 1, close - open - 1))) {
            call.args.push_back(IsIdentifier(arg) ? std::string(arg) : "");
          }
          out.calls.push_back(std::move(call));
        }
      }
    }
    const size_t n = words.size();
    if (n >= 4 && words[n - 1] == ";" && IsIdentifier(words[n - 2]) && words[n - 3] == "=" &&
        IsIdentifier(words[n - 4])) {
      out.aliases[std::string(words[n - 4])] = std::string(words[n - 2]);
    }
    if (n >= 5 && IsIdentifier(words[n - 1]) && words[n - 2] == ")" && words[n - 3] == "*" &&
        IsIdentifier(words[n - 4]) && words[n - 5] == "(") {
      out.casts.emplace(std::string(words[n - 1]), std::string(words[n - 4]));
    }
    i = end;
  }
  return out;
}

void NoteArch(TvmCodeScan* scan, CodeArch arch, std::string evidence) {
  if (scan->arch != CodeArch::kAny) return;  // the first evidence wins
  scan->arch = arch;
  scan->arch_evidence = std::move(evidence);
}

}  // namespace

TvmCodeScan ScanTvmCode(std::string_view text) {
  CleanText clean = Clean(text);
  TvmCodeScan scan;
  scan.includes = std::move(clean.includes);
  for (const CodeInclude& inc : scan.includes) {
    for (const ArchHeader& h : kArchHeaders) {
      if (BaseName(inc.path) == h.header) {
        NoteArch(&scan, h.arch,
                 std::string("includes ") + (inc.angled ? "<" : "\"") + inc.path +
                     (inc.angled ? ">" : "\""));
      }
    }
  }
  // One linear pass: a tvmgen_ identifier at file scope (outside any
  // parentheses or braces; `extern "C" {` blocks do not count) followed by
  // "(...)" and then '{' is a definition.
  const std::string& code = clean.code;
  int parens = 0;
  std::vector<bool> brace_is_extern_c;  // one entry per open brace
  int braces = 0;                       // open braces other than extern "C"
  std::string candidate;                // a file-scope tvmgen_ name just seen
  std::string in_params;                // the name whose parameter list is open
  std::string after_params;             // the name whose parameter list just closed
  size_t params_open = 0, params_close = 0;  // the parameter list of in_params / after_params
  std::string body_of;                  // the entry function whose body is open
  size_t body_start = 0;
  for (size_t i = 0; i < code.size(); ++i) {
    const char c = code[i];
    if (std::isspace(static_cast<unsigned char>(c))) continue;
    if (!after_params.empty()) {
      if (c == '{' && braces == 0) {
        scan.defined_functions.insert(after_params);
        scan.function_params[after_params] =
            ParseParams(std::string_view(code).substr(params_open + 1, params_close - params_open - 1));
        body_of = after_params;
        body_start = i + 1;
      }
      after_params.clear();
    }
    if (IsIdent(c) && (i == 0 || !IsIdent(code[i - 1]))) {
      size_t end = i;
      while (end < code.size() && IsIdent(code[end])) ++end;
      const std::string_view word(code.data() + i, end - i);
      candidate.clear();
      if (parens == 0 && braces == 0 && word.rfind("tvmgen_", 0) == 0) candidate = std::string(word);
      if (parens == 0 && braces == 0 && scan.linked_params.empty()) {
        if (word.rfind("__tvm_param__", 0) == 0) {
          scan.linked_params = "defines " + std::string(word);
        } else if (word == "global_const_workspace") {
          scan.linked_params = "defines the constant pool global_const_workspace";
        }
      }
      if (word.rfind("__", 0) == 0) {
        for (const char* intrinsic : kCortexMIntrinsics) {
          if (word != intrinsic) continue;
          size_t p = end;
          while (p < code.size() && std::isspace(static_cast<unsigned char>(code[p]))) ++p;
          if (p < code.size() && code[p] == '(') NoteArch(&scan, CodeArch::kArmCortexM, "uses " + std::string(word));
        }
      }
      i = end - 1;
      continue;
    }
    if (c == '(') {
      if (parens == 0 && braces == 0) {
        in_params = candidate;
        params_open = i;
      }
      ++parens;
    } else if (c == ')') {
      if (parens > 0 && --parens == 0 && braces == 0 && !in_params.empty()) {
        after_params = in_params;
        params_close = i;
        in_params.clear();
      }
    } else if (c == '{') {
      const bool extern_c = IsExternCBrace(code, i);
      brace_is_extern_c.push_back(extern_c);
      if (!extern_c) ++braces;
    } else if (c == '}') {
      if (!brace_is_extern_c.empty()) {
        if (!brace_is_extern_c.back()) --braces;
        brace_is_extern_c.pop_back();
      }
      if (braces == 0 && !body_of.empty()) {
        scan.entry_bodies[body_of] = ScanEntryBody(
            std::string_view(code).substr(body_start, i - body_start), IsEntryFunction(body_of));
        body_of.clear();
      }
    }
    candidate.clear();
  }
  // The section attribute's name is a string literal, which Clean blanked.
  if (scan.linked_params.empty() && text.find("\".rodata.tvm\"") != std::string_view::npos) {
    scan.linked_params = "keeps constants in section .rodata.tvm";
  }
  return scan;
}

const char* CodeArchName(CodeArch arch) {
  switch (arch) {
    case CodeArch::kAny: return "portable C";
    case CodeArch::kArmCortexM: return "Arm Cortex-M (CMSIS / DSP intrinsics)";
    case CodeArch::kArm: return "Arm or AArch64 (NEON)";
    case CodeArch::kX86: return "x86 (SSE/AVX intrinsics)";
    case CodeArch::kRiscV: return "RISC-V (vector intrinsics)";
  }
  return "unknown";
}

bool CodeArchRunsOnThisHost(CodeArch arch) {
  switch (arch) {
    case CodeArch::kAny: return true;
    case CodeArch::kArmCortexM: return false;  // no host mlfkit runs on is a Cortex-M
#if defined(__aarch64__) || defined(__arm__)
    case CodeArch::kArm: return true;
#else
    case CodeArch::kArm: return false;
#endif
#if defined(__x86_64__) || defined(__i386__)
    case CodeArch::kX86: return true;
#else
    case CodeArch::kX86: return false;
#endif
#if defined(__riscv)
    case CodeArch::kRiscV: return true;
#else
    case CodeArch::kRiscV: return false;
#endif
  }
  return false;
}

std::string DTypeOfCType(std::string_view c_type) {
  static const std::pair<const char*, const char*> kTypes[] = {
      {"float", "float32"},   {"double", "float64"},  {"int8_t", "int8"},     {"uint8_t", "uint8"},
      {"int16_t", "int16"},   {"uint16_t", "uint16"}, {"int32_t", "int32"},   {"uint32_t", "uint32"},
      {"int64_t", "int64"},   {"uint64_t", "uint64"}, {"signed char", "int8"}, {"bool", "bool"},
  };
  c_type = Trim(c_type);
  if (c_type.rfind("const ", 0) == 0) c_type = Trim(c_type.substr(6));
  for (const auto& [c, dtype] : kTypes) {
    if (c_type == c) return dtype;
  }
  return "";
}

namespace {

// Members "<type> *name;" of `struct <name> { ... };` in order.
bool StructMembers(const std::string& code, const std::string& name, std::vector<std::string>* out) {
  size_t at = 0;
  while ((at = code.find("struct", at)) != std::string::npos) {
    size_t i = at + 6;
    at = i;
    if (i < code.size() && IsIdent(code[i])) continue;
    while (i < code.size() && std::isspace(static_cast<unsigned char>(code[i]))) ++i;
    if (code.compare(i, name.size(), name) != 0) continue;
    i += name.size();
    if (i < code.size() && IsIdent(code[i])) continue;
    while (i < code.size() && std::isspace(static_cast<unsigned char>(code[i]))) ++i;
    if (i >= code.size() || code[i] != '{') continue;
    const size_t close = code.find('}', i);
    if (close == std::string::npos) return false;
    std::string_view body(code.data() + i + 1, close - i - 1);
    size_t start = 0;
    while (start < body.size()) {
      size_t semi = body.find(';', start);
      if (semi == std::string_view::npos) break;
      std::string_view decl = body.substr(start, semi - start);
      start = semi + 1;
      size_t end = decl.size();
      while (end > 0 && !IsIdent(decl[end - 1])) --end;
      size_t begin = end;
      while (begin > 0 && IsIdent(decl[begin - 1])) --begin;
      if (begin < end) out->push_back(std::string(decl.substr(begin, end - begin)));
    }
    return true;
  }
  return false;
}

}  // namespace

TvmInterfaceHeader ParseTvmInterfaceHeader(std::string_view text, const std::string& c_module) {
  TvmInterfaceHeader h;
  const std::string code = Clean(text).code;
  const std::string prefix = "tvmgen_" + c_module + "_";
  h.has_inputs_struct = StructMembers(code, prefix + "inputs", &h.inputs);
  h.has_outputs_struct = StructMembers(code, prefix + "outputs", &h.outputs);
  const std::string run = prefix + "run";
  for (size_t at = code.find(run); at != std::string::npos; at = code.find(run, at + 1)) {
    if ((at > 0 && IsIdent(code[at - 1])) || IsIdent(code[at + run.size()])) continue;
    size_t open = at + run.size();
    while (open < code.size() && std::isspace(static_cast<unsigned char>(code[open]))) ++open;
    if (open >= code.size() || code[open] != '(') continue;
    const size_t close = code.find(')', open);
    if (close == std::string::npos) break;
    h.declares_run = true;
    std::string_view params(code.data() + open + 1, close - open - 1);
    for (size_t p = params.find(prefix); p != std::string_view::npos; p = params.find(prefix, p + 1)) {
      size_t e = p + prefix.size();
      while (e < params.size() && IsIdent(params[e])) ++e;
      h.run_parameters.push_back(std::string(params.substr(p + prefix.size(), e - p - prefix.size())));
    }
    break;
  }
  // #define NAME 1234 (after cleaning, the directive is on one line).
  size_t line_start = 0;
  while (line_start < code.size()) {
    size_t line_end = code.find('\n', line_start);
    if (line_end == std::string::npos) line_end = code.size();
    std::string_view line(code.data() + line_start, line_end - line_start);
    line_start = line_end + 1;
    size_t i = 0;
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (line.substr(i, 1) != "#") continue;
    ++i;
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (line.substr(i, 6) != "define") continue;
    i += 6;
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    size_t name_end = i;
    while (name_end < line.size() && IsIdent(line[name_end])) ++name_end;
    if (name_end == i) continue;
    std::string name(line.substr(i, name_end - i));
    i = name_end;
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    uint64_t value = 0;
    size_t digits = 0;
    while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i])) && digits < 19) {
      value = value * 10 + static_cast<uint64_t>(line[i] - '0');
      ++i;
      ++digits;
    }
    while (i < line.size() && (line[i] == 'u' || line[i] == 'U' || line[i] == 'l' || line[i] == 'L')) ++i;
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (digits > 0 && i == line.size()) h.numeric_macros[name] = value;
  }
  return h;
}

}  // namespace mlf
