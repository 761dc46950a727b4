"""embed_files: compiles files into binaries (embed/embed.cc, embed/embedded_files.h)."""

def embed_files(name, srcs, function, strip_prefix = None, **kwargs):
    """Declares the cc_library `name` holding the bytes of `srcs`.

    Its header `<package>/<name>.h` declares `::mlf::embed::Table <function>()`:
    one entry per file of `srcs`, in their order, keyed by the file's path
    below `strip_prefix`. The package wraps the table in its own API.

    Args:
      name: the library; the generated files are `<name>.h` and `<name>.cc`.
      srcs: the files to embed (source or generated).
      function: the qualified C++ name of the table's function, e.g.
        "mlf::firmware::TemplateFiles".
      strip_prefix: removed from each path to make its key; defaults to the
        package's path and a slash, so "src/x.c" in package "a/b" is "src/x.c".
      **kwargs: passed to the cc_library (visibility, testonly, ...).
    """
    if strip_prefix == None:
        strip_prefix = native.package_name() + "/"
    header = name + ".h"
    source = name + ".cc"
    native.genrule(
        name = name + "_gen",
        srcs = srcs,
        outs = [header, source],
        cmd = " ".join([
            "$(location //embed)",
            "--function '%s'" % function,
            "--include '%s/%s'" % (native.package_name(), header),
            "--strip '%s'" % strip_prefix,
            "$(location %s)" % header,
            "$(location %s)" % source,
            "$(SRCS)",
        ]),
        tools = ["//embed"],
        testonly = kwargs.get("testonly", False),
        visibility = ["//visibility:private"],
    )
    native.cc_library(
        name = name,
        srcs = [source],
        hdrs = [header],
        deps = ["//embed:embedded_files"],
        **kwargs
    )
