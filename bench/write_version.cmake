# Writes ringbench_version.h with the checkout's current git revision. Run at every build (not
# only at configure time), so a results file never records the revision of an older build; the
# header is rewritten only when its text changes, so an unchanged tree rebuilds nothing.
execute_process(COMMAND git -C ${SOURCE_DIR} describe --always --dirty --abbrev=12
                OUTPUT_VARIABLE RINGBENCH_GIT_REVISION OUTPUT_STRIP_TRAILING_WHITESPACE
                ERROR_QUIET RESULT_VARIABLE git_result)
if(NOT git_result EQUAL 0)
  set(RINGBENCH_GIT_REVISION unknown)
endif()
configure_file(${TEMPLATE} ${OUTPUT} @ONLY)
