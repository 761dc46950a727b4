"""mlf_model: a model file as a cc_library of a Bazel build (sdk/README.md).

    load("//sdk/bazel:mlf_model.bzl", "mlf_model")
    mlf_model(name = "kws", src = "kws.onnx")           # module "default", parameters linked
    cc_binary(name = "app", srcs = ["app.c"], deps = [":kws"])

At build time `mlf export` compiles the model (parameters linked into the code
unless link_params = False), `mlf unpack` verifies and extracts the archive,
and the archive's C sources are compiled with the C toolchain into a static
library. The cc_library `name` carries it with the generated header
tvmgen_<module>.h and mlf/model_abi.h; the archive itself is `name`.tar.
Outside this repository pass the SDK's command as `mlf` (any executable
target that runs bin/mlf of an installed SDK).

`mlf` runs in the target configuration (this machine builds for itself), so
that a build does not compile the whole compiler a second time for the host.
"""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")

def _mlf_model_code_impl(ctx):
    cc_toolchain = find_cpp_toolchain(ctx)
    module = ctx.attr.module
    archive, library, header, abi = ctx.outputs.archive, ctx.outputs.library, ctx.outputs.header, ctx.outputs.abi
    mlf = ctx.executable.mlf
    script = "\n".join([
        "set -eu",
        "work=$(mktemp -d)",
        "trap 'rm -rf \"$work\"' EXIT",
        "{mlf} export '{src}:{module}' -o {archive} --no-host-lib {flags} > /dev/null",
        "{mlf} unpack {archive} -o \"$work/unpacked\" > /dev/null",
        "for c in \"$work\"/unpacked/codegen/host/src/*.c; do",
        "  {cc} -std=c99 -O3 -fPIC -I \"$work/unpacked/codegen/host/include\" -c \"$c\" -o \"$work/$(basename \"$c\" .c).o\"",
        "done",
        "{ar} qc {library} \"$work\"/*.o",
        "cp \"$work/unpacked/codegen/host/include/tvmgen_{module}.h\" {header}",
        "cp \"$work/unpacked/codegen/host/include/mlf/model_abi.h\" {abi}",
    ]).format(
        mlf = mlf.path,
        src = ctx.file.src.path,
        module = module,
        archive = archive.path,
        library = library.path,
        header = header.path,
        abi = abi.path,
        cc = cc_toolchain.compiler_executable,
        ar = cc_toolchain.ar_executable,
        flags = "--link-params" if ctx.attr.link_params else "",
    )
    ctx.actions.run_shell(
        inputs = [ctx.file.src],
        tools = depset([mlf], transitive = [cc_toolchain.all_files]),
        outputs = [archive, library, header, abi],
        command = script,
        # gcc finds `as` and `ld` on PATH (the strict action environment's PATH).
        use_default_shell_env = True,
        mnemonic = "MlfExport",
        progress_message = "mlf export %s" % ctx.file.src.short_path,
    )

_mlf_model_code = rule(
    implementation = _mlf_model_code_impl,
    attrs = {
        "src": attr.label(allow_single_file = [".onnx", ".yaml", ".yml"], mandatory = True),
        "module": attr.string(default = "default"),
        "link_params": attr.bool(default = True),
        "mlf": attr.label(executable = True, cfg = "target", mandatory = True),
        "archive": attr.output(),
        "library": attr.output(),
        "header": attr.output(),
        "abi": attr.output(),
        "_cc_toolchain": attr.label(default = "@bazel_tools//tools/cpp:current_cc_toolchain"),
    },
    toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],
)

def mlf_model(name, src, module = "default", link_params = True, mlf = "//tools/mlf", **kwargs):
    if not module.replace("_", "a").isalnum() or module[0].isdigit():
        fail("mlf_model(%s): module must be a C identifier, got '%s'" % (name, module))
    include = name + "_include/"
    library = "lib%s_model.a" % name
    _mlf_model_code(
        name = name + "_export",
        src = src,
        module = module,
        link_params = link_params,
        mlf = mlf,
        archive = name + ".tar",
        library = library,
        header = include + "tvmgen_%s.h" % module,
        abi = include + "mlf/model_abi.h",
    )
    native.cc_import(
        name = name + "_code",
        static_library = library,
    )
    native.cc_library(
        name = name,
        hdrs = [include + "tvmgen_%s.h" % module, include + "mlf/model_abi.h"],
        strip_include_prefix = include,
        linkopts = ["-lm", "-pthread"],
        deps = [name + "_code"],
        **kwargs
    )
