"""Build macros for the project's BUILD files.

cc_unit writes the project's usual pair once: a header/implementation pair and
its test beside it (foo.h, foo.cc, foo_test.cc). Targets that do not follow
that pattern keep their cc_library/cc_test rules."""

def cc_unit(
        name,
        deps = [],
        test_deps = [],
        test_data = [],
        test_size = None,
        test_linkopts = [],
        **kwargs):
    """Declares the library `name` (name.h, name.cc) and its test `name_test` (name_test.cc).

    The test links the library and //third_party:gtest_main; list only what it
    needs besides them in `test_deps`.

    Args:
      name: the library's name; the test is `<name>_test`.
      deps: the library's dependencies.
      test_deps: the test's further dependencies.
      test_data: the test's data files.
      test_size: the test's size, when it is not Bazel's default.
      test_linkopts: the test's link options.
      **kwargs: further cc_library attributes (linkopts, ...).
    """
    native.cc_library(
        name = name,
        srcs = [name + ".cc"],
        hdrs = [name + ".h"],
        deps = deps,
        **kwargs
    )
    test_attrs = {}
    if test_size:
        test_attrs["size"] = test_size
    native.cc_test(
        name = name + "_test",
        srcs = [name + "_test.cc"],
        data = test_data,
        linkopts = test_linkopts,
        deps = [":" + name] + test_deps + ["//third_party:gtest_main"],
        **test_attrs
    )
