# cmake -DDIR=<folder> -P spec_includes.cmake
# The specification depends on nothing but the C++ standard library. Include directories cannot
# prove that alone (fmt, MPI and HDF5 headers sit in /usr/include, visible to every target), so
# this reads every #include of the .h and .cpp files in DIR: each must name a standard header
# (<cstdint>: no dot, no slash) or a sibling in DIR by bare name ("schedule.h").
file(GLOB sources ${DIR}/*.h ${DIR}/*.cpp)
if(NOT sources)
  message(FATAL_ERROR "no .h or .cpp files in ${DIR}")
endif()
set(bad "")
foreach(source ${sources})
  file(STRINGS ${source} includes REGEX "^[ \t]*#[ \t]*include")
  foreach(line ${includes})
    if(line MATCHES "^[ \t]*#[ \t]*include[ \t]*<[a-z_]+>")
      continue()
    endif()
    if(line MATCHES "^[ \t]*#[ \t]*include[ \t]*\"([a-z_]+\\.h)\"" AND EXISTS ${DIR}/${CMAKE_MATCH_1})
      continue()
    endif()
    string(APPEND bad "\n  ${source}: ${line}")
  endforeach()
endforeach()
if(bad)
  message(FATAL_ERROR "includes outside the standard library and ${DIR}:${bad}")
endif()
list(LENGTH sources files)
message(STATUS "${files} files in ${DIR} include only the standard library and each other")
