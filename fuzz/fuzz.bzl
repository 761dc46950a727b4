"""mlf_fuzz_target: one fuzz target source, built two ways (fuzz/fuzz_target.h)."""

def mlf_fuzz_target(name, deps):
    """Declares `<name>_fuzzer` (libFuzzer binary) and `<name>_replay` (library).

    `<name>_fuzzer` links libFuzzer's main (-fsanitize=fuzzer): it only builds
    with clang and the flags of fuzz/bazelrc (scripts/fuzz.sh), so it is tagged
    manual and `bazel build //...` skips it. `<name>_replay` builds with any
    compiler; :regression_test links every one of them.

    Args:
      name: the target's name; its source is `<name>_fuzzer.cc`.
      deps: the libraries the target exercises.
    """
    native.cc_binary(
        name = name + "_fuzzer",
        srcs = [name + "_fuzzer.cc"],
        linkopts = ["-fsanitize=fuzzer"],
        tags = ["manual"],
        deps = deps + [":fuzz_target"],
    )
    native.cc_library(
        name = name + "_replay",
        testonly = True,
        srcs = [name + "_fuzzer.cc"],
        local_defines = ["MLF_FUZZ_REPLAY"],
        alwayslink = True,
        deps = deps + [":fuzz_target"],
    )
