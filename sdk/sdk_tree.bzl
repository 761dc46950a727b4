# The SDK's install tree, made by Bazel from the libraries' own build graph so
# that no list of sources or headers is kept twice (sdk/README.md):
#
#   <tree>/bin/mlf
#   <tree>/include/mlfkit/{loader,compiler,version}.h        the umbrella headers
#   <tree>/include/mlfkit/internal/<workspace path>.h        every header they reach
#   <tree>/lib/libmlfkit.a                                   every library, merged (ar)
#   <tree>/lib/libmlfkit.so.<major>, libmlfkit.so            the same, one shared object
#   <tree>/lib/pkgconfig/mlfkit.pc
#   <tree>/lib/cmake/mlfkit/mlfkitConfig.cmake (+ Version, mlfkit_add_model.cmake)
#   <tree>/share/mlfkit/bazel/mlf_model.bzl                  the Bazel helper
#
# The tree is relocatable: the .pc file finds its prefix through ${pcfiledir}
# and the CMake files through CMAKE_CURRENT_LIST_DIR, so scripts/sdk.sh only
# copies it.

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")

def _include_path(f):
    """How code includes `f`: its workspace path, or for a header that a library
    publishes under another prefix (include_prefix / strip_include_prefix, e.g.
    schemas/model_abi.h as "mlf/model_abi.h") the path under its virtual include
    directory."""
    marker = "/_virtual_includes/"
    at = f.short_path.find(marker)
    if at < 0:
        return f.short_path
    rest = f.short_path[at + len(marker):]
    return rest[rest.find("/") + 1:]

def _workspace_headers(deps):
    """{include path: header} of this workspace that `deps` expose, transitively
    (third_party excluded)."""
    headers = {}
    for dep in deps:
        for f in dep[CcInfo].compilation_context.headers.to_list():
            if f.owner.workspace_name != "" or f.short_path.startswith("third_party/"):
                continue
            headers[_include_path(f)] = f
    return headers

def _static_libraries_and_flags(deps):
    """The libraries to merge (PIC archives) and the system link flags, in link order."""
    archives = []
    seen = {}
    flags = []
    for dep in deps:
        for linker_input in dep[CcInfo].linking_context.linker_inputs.to_list():
            for flag in linker_input.user_link_flags:
                if flag not in flags:
                    flags.append(flag)
            for library in linker_input.libraries:
                archive = library.pic_static_library or library.static_library
                if archive and archive.path not in seen:
                    seen[archive.path] = True
                    archives.append(archive)
    return archives, flags

def _substitute(ctx, template, out, substitutions):
    ctx.actions.expand_template(template = template, output = out, substitutions = substitutions)

