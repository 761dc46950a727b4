"""mlf_cli_test: a test of the `mlf` command line in tests/."""

def mlf_cli_test(name, deps = [], data = [], **kwargs):
    """A cc_test from `<name>.cc` that runs the real //tools/mlf binary.

    It links tests/run_command.h (to run the binary), :test_support and
    //third_party:gtest_main; list only what the test needs besides them.

    Args:
      name: the test's name; its source is `<name>.cc`.
      deps: the test's further dependencies.
      data: the test's further data files (//tools/mlf is always there).
      **kwargs: further cc_test attributes (size, timeout, tags, ...).
    """
    native.cc_test(
        name = name,
        srcs = [name + ".cc"],
        data = data + ["//tools/mlf"],
        deps = [":run_command", ":test_support"] + deps + ["//third_party:gtest_main"],
        **kwargs
    )
