# Run by mlfkit_add_model at build time (cmake -P): compiles every C source of
# an unpacked archive into one static library. Inputs (-D): SOURCE_DIR,
# INCLUDE_DIR, OBJECT_DIR, LIBRARY, C_COMPILER, AR.
file(GLOB sources LIST_DIRECTORIES false "${SOURCE_DIR}/*.c")
list(SORT sources)
if(NOT sources)
  message(FATAL_ERROR "mlfkit: the archive has no C sources in ${SOURCE_DIR}")
endif()
file(REMOVE_RECURSE "${OBJECT_DIR}")
file(MAKE_DIRECTORY "${OBJECT_DIR}")
set(objects)
foreach(source IN LISTS sources)
  get_filename_component(stem "${source}" NAME_WE)
  set(object "${OBJECT_DIR}/${stem}.o")
  execute_process(
    COMMAND "${C_COMPILER}" -std=c99 -O3 -fPIC -I "${INCLUDE_DIR}" -c "${source}" -o "${object}"
    RESULT_VARIABLE failed)
  if(failed)
    message(FATAL_ERROR "mlfkit: compiling ${source} failed")
  endif()
  list(APPEND objects "${object}")
endforeach()
file(REMOVE "${LIBRARY}")
execute_process(COMMAND "${AR}" qc "${LIBRARY}" ${objects} RESULT_VARIABLE failed)
if(failed)
  message(FATAL_ERROR "mlfkit: ${AR} could not write ${LIBRARY}")
endif()
