"""Who may depend on what: the layers of docs/design.md ("Layers") as Bazel visibility.

Each artifact/ layer is visible to the layers above it; the TVM wing's packages to the wing,
the CLI, test code and, until the wing's seams land, the loaders and the archive layer."""

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
]

def visible_to_layers(*layers):
    """Visibility for a package of artifact/: the named artifact/ layers and all above artifact/."""
    return ["//artifact/%s:__pkg__" % layer for layer in layers] + _ABOVE_ARTIFACT

TVM_WING_VISIBILITY = [
    "//tvm:__subpackages__",
    "//tools:__subpackages__",
    "//tests:__subpackages__",
    "//fuzz:__subpackages__",
    "//bench:__subpackages__",
    "//python:__subpackages__",
    # Until the seams of docs/design.md ("The TVM wing") land:
    "//loader:__subpackages__",
    "//artifact/archive:__pkg__",
]
