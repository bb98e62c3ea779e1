// Writes the sample results file (results_sample.h) to argv[1], replacing any older one, for the
// CTest test that reads it with h5py.
#include <cstdio>
#include <exception>
#include <filesystem>

#include "results_sample.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTPUT.h5\n", argv[0]);
    return 2;
  }
  try {
    std::filesystem::remove(argv[1]);
    ringbench::results::testing::write_sample_results(argv[1]);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "write_sample_results: %s\n", error.what());
    return 1;
  }
  return 0;
}
