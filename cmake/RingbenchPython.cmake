# The Python interpreter for the tests that read our files with h5py (the brief: Debian's
# python3-h5py, picked by probing). RINGBENCH_PYTHON if given, else the first of /usr/bin/python3
# (Debian's) and the python3 on PATH that imports h5py; unset when none does. scripts/setup.sh's
# ringbench_python() probes the same way for the scripts.
if(NOT RINGBENCH_PYTHON)
  find_program(RINGBENCH_PATH_PYTHON3 python3)
  mark_as_advanced(RINGBENCH_PATH_PYTHON3)
  foreach(candidate /usr/bin/python3 ${RINGBENCH_PATH_PYTHON3})
    execute_process(COMMAND ${candidate} -c "import h5py" RESULT_VARIABLE no_h5py OUTPUT_QUIET ERROR_QUIET)
    if(no_h5py EQUAL 0)
      set(RINGBENCH_PYTHON ${candidate} CACHE FILEPATH "Python interpreter that has h5py")
      break()
    endif()
  endforeach()
endif()
