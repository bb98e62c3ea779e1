# The topology model's placement sweep at 1,024 and 16,384 GPUs (issue 6: the 1,024-GPU sweep,
# every placement and every algorithm, must take well under a second on one core).
add_executable(model_sweep_benchmark ${CMAKE_CURRENT_LIST_DIR}/model_sweep_benchmark.cpp)
target_link_libraries(model_sweep_benchmark PRIVATE ringbench_model benchmark::benchmark)
