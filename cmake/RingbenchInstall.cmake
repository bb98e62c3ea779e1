# `cmake --install build --prefix P` lays out:
#   P/bin/ringbench, P/bin/topomodel                  (install() in their own CMakeLists.txt)
#   P/bin/ringbench-analyze, -merge, -python           small wrappers that run ...
#   P/libexec/ringbench/                               ... the scripts themselves, next to the
#                                                      .py modules and setup.sh they source
#   P/share/ringbench/clusters/*.json, workloads/*.json  the model's example inputs
# The scripts find their modules relative to themselves, so they stay together in libexec; the
# wrappers find libexec relative to bin, so the prefix can be moved. scripts/run.sh and
# compare.sh are not installed: they build and run a source checkout.
set(ringbench_libexec ${CMAKE_INSTALL_LIBEXECDIR}/ringbench)
set(ringbench_user_scripts ringbench-analyze ringbench-merge ringbench-python)
list(TRANSFORM ringbench_user_scripts PREPEND ${PROJECT_SOURCE_DIR}/scripts/ OUTPUT_VARIABLE script_files)
install(PROGRAMS ${script_files} DESTINATION ${ringbench_libexec})
install(FILES
  ${PROJECT_SOURCE_DIR}/scripts/setup.sh
  ${PROJECT_SOURCE_DIR}/scripts/ringbench_analyze.py
  ${PROJECT_SOURCE_DIR}/scripts/ringbench_merge.py
  ${PROJECT_SOURCE_DIR}/scripts/ringbench_results.py
  DESTINATION ${ringbench_libexec})

# bin/NAME -> ../libexec/ringbench/NAME, as a path relative to the wrapper itself.
file(RELATIVE_PATH bin_to_libexec /prefix/${CMAKE_INSTALL_BINDIR} /prefix/${ringbench_libexec})
foreach(name ${ringbench_user_scripts})
  set(wrapper ${PROJECT_BINARY_DIR}/install-wrappers/${name})
  file(CONFIGURE OUTPUT ${wrapper} @ONLY CONTENT [[#!/usr/bin/env bash
# Installed by ringbench: runs @name@ from the ringbench scripts directory.
exec "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/@bin_to_libexec@/@name@" "$@"
]])
  install(PROGRAMS ${wrapper} DESTINATION ${CMAKE_INSTALL_BINDIR})
endforeach()

install(DIRECTORY ${PROJECT_SOURCE_DIR}/model/clusters ${PROJECT_SOURCE_DIR}/model/workloads
        DESTINATION ${CMAKE_INSTALL_DATADIR}/ringbench FILES_MATCHING PATTERN "*.json")
