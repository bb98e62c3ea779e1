// The pipelining segment (spec/segments.h): the formula that chooses it, and what a chosen segment
// does to the plans that take it. The bytes a rank sends must not depend on the segment (the byte
// check and the model's bytes stay one formula), only the steps do: segments + fill steps.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "spec/algorithm_spec.h"
#include "spec/segments.h"

namespace ringbench::spec {
namespace {

TEST(PipelineSegment, IsTheSquareRootOfSizeTimesTheLatencyBytesOverTheFillRoundedToAPowerOfTwo) {
  // 4 MiB, 10 us x 6.4 GB/s = 64000 latency bytes, 3 fill steps: sqrt(4194304 x 64000 / 3) =
  // 299,127 bytes; log2 = 18.19, so 2^18.
  EXPECT_EQ(pipeline_segment_bytes(4 << 20, 10.0, 6.4, 3), 256u << 10);
  // Four times the message, twice the segment (before rounding): 598,254 -> 2^19.2 -> 512 KiB.
  EXPECT_EQ(pipeline_segment_bytes(16 << 20, 10.0, 6.4, 3), 512u << 10);
  // A slow link's small latency-bandwidth product (1 Gbit/s, 25 us: 3125 bytes) cuts finer:
  // sqrt(4194304 x 3125 / 3) = 66,098 -> 2^16.01.
  EXPECT_EQ(pipeline_segment_bytes(4 << 20, 25.0, 0.125, 3), 64u << 10);
}

TEST(PipelineSegment, StaysWithinAPageAndTheWholeMessage) {
  EXPECT_EQ(pipeline_segment_bytes(1 << 20, 0.01, 0.01, 7), kSmallestSegmentBytes);
  EXPECT_EQ(pipeline_segment_bytes(8 << 10, 1000.0, 100.0, 1), 8u << 10) << "at most the message: one segment";
  EXPECT_EQ(pipeline_segment_bytes(100, 0.01, 0.01, 7), 100u) << "a message below a page is one segment";
  EXPECT_EQ(pipeline_segment_bytes(0, 10.0, 6.4, 3), 1u) << "an empty message: one (empty) segment";
}

TEST(PipelineSegment, WithoutAFillOrAUsableLinkTheMessageIsOneSegment) {
  EXPECT_EQ(pipeline_segment_bytes(4 << 20, 10.0, 6.4, 0), 4u << 20) << "nothing to fill: no pipeline pays";
  EXPECT_EQ(pipeline_segment_bytes(4 << 20, 0.0, 6.4, 3), 4u << 20);
  EXPECT_EQ(pipeline_segment_bytes(4 << 20, 10.0, std::nan(""), 3), 4u << 20);
}

TEST(PipelineSegment, NeverShrinksAsTheMessageGrows) {
  uint64_t last = 0;
  for (uint64_t bytes = 1; bytes <= (1ull << 30); bytes *= 2) {
    const uint64_t segment = pipeline_segment_bytes(bytes, 6.5, 6.0, 3);
    EXPECT_GE(segment, last) << bytes;
    last = segment;
  }
}

TEST(PipelineSegment, OnlyPipelinedAlgorithmsAreCut) {
  std::vector<std::string_view> pipelined;
  for (const AlgorithmSpec* spec : all_algorithm_specs())
    if (is_pipelined(*spec)) pipelined.push_back(spec->name);
    else EXPECT_EQ(chosen_segment_bytes(*spec, 4, 4 << 20, 10.0, 6.4), 0u) << spec->name;
  EXPECT_EQ(pipelined, (std::vector<std::string_view>{"tree", "pipelined-chain"}));
  // The formula's fill is the plan's fill steps plus the one stage inside every hop. The tree at
  // N = 16 fills in 2 log2 16 - 1 = 7 steps, so 8: sqrt(4194304 x 64000 / 8) = 183,179 -> 2^17.48;
  // the chain at N = 3 in N - 2 = 1, so 2: 366,357 -> 2^18.48; at N = 2 in 0, so 1: 518,108 -> 2^18.98.
  EXPECT_EQ(chosen_segment_bytes(tree_allreduce(), 16, 4 << 20, 10.0, 6.4), 128u << 10);
  EXPECT_EQ(chosen_segment_bytes(chain_broadcast(), 3, 4 << 20, 10.0, 6.4), 256u << 10);
  EXPECT_EQ(chosen_segment_bytes(chain_broadcast(), 2, 4 << 20, 10.0, 6.4), 512u << 10)
      << "one hop still pipelines its two copies";
}

// Steps of a plan, the longest over the ranks, and the bytes each rank sends.
struct PlanShape {
  size_t steps = 0;
  std::vector<uint64_t> sent;
};
PlanShape shape(const AlgorithmSpec& spec, int n, size_t count, size_t segment_bytes) {
  PlanShape s;
  for (int r = 0; r < n; ++r) {
    const Schedule schedule = spec.plan({r, n, count, 4, 0, {}, segment_bytes});
    s.steps = std::max(s.steps, schedule.steps.size());
    s.sent.push_back(schedule.elements_sent() * 4);
  }
  return s;
}

TEST(PipelinedPlans, TakeSegmentsPlusFillStepsAndSendTheSameBytesWhateverTheSegment) {
  const size_t count = 1000003;  // 4,000,012 bytes: no segment divides it, so the last is short
  for (const AlgorithmSpec* spec : {&tree_allreduce(), &chain_broadcast()})
    for (int n = 2; n <= 16; ++n) {
      const PlanShape by_default = shape(*spec, n, count, 0);
      for (size_t segment : {size_t{4} << 10, size_t{64} << 10, size_t{300000}, size_t{4} << 20, size_t{1} << 30}) {
        const PlanShape cut = shape(*spec, n, count, segment);
        const size_t segments = (count + segment / 4 - 1) / (segment / 4);
        EXPECT_EQ(cut.steps, segments + spec->fill_steps(n)) << spec->name << " N=" << n << " segment " << segment;
        EXPECT_EQ(cut.sent, by_default.sent) << spec->name << " N=" << n << " segment " << segment;
      }
      EXPECT_EQ(by_default.steps, shape(*spec, n, count, kDefaultSegmentBytes).steps) << "0 is the default";
    }
}

// The ring all-reduce's rounds (spec/ring_allreduce.cpp): a segment smaller than a chunk cuts
// the buffer into rounds of a multiple of N elements each (the last takes the rest), each round a
// whole ring of 2(N-1) steps moving at most a segment per step but in the last; every rank sends
// exactly what one round sends. No segment, or one at least a chunk, is one round.
TEST(RingAllreduceRounds, CutEachChunkToTheSegmentAndSendTheBytesOfOneRound) {
  for (size_t count : {size_t{1000003}, size_t{1} << 20, size_t{7}})
    for (int n = 2; n <= 16; ++n) {
      const PlanShape one_round = shape(ring_allreduce(), n, count, 0);
      EXPECT_EQ(one_round.steps, ring_allreduce().steps(n));
      for (size_t segment : {size_t{4} << 10, size_t{300000}, size_t{1} << 20, size_t{1} << 30}) {
        const std::string where = "N=" + std::to_string(n) + " count " + std::to_string(count) + " segment " +
                                  std::to_string(segment);
        const size_t chunk = (count + static_cast<size_t>(n) - 1) / static_cast<size_t>(n), per_segment = segment / 4;
        // Rounds of P = floor(count / ceil(chunk / segment) / N) x N elements, the rest joining the last.
        const size_t wanted = chunk <= per_segment ? 1 : (chunk + per_segment - 1) / per_segment;
        const size_t per_round = count / wanted / static_cast<size_t>(n) * static_cast<size_t>(n);
        const size_t rounds = wanted == 1 || per_round == 0 ? 1 : count / per_round;
        const PlanShape cut = shape(ring_allreduce(), n, count, segment);
        EXPECT_EQ(cut.steps, rounds * ring_allreduce().steps(n)) << where;
        EXPECT_EQ(cut.sent, one_round.sent) << where;
        for (int r = 0; r < n; ++r)
          for (const Step& step : ring_allreduce().plan({r, n, count, 4, 0, {}, segment}).steps)
            for (const SendOp& send : step.sends)
              EXPECT_LE(send.range.count, rounds == 1 ? chunk : 2 * per_segment) << where << " rank " << r;
      }
    }
}

}  // namespace
}  // namespace ringbench::spec
