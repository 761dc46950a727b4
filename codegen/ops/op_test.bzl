"""Macros for the operator-family tests in codegen/ops, which share one shape."""

def op_test(name, size = "medium", srcs = [], deps = [], data = []):
    """A cc_test from `<name>.cc` that links :ops, the op harness and gtest_main.

    Args:
      name: the test's name; its source is `<name>.cc`.
      size: the test's size.
      srcs: the test's further sources (helper headers).
      deps: the test's further dependencies.
      data: the test's data files.
    """
    native.cc_test(
        name = name,
        size = size,
        data = data,
        srcs = [name + ".cc"] + srcs,
        deps = [
            ":ops",
            "//codegen/ops/testing:op_harness",
        ] + deps + ["//third_party:gtest_main"],
    )

def op_shape_test(name, deps = []):
    """An op_test that also builds node functions through shape_test_util.h."""
    op_test(
        name = name,
        srcs = ["shape_test_util.h"],
        deps = ["//codegen/emit:node_function"] + deps,
    )
