// Replays fuzz/corpus/model_input/ (the fuzz target's seeds and every input that once made it
// fail, issue 16's table among them) through the same checks as the libFuzzer target
// (fuzz/model_input.h), built with g++ and without clang, so the regressions run in every build.
// A broken invariant aborts the test binary, which fails the test.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz/model_input.h"

namespace {

TEST(FuzzCorpus, EveryModelInputIsRejectedCleanlyOrAcceptedWithinLimits) {
  const std::filesystem::path dir = RINGBENCH_MODEL_FUZZ_CORPUS;
  int replayed = 0, regressions = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(entry.path(), std::ios::binary);
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), {});
    SCOPED_TRACE(entry.path().filename().string());
    ringbench::fuzz::check_model_input(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    ++replayed;
    regressions += entry.path().filename().string().starts_with("seed-") ? 0 : 1;
  }
  std::printf("replayed %d inputs from %s (%d regression cases)\n", replayed, dir.c_str(), regressions);
  EXPECT_GE(regressions, 8) << "issue 16's table and the fuzzer's finds should be in " << dir;
}

}  // namespace
