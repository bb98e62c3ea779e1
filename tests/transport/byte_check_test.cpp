// The byte check must be able to fail: a ring that sends one chunk too many, while claiming the
// ring's formula, is caught on every rank.

#include <gtest/gtest.h>

#include "thread_ranks.h"
#include "transport/collectives/chunk_layout.h"
#include "transport/collectives/ring_allreduce.h"
#include "transport/counted_run.h"

namespace ringbench {
namespace {

class RingWithOneExtraChunk final : public Algorithm {
 public:
  Collective collective() const override { return Collective::AllReduce; }
  std::string_view name() const override { return "ring-plus-one-chunk"; }
  uint32_t steps(int n) const override { return ring_allreduce().steps(n) + 1; }
  uint64_t payload_bytes_sent(int rank, int n, size_t count, size_t esize, int root) const override {
    return ring_allreduce().payload_bytes_sent(rank, n, count, esize, root);  // the lie under test
  }
  void run(Communicator& comm, const CollectiveCall& call) const override {
    ring_allreduce().run(comm, call);
    const int n = comm.size(), r = comm.rank();
    const size_t esize = element_size(call.dtype);
    ChunkLayout chunks(call.count, n);
    std::vector<std::byte> extra(chunks.size(r - 1) * esize);
    SendSpec send{(r + 1) % n, 0, std::span<const std::byte>(call.buffer.data() + chunks.offset(r) * esize,
                                                             chunks.size(r) * esize)};
    RecvSpec recv{(r - 1 + n) % n, 0, extra};
    comm.begin_collective();
    comm.exchange({&send, 1}, {&recv, 1}, {"allreduce", name(), 0, 1});
  }
};

TEST(ByteCheck, CatchesARingThatSendsOneChunkTooMany) {
  const int n = 4;
  const size_t count = 1000;
  testing::run_ranks(n, testing::quiet_options(), [&](Communicator& comm) {
    std::vector<float> data(count, 1.0f);
    CollectiveCall call{DataType::Float32, ReduceOp::Sum, std::as_writable_bytes(std::span(data)), count, 0};
    RingWithOneExtraChunk wrong;
    CountedRun bad = run_counted(comm, wrong, call);
    EXPECT_FALSE(bad.bytes_ok()) << "rank " << comm.rank();
    EXPECT_EQ(bad.moved.payload_sent, bad.expected_payload + ChunkLayout(count, n).size(comm.rank()) * sizeof(float));
    CountedRun good = run_counted(comm, ring_allreduce(), call);
    EXPECT_TRUE(good.bytes_ok()) << "rank " << comm.rank();
  });
}

TEST(ByteCheck, RingMatchesTheBoundWhenNDividesTheCount) {
  const int n = 4;
  const size_t count = 4096;
  testing::run_ranks(n, testing::quiet_options(), [&](Communicator& comm) {
    std::vector<float> data(count, 1.0f);
    CollectiveCall call{DataType::Float32, ReduceOp::Sum, std::as_writable_bytes(std::span(data)), count, 0};
    CountedRun run = run_counted(comm, ring_allreduce(), call);
    EXPECT_EQ(static_cast<double>(run.moved.payload_sent),
              lower_bound_bytes(Collective::AllReduce, n, count * sizeof(float)));
    EXPECT_EQ(run.moved.overhead_sent, ring_allreduce().steps(n) * 32u) << "one 32-byte header per step";
  });
}

}  // namespace
}  // namespace ringbench
