// The flight recorder's ring and the text a diagnosis is made of (transport/flight_recorder.h).
// The dumps of real failing jobs are checked in tests/fault/flight_recorder_test.cpp.

#include "transport/flight_recorder.h"

#include <gtest/gtest.h>

namespace ringbench {
namespace {

FlightEntry frame(uint64_t sequence, uint32_t step, int peer, bool sending, uint64_t done, uint64_t expected) {
  FlightEntry e;
  e.sequence = sequence;
  e.set_names("allreduce", "ring");
  e.step = step;
  e.steps = 6;
  e.peer = peer;
  e.sending = sending;
  e.bytes_done = done;
  e.bytes_expected = expected;
  e.state = done == expected ? FlightEntry::State::Done : FlightEntry::State::Failed;
  return e;
}

TEST(FlightRecorderText, TheRingKeepsTheLastEntriesOldestFirst) {
  FlightRecorder recorder(4);
  for (uint64_t s = 1; s <= 6; ++s) recorder.record(frame(s, 0, 1, true, 1, 1));
  const auto held = recorder.entries();
  ASSERT_EQ(held.size(), 4u);
  EXPECT_EQ(held.front().sequence, 3u);
  EXPECT_EQ(held.back().sequence, 6u);
  EXPECT_EQ(recorder.find(1), nullptr);  // overwritten
  ASSERT_NE(recorder.find(5), nullptr);
  EXPECT_EQ(recorder.find(5)->sequence, 6u);
  EXPECT_EQ(recorder.find(6), nullptr);  // not recorded yet
}

TEST(FlightRecorderText, LongNamesAreCutNotOverrun) {
  FlightEntry e;
  e.set_names(std::string(100, 'c'), "recursive_doubling");
  EXPECT_EQ(e.collective_name(), std::string(FlightEntry::kNameBytes - 1, 'c'));
  EXPECT_EQ(e.algorithm_name(), "recursive_doubling");
}

TEST(FlightRecorderText, TheLastCallSaysWhereItIsStuckAndOnWhom) {
  std::vector<FlightEntry> entries = {frame(6, 0, 3, false, 36, 36)};
  for (uint32_t step = 0; step < 2; ++step) {
    entries.push_back(frame(7, step, 2, true, 1048608, 1048608));
    entries.push_back(frame(7, step, 1, false, 1048608, 1048608));
  }
  entries.push_back(frame(7, 2, 2, true, 32, 1048608));
  entries.push_back(frame(7, 2, 1, false, 32, 1048608));
  EXPECT_EQ(describe_last_call(entries),
            "allreduce #7 (ring): stuck at step 3 of 6, waiting for 1,048,576 more of 1,048,608 bytes from rank 1; "
            "sending 1,048,576 more of 1,048,608 bytes to rank 2; finished step 2");
  EXPECT_EQ(describe_last_frame_from(entries, 1), "last frame from rank 1: allreduce #7 (ring) step 2 of 6");
  EXPECT_EQ(describe_last_frame_from(entries, 3), "last frame from rank 3: allreduce #6 (ring) step 1 of 6");
  EXPECT_EQ(describe_last_frame_from(entries, 0), "no frame from rank 0 in the 7 entries held");
  EXPECT_EQ(last_calls(entries, 1).size(), 6u);
  EXPECT_EQ(last_calls(entries, 2).size(), 7u);
  EXPECT_EQ(describe_last_call({frame(9, 5, 1, false, 4, 4)}), "allreduce #9 (ring): finished all 6 step(s)");
  EXPECT_EQ(describe_last_call({}), "");
}

TEST(FlightRecorderText, ByteCountsAreGroupedByThousands) {
  EXPECT_EQ(grouped(0), "0");
  EXPECT_EQ(grouped(999), "999");
  EXPECT_EQ(grouped(1000), "1,000");
  EXPECT_EQ(grouped(1048576), "1,048,576");
  EXPECT_EQ(grouped(18446744073709551615ull), "18,446,744,073,709,551,615");
}

TEST(FlightRecorderText, TheTableHasOneLinePerEntry) {
  const auto now = FlightEntry::Clock::now();
  auto e = frame(12, 1, 2, true, 10, 36);
  e.started = now - std::chrono::milliseconds(1500);
  e.ended = now;
  const std::string text = format_entries({e}, now);
  EXPECT_NE(text.find("      12 allreduce      ring                       2/6 to 2                  10             36 "
                      "failed       -1.500      0.000"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace ringbench
