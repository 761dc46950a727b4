#include "artifact/format/name_clash.h"

#include <map>
#include <set>

#include "artifact/base/display_text.h"
#include "artifact/format/c_name.h"

namespace mlf {
namespace {

// C keywords from C89 to C23: a struct member cannot have these names.
const std::set<std::string_view>& Keywords() {
  static const std::set<std::string_view> words = {
      // C89
      "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
      "enum", "extern", "float", "for", "goto", "if", "int", "long", "register", "return",
      "short", "signed", "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned",
      "void", "volatile", "while",
      // C99
      "inline", "restrict", "_Bool", "_Complex", "_Imaginary",
      // C11 (C17 added none)
      "_Alignas", "_Alignof", "_Atomic", "_Generic", "_Noreturn", "_Static_assert",
      "_Thread_local",
      // C23 (GCC 15 compiles C23 by default)
      "alignas", "alignof", "bool", "constexpr", "false", "nullptr", "static_assert",
      "thread_local", "true", "typeof", "typeof_unqual", "_BitInt", "_Decimal32", "_Decimal64",
      "_Decimal128"};
  return words;
}

// Object-like macros of the headers generated code includes (<stddef.h>,
// <stdint.h>, <string.h>, <math.h>), and those GCC predefines in the GNU
// modes TVM's code is compiled in: a struct member with one of these names
// is replaced by the preprocessor. <stdint.h>'s limits are matched by shape
// below.
const std::set<std::string_view>& StandardMacros() {
  static const std::set<std::string_view> names = {
      "NULL", "PTRDIFF_MIN", "PTRDIFF_MAX", "PTRDIFF_WIDTH", "SIG_ATOMIC_MIN", "SIG_ATOMIC_MAX",
      "SIG_ATOMIC_WIDTH", "SIZE_MAX", "SIZE_WIDTH", "WCHAR_MIN", "WCHAR_MAX", "WCHAR_WIDTH",
      "WINT_MIN", "WINT_MAX", "WINT_WIDTH", "HUGE_VAL", "HUGE_VALF", "HUGE_VALL", "INFINITY",
      "NAN", "FP_INFINITE", "FP_NAN", "FP_NORMAL", "FP_SUBNORMAL", "FP_ZERO", "FP_FAST_FMA",
      "FP_FAST_FMAF", "FP_FAST_FMAL", "FP_ILOGB0", "FP_ILOGBNAN", "MATH_ERRNO", "MATH_ERREXCEPT",
      "math_errhandling", "M_E", "M_LOG2E", "M_LOG10E", "M_LN2", "M_LN10", "M_PI", "M_PI_2",
      "M_PI_4", "M_1_PI", "M_2_PI", "M_2_SQRTPI", "M_SQRT2", "M_SQRT1_2", "linux", "unix",
      "i386"};
  return names;
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// INT8_MIN, UINT_LEAST16_MAX, INTPTR_WIDTH, UINTMAX_MAX, ...
bool IsStdintLimit(std::string_view s) {
  if (StartsWith(s, "U")) s.remove_prefix(1);
  if (!StartsWith(s, "INT")) return false;
  s.remove_prefix(3);
  for (std::string_view kind : {"_LEAST", "_FAST"}) {
    if (StartsWith(s, kind)) s.remove_prefix(kind.size());
  }
  bool known_width = false;
  for (std::string_view width : {"8", "16", "32", "64", "PTR", "MAX"}) {
    if (StartsWith(s, width)) {
      s.remove_prefix(width.size());
      known_width = true;
      break;
    }
  }
  return known_width && (s == "_MIN" || s == "_MAX" || s == "_WIDTH");
}

// Who owns a generated name.
struct Owner {
  enum Kind { kModule, kInput, kOutput, kInterface } kind;
  std::string module;  // the module (kModule: itself)
  std::string name;    // tensor name; kInterface: what the macro is ("its workspace size")
  std::string c_name;  // tensor or module C name
};

std::string Describe(const Owner& o) {
  switch (o.kind) {
    case Owner::kModule:
      return "module " + QuoteForMessage(o.module);
    case Owner::kInput:
      return "input " + QuoteForMessage(o.name);
    case Owner::kOutput:
      return "output " + QuoteForMessage(o.name);
    case Owner::kInterface:
      break;
  }
  return "the C interface of module " + QuoteForMessage(o.module);
}

bool SameOwner(const Owner& a, const Owner& b) {
  return a.kind == b.kind && a.module == b.module && a.name == b.name;
}

// A generated name: what it is ("the macro X") and whether one says the
// originals "map to" it (C names) or "give" it (everything derived).
struct Form {
  std::string key;
  std::string what;
  bool is_c_name = false;
};

std::string InModule(const std::string& module) {
  return "module " + QuoteForMessage(module) + ": ";
}

Status ClashError(const Owner& first, const Owner& second, const Form& form) {
  const std::string verb = form.is_c_name ? "map to " : "give ";
  if (first.kind == Owner::kInterface) {
    return InvalidArgument(InModule(second.module) + Describe(second) + " gives " + form.what +
                           ", which " + Describe(first) + " defines as " + first.name);
  }
  if (first.kind == Owner::kModule) {
    return InvalidArgument("modules " + QuoteForMessage(first.module) + " and " +
                           QuoteForMessage(second.module) + " both " + verb + form.what);
  }
  if (SameOwner(first, second)) {
    return InvalidArgument(InModule(first.module) + Describe(first) + " is listed twice");
  }
  std::string note;
  if (first.c_name != second.c_name && ToMacroCase(first.c_name) == ToMacroCase(second.c_name)) {
    note = " (their C names differ only in case, so on a case-insensitive file system their "
           "files would collide too)";
  }
  if (first.module == second.module) {
    return InvalidArgument(InModule(first.module) + Describe(first) + " and " + Describe(second) +
                           " both " + verb + form.what + note);
  }
  return InvalidArgument(Describe(first) + " of module " + QuoteForMessage(first.module) + " and " +
                         Describe(second) + " of module " + QuoteForMessage(second.module) +
                         " both " + verb + form.what + note);
}

// Hands out generated names; the second owner of one is an error.
class NameTable {
 public:
  Status Claim(const Form& form, const Owner& owner) {
    auto [it, inserted] = owners_.emplace(form.key, owner);
    if (inserted) return Status::Ok();
    return ClashError(it->second, owner, form);
  }

  Status AddModule(const std::string& module) {
    if (module.size() > kMaxModuleNameBytes) {
      return InvalidArgument("module " + QuoteForMessage(module, 40) + " has a name of " +
                             std::to_string(module.size()) + " bytes; module names become file " +
                             "names and may be at most " + std::to_string(kMaxModuleNameBytes) +
                             " bytes");
    }
    const std::string c = SanitizeCName(module);
    const Owner owner{Owner::kModule, module, "", c};
    MLF_RETURN_IF_ERROR(Claim({"c:" + c, "the C name " + QuoteForMessage(c), true}, owner));
    const std::string guard = "TVMGEN_" + ToMacroCase(c) + "_H_";
    return Claim({"macro:" + guard,
                  "the header guard " + guard +
                      " (their C names differ only in case, so on a case-insensitive file "
                      "system their files would collide too)",
                  false},
                 owner);
  }

  // The macros the C interface defines besides one per input and output.
  Status AddInterfaceMacros(const std::string& module) {
    const std::string prefix = "TVMGEN_" + ToMacroCase(SanitizeCName(module)) + "_";
    for (const auto& [suffix, meaning] :
         {std::pair<const char*, const char*>{"WORKSPACE_SIZE", "its workspace size"},
          {"CONSTANTS_SIZE", "its parameter blob size"}}) {
      const std::string macro = prefix + suffix;
      MLF_RETURN_IF_ERROR(
          Claim({"macro:" + macro, "the macro " + macro, false},
                Owner{Owner::kInterface, module, meaning, ""}));
    }
    return Status::Ok();
  }

  Status AddTensors(const std::string& module, const ModuleMetadata& m) {
    const std::string prefix = "TVMGEN_" + ToMacroCase(SanitizeCName(module)) + "_";
    for (const auto& [kind, list] : {std::pair{Owner::kInput, &m.inputs}, {Owner::kOutput, &m.outputs}}) {
      for (const TensorInfo& t : *list) {
        const Owner owner{kind, module, t.name, t.c_name};
        const std::string reserved = ReservedCNameReason(t.c_name);
        if (!reserved.empty()) {
          return InvalidArgument(InModule(module) + Describe(owner) + " has the C name " +
                                 QuoteForMessage(t.c_name) + ", which " + reserved);
        }
        std::string key = "member:" + module;
        key.push_back('\0');
        MLF_RETURN_IF_ERROR(
            Claim({key + t.c_name, "the C name " + QuoteForMessage(t.c_name), true}, owner));
        const std::string macro = prefix + ToMacroCase(t.c_name) + "_SIZE";
        MLF_RETURN_IF_ERROR(Claim({"macro:" + macro, "the macro " + macro, false}, owner));
      }
    }
    return Status::Ok();
  }

 private:
  std::map<std::string, Owner> owners_;
};

}  // namespace

std::string ReservedCNameReason(std::string_view c_name) {
  if (Keywords().count(c_name)) return "is a C keyword";
  if (StandardMacros().count(c_name) || IsStdintLimit(c_name)) {
    return "is a macro of the C headers the generated code includes";
  }
  if (StartsWith(c_name, "__")) return "begins with '__', which C reserves for the compiler";
  for (std::string_view prefix : {"TVMGEN_", "MLF_"}) {
    if (StartsWith(c_name, prefix)) {
      return "begins with " + std::string(prefix) + ", the prefix of the generated code's macros";
    }
  }
  return "";
}

Status CheckModuleNameClashes(const std::vector<std::string>& modules) {
  NameTable table;
  for (const std::string& module : modules) MLF_RETURN_IF_ERROR(table.AddModule(module));
  return Status::Ok();
}

Status CheckGeneratedNames(const Metadata& metadata) {
  NameTable table;
  for (const auto& [name, module] : metadata.modules) MLF_RETURN_IF_ERROR(table.AddModule(name));
  for (const auto& [name, module] : metadata.modules) {
    MLF_RETURN_IF_ERROR(table.AddInterfaceMacros(name));
  }
  for (const auto& [name, module] : metadata.modules) {
    MLF_RETURN_IF_ERROR(table.AddTensors(name, module));
  }
  return Status::Ok();
}

Status CheckGeneratedNames(const std::string& module, const ModuleMetadata& m) {
  NameTable table;
  MLF_RETURN_IF_ERROR(table.AddModule(module));
  MLF_RETURN_IF_ERROR(table.AddInterfaceMacros(module));
  return table.AddTensors(module, m);
}

}  // namespace mlf
