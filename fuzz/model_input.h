#pragma once
// One fuzz input for the model's input parsers (fuzz/model_input_fuzz.cpp runs it under libFuzzer;
// tests/model/fuzz_corpus_test.cpp replays fuzz/corpus/model_input/ through it with g++). The
// first byte picks the parser, the rest is its text:
//   0 cluster JSON (cluster_from_json)     1 workload JSON (workload_from_json)
//   2 --bytes size (parse_bytes)           3 --params count (parse_count)
//   4 integer flag (integer_in)            5 float flag (number_in)
// Bad input must be an InputError (or a validator message) of one line; anything accepted must be
// inside model/input_limits.h and survive the arithmetic built on it (GPU locations, a collective's
// cost, a training step), which the fuzz build runs under ASan and UBSan. Any other exception, a
// sanitizer report or a broken invariant aborts.

#include <cstddef>
#include <cstdint>

namespace ringbench::fuzz {

void check_model_input(const uint8_t* data, size_t size);

}  // namespace ringbench::fuzz
