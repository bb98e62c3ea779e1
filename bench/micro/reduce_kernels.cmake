# Reduction kernels and one loopback send/receive pair through our transport (issue 4), in one
# executable: build/bin/ringbench_micro --benchmark_format=json
add_executable(ringbench_micro
  ${CMAKE_CURRENT_LIST_DIR}/reduce_kernels_benchmark.cpp
  ${CMAKE_CURRENT_LIST_DIR}/loopback_pair_benchmark.cpp)
target_link_libraries(ringbench_micro PRIVATE ringbench_transport benchmark::benchmark_main)