def _sdk_tree_impl(ctx):
    cc_toolchain = find_cpp_toolchain(ctx)
    headers = _workspace_headers(ctx.attr.deps)
    archives, flags = _static_libraries_and_flags(ctx.attr.deps)
    version = ctx.attr.version
    major = version.split(".")[0]
    system_libs = " ".join(flags)

    static_lib = ctx.actions.declare_file(ctx.label.name + "_lib/libmlfkit.a")
    mri = ctx.actions.declare_file(ctx.label.name + "_lib/libmlfkit.mri")
    ctx.actions.write(mri, "".join(
        ["create " + static_lib.path + "\n"] +
        ["addlib " + a.path + "\n" for a in archives] +
        ["save\nend\n"],
    ))
    ctx.actions.run_shell(
        inputs = archives + [mri],
        outputs = [static_lib],
        command = "{ar} -M < {mri}".format(ar = cc_toolchain.ar_executable, mri = mri.path),
        mnemonic = "SdkMergeArchives",
        progress_message = "Merging %d archives into libmlfkit.a" % len(archives),
    )

    soname = "libmlfkit.so." + major
    shared_lib = ctx.actions.declare_file(ctx.label.name + "_lib/" + soname)
    ctx.actions.run_shell(
        inputs = [static_lib],
        outputs = [shared_lib],
        tools = cc_toolchain.all_files,
        command = ("{cc} -shared -o {out} -Wl,-soname,{soname} -Wl,--whole-archive {lib} " +
                   "-Wl,--no-whole-archive {flags} -lstdc++ -lm").format(
            cc = cc_toolchain.compiler_executable,
            out = shared_lib.path,
            soname = soname,
            lib = static_lib.path,
            flags = system_libs,
        ),
        # gcc finds `ld` on PATH (the strict action environment's PATH).
        use_default_shell_env = True,
        mnemonic = "SdkLinkShared",
        progress_message = "Linking " + soname,
    )

    pc = ctx.actions.declare_file(ctx.label.name + "_lib/mlfkit.pc")
    _substitute(ctx, ctx.file.pc_template, pc, {
        "@VERSION@": version,
        "@LIBS_PRIVATE@": system_libs,
    })
    cmake_config = ctx.actions.declare_file(ctx.label.name + "_lib/mlfkitConfig.cmake")
    _substitute(ctx, ctx.file.cmake_template, cmake_config, {
        "@VERSION@": version,
        "@SONAME@": soname,
        "@LIBS_PRIVATE@": ";".join(flags),
    })
    cmake_version = ctx.actions.declare_file(ctx.label.name + "_lib/mlfkitConfigVersion.cmake")
    _substitute(ctx, ctx.file.cmake_version_template, cmake_version, {"@VERSION@": version, "@VERSION_MAJOR@": major})

    # (source file, place in the tree)
    placements = [
        (ctx.executable.mlf, "bin/mlf"),
        (static_lib, "lib/libmlfkit.a"),
        (shared_lib, "lib/" + soname),
        (pc, "lib/pkgconfig/mlfkit.pc"),
        (cmake_config, "lib/cmake/mlfkit/mlfkitConfig.cmake"),
        (cmake_version, "lib/cmake/mlfkit/mlfkitConfigVersion.cmake"),
    ]
    placements += [(f, "lib/cmake/mlfkit/" + f.basename) for f in ctx.files.cmake_modules]
    placements += [(f, "share/mlfkit/bazel/" + f.basename) for f in ctx.files.bazel_files]
    placements += [(f, "include/mlfkit/" + f.basename) for f in ctx.files.umbrella_headers]
    placements += [(headers[path], "include/mlfkit/internal/" + path) for path in sorted(headers)]

    tree = ctx.actions.declare_directory(ctx.label.name)
    lines = ["set -e"]
    for src, dest in placements:
        lines.append("install -D -m {mode} {src} {tree}/{dest}".format(
            mode = "0755" if dest.startswith("bin/") else "0644",
            src = src.path,
            tree = tree.path,
            dest = dest,
        ))
    lines.append("ln -s {so} {tree}/lib/libmlfkit.so".format(so = soname, tree = tree.path))
    script = ctx.actions.declare_file(ctx.label.name + "_install.sh")
    ctx.actions.write(script, "\n".join(lines) + "\n")
    ctx.actions.run_shell(
        inputs = [src for src, _ in placements] + [script],
        outputs = [tree],
        command = "/bin/sh " + script.path,
        mnemonic = "SdkTree",
        progress_message = "Assembling the SDK tree",
    )
    return [DefaultInfo(files = depset([tree]), runfiles = ctx.runfiles(files = [tree]))]

sdk_tree = rule(
    implementation = _sdk_tree_impl,
    doc = "The SDK install tree (a directory): see the file comment.",
    attrs = {
        "deps": attr.label_list(providers = [CcInfo], doc = "The libraries libmlfkit holds."),
        "mlf": attr.label(executable = True, cfg = "target", allow_single_file = True),
        "umbrella_headers": attr.label_list(allow_files = [".h"]),
        "cmake_modules": attr.label_list(allow_files = [".cmake"]),
        "bazel_files": attr.label_list(allow_files = [".bzl"]),
        "pc_template": attr.label(allow_single_file = True),
        "cmake_template": attr.label(allow_single_file = True),
        "cmake_version_template": attr.label(allow_single_file = True),
        "version": attr.string(mandatory = True),
        "_cc_toolchain": attr.label(default = "@bazel_tools//tools/cpp:current_cc_toolchain"),
    },
    toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],
)
