# mlfkit_add_model: a model file as a static library target of the user's
# build (sdk/README.md).
#
#   mlfkit_add_model(<target> MODEL <file.onnx|file.yaml> [MODULE <name>] [LINK_PARAMS])
#   target_link_libraries(app PRIVATE <target>)
#
# At build time (and again whenever the model file changes) the model is
# exported with the SDK's `mlf export`, the archive is verified and unpacked
# by `mlf unpack`, and its C sources are compiled with the project's C compiler
# into lib<target>.a. <target> carries that library, libm, pthreads and the
# archive's include directory (tvmgen_<module>.h, mlf/model_abi.h), so the
# application calls tvmgen_<module>_run() directly (docs/design.md,
# "Generated-code ABI"). Without LINK_PARAMS the parameters stay in a file:
# the variable <target>_PARAMETERS names it, and the caller passes its bytes as
# the constants pool. The archive itself is <target>_ARCHIVE.
include_guard(GLOBAL)

function(mlfkit_add_model target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "LINK_PARAMS" "MODEL;MODULE" "")
  if(NOT ARG_MODEL)
    message(FATAL_ERROR "mlfkit_add_model(${target}): MODEL <file> is required")
  endif()
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "mlfkit_add_model(${target}): unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_MODULE)
    set(ARG_MODULE default)
  endif()
  if(NOT ARG_MODULE MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "mlfkit_add_model(${target}): MODULE must be a C identifier, got '${ARG_MODULE}'")
  endif()
  get_filename_component(model "${ARG_MODEL}" ABSOLUTE)
  if(NOT EXISTS "${model}")
    message(FATAL_ERROR "mlfkit_add_model(${target}): MODEL ${model} does not exist")
  endif()
  if(NOT CMAKE_C_COMPILER)
    message(FATAL_ERROR "mlfkit_add_model(${target}): enable the C language (project(... C ...))")
  endif()
  find_package(Threads REQUIRED)

  set(dir "${CMAKE_CURRENT_BINARY_DIR}/${target}.mlfkit")
  set(archive "${dir}/${target}.tar")
  set(library "${dir}/lib${target}.a")
  set(export_flags)
  if(ARG_LINK_PARAMS)
    set(export_flags --link-params)
  endif()
  # The include directory must exist when CMake generates the build.
  file(MAKE_DIRECTORY "${dir}/unpacked/codegen/host/include")

  add_custom_command(
    OUTPUT "${library}" "${archive}"
    COMMAND "${CMAKE_COMMAND}" -E rm -rf "${dir}/unpacked" "${archive}"
    COMMAND "${MLFKIT_MLF_EXECUTABLE}" export "${model}:${ARG_MODULE}" -o "${archive}"
            --no-host-lib ${export_flags}
    COMMAND "${MLFKIT_MLF_EXECUTABLE}" unpack "${archive}" -o "${dir}/unpacked"
    COMMAND "${CMAKE_COMMAND}" -D "SOURCE_DIR=${dir}/unpacked/codegen/host/src"
            -D "INCLUDE_DIR=${dir}/unpacked/codegen/host/include"
            -D "OBJECT_DIR=${dir}/objects" -D "LIBRARY=${library}"
            -D "C_COMPILER=${CMAKE_C_COMPILER}" -D "AR=${CMAKE_AR}"
            -P "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/mlfkit_compile_model.cmake"
    DEPENDS "${model}" "${MLFKIT_MLF_EXECUTABLE}"
    COMMENT "mlfkit: compiling ${ARG_MODEL} into lib${target}.a"
    VERBATIM)
  add_custom_target(${target}_mlfkit_export DEPENDS "${library}")

  add_library(${target} INTERFACE)
  target_include_directories(${target} INTERFACE "${dir}/unpacked/codegen/host/include")
  target_link_libraries(${target} INTERFACE "${library}" Threads::Threads m)
  add_dependencies(${target} ${target}_mlfkit_export)
  set(${target}_ARCHIVE "${archive}" PARENT_SCOPE)
  if(ARG_LINK_PARAMS)
    set(${target}_PARAMETERS "" PARENT_SCOPE)
  else()
    set(${target}_PARAMETERS "${dir}/unpacked/parameters/${ARG_MODULE}.bin" PARENT_SCOPE)
  endif()
endfunction()
