// libFuzzer target for the model's input parsers: cluster and workload JSON, message sizes and
// numeric flags (fuzz/model_input.h says how an input is laid out). Built by scripts/fuzz.sh
// with clang (-DRINGBENCH_FUZZ=ON); CTest runs it as fuzz.model_input (label `fuzz`).

#include "model_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ringbench::fuzz::check_model_input(data, size);
  return 0;
}
