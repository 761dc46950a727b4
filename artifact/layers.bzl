"""Who may depend on what: the layers of docs/design.md ("Layers") as Bazel visibility.

Each artifact/ layer is visible to the layers above it; the TVM wing's packages to the wing,
test code; the wing's public target also to the CLI."""

# Everything above artifact/, test code included.
_ABOVE_ARTIFACT = [
    "//codegen:__subpackages__",
    "//loader:__subpackages__",
    "//tvm:__subpackages__",
    "//tools:__subpackages__",
    "//tests:__subpackages__",
    "//fuzz:__subpackages__",
    "//bench:__subpackages__",
    "//examples:__subpackages__",
    "//python:__subpackages__",
    "//sdk:__subpackages__",
]

def visible_to_layers(*layers):
    """Visibility for a package of artifact/: the named artifact/ layers and all above artifact/."""
    return ["//artifact/%s:__pkg__" % layer for layer in layers] + _ABOVE_ARTIFACT

# The TVM wing's internals (tvm/<folder>/): the wing itself and test code,
# which checks the layers from above (fuzzers reach the wing's parsers).
TVM_WING_VISIBILITY = [
    "//tvm:__subpackages__",
    "//tests:__subpackages__",
    "//fuzz:__subpackages__",
    "//bench:__subpackages__",
]

# The wing's public target (//tvm:tvm, tvm/tvm.h): also the command line,
# which wires the wing into the layers below.
TVM_PUBLIC_VISIBILITY = [
    "//tvm:__subpackages__",
    "//tools:__subpackages__",
    "//tests:__subpackages__",
    "//fuzz:__subpackages__",
    "//bench:__subpackages__",
    "//python:__subpackages__",
    "//sdk:__subpackages__",
]
