#pragma once
// The seed of a test's random choices, one definition for every test that draws: RINGBENCH_TEST_SEED
// if set (to replay a run that failed), else a fresh one. Printed first thing, with the name of
// the test that drew it, so every run can be replayed.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <stdexcept>
#include <string>

namespace ringbench::testing {

inline uint32_t test_seed(const char* test) {
  uint32_t seed = 0;
  if (const char* given = std::getenv("RINGBENCH_TEST_SEED")) {
    char* end = nullptr;
    const unsigned long value = std::strtoul(given, &end, 10);
    if (*given == '\0' || *end != '\0' || value > UINT32_MAX)
      throw std::invalid_argument(std::string("RINGBENCH_TEST_SEED must be a number 0..4294967295, got '") + given +
                                  "'");
    seed = static_cast<uint32_t>(value);
  } else {
    seed = std::random_device{}();
  }
  std::printf("%s: seed %u (replay with RINGBENCH_TEST_SEED=%u)\n", test, seed, seed);
  std::fflush(stdout);
  return seed;
}

}  // namespace ringbench::testing
