# cmake -DCOMPILE_COMMANDS=<build>/compile_commands.json -DPROBE=<name> -DHEADER=<header>
#       -DEXPECT=<builds|fails> -P compile_probe.cmake
# Compiles the probe target layering_probe_<name> with the exact command CMake recorded for it
# (its include directories are the library's usage requirements). Only the probe's own object is
# compiled: `cmake --build --target` would first rebuild the library it links, which takes long
# and fails for unrelated reasons while someone is editing it.
#   builds: the compile must succeed.
#   fails:  the compile must fail *because HEADER cannot be found*; any other error (a broken
#           probe, a bad flag) fails this test rather than passing as proof of the layering.
file(READ ${COMPILE_COMMANDS} json)
string(JSON entries LENGTH "${json}")
math(EXPR last "${entries} - 1")
foreach(i RANGE ${last})
  string(JSON command GET "${json}" ${i} command)
  if(command MATCHES "/layering_probe_${PROBE}\\.dir/")
    string(JSON directory GET "${json}" ${i} directory)
    break()
  endif()
  unset(command)
endforeach()
if(NOT DEFINED command)
  message(FATAL_ERROR "no compile command for layering_probe_${PROBE} in ${COMPILE_COMMANDS}")
endif()

message(STATUS "${command}")
execute_process(COMMAND sh -c "${command}" WORKING_DIRECTORY ${directory}
                RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
string(REPLACE "." "\\." header_regex "${HEADER}")
if(EXPECT STREQUAL "builds")
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "layering_probe_${PROBE} must compile (${HEADER} is allowed) but did not:\n${output}")
  endif()
  message(STATUS "layering_probe_${PROBE} compiled: ${HEADER} is visible, as it must be")
elseif(result EQUAL 0)
  message(FATAL_ERROR "layering_probe_${PROBE} compiled: ${HEADER} is visible where the layering forbids it")
# g++: "fatal error: model/cluster.h: No such file or directory"; clang: "'model/cluster.h' file not found"
elseif(NOT output MATCHES "${header_regex}'?:? (No such file or directory|file not found)")
  message(FATAL_ERROR "layering_probe_${PROBE} failed for another reason than a missing ${HEADER}:\n${output}")
else()
  message(STATUS "layering_probe_${PROBE} failed as it must: ${HEADER} not found")
endif()
