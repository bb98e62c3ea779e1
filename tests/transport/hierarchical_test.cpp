// Hierarchical all-reduce with host identities the test chooses (TransportOptions::host_override):
// uneven hosts (3+1, 3+2+1), one host (it must be the ring, byte for byte), one rank per host, and
// every placement kind for N in 1..8, over real loopback sockets.

#include <gtest/gtest.h>

#include <vector>

#include "collective_inputs.h"
#include "thread_ranks.h"
#include "transport/algorithm.h"
#include "transport/collectives/hierarchical_allreduce.h"
#include "transport/collectives/ring_allreduce.h"
#include "transport/counted_run.h"

namespace ringbench {
namespace {

// Runs one float64 sum all-reduce of `count` elements on ranks placed on `hosts`; checks the
// result on every rank, and returns each rank's counted payload bytes.
std::vector<uint64_t> run_on(const std::vector<int>& hosts, size_t count, size_t socket_buffer = 4096) {
  const int n = static_cast<int>(hosts.size());
  std::vector<uint64_t> sent(hosts.size());
  testing::run_ranks(n, testing::on_hosts(hosts, socket_buffer), [&](Communicator& comm) {
    auto e = testing::expectation(Collective::AllReduce, ReduceOp::Sum, n, comm.rank(), count, 0);
    std::vector<double> buffer(e.input);
    CollectiveCall call{DataType::Float64, ReduceOp::Sum, std::as_writable_bytes(std::span(buffer)), count, 0};
    CountedRun run = run_counted(comm, hierarchical_allreduce(), call);
    EXPECT_TRUE(run.bytes_ok()) << "rank " << comm.rank() << ": sent " << run.moved.payload_sent << ", formula "
                                << run.expected_payload;
    for (size_t i = 0; i < count; ++i)
      if (buffer[i] != *e.result[i]) {
        ADD_FAILURE() << "rank " << comm.rank() << " element " << i << ": expected " << *e.result[i] << ", got "
                      << buffer[i];
        break;
      }
    sent[static_cast<size_t>(comm.rank())] = run.moved.payload_sent;
  });
  return sent;
}

TEST(Hierarchical, ThreePlusOne) {
  // K = 3 chunks of 1000. Ranks 0..2: 2 parts in, 1 piece across (a 2-ring: 1000), 2 parts out.
  // Rank 3, alone, owns all three chunks and runs three 2-rings at once: 3 x 1000.
  const std::vector<uint64_t> sent = run_on({0, 0, 0, 1}, 3000);
  EXPECT_EQ(sent, (std::vector<uint64_t>{5000 * 8, 5000 * 8, 5000 * 8, 3000 * 8}));
}

TEST(Hierarchical, ThreePlusTwoPlusOne) { run_on({0, 0, 0, 1, 1, 2}, 10007); }

TEST(Hierarchical, OneHostIsTheRingByteForByte) {
  for (int n = 1; n <= 8; ++n) {
    std::vector<int> one(n, 0);
    for (size_t count : {size_t{0}, size_t{1}, size_t{1001}})
      for (int r = 0; r < n; ++r)
        EXPECT_EQ(hierarchical_allreduce().placed_payload_bytes_sent(r, one, count, 4, 0),
                  ring_allreduce().payload_bytes_sent(r, n, count, 4, 0))
            << "N=" << n << " count=" << count << " rank " << r;
  }
  // And counted on sockets: 10007 elements in 5 chunks (2002, 2002, 2001, 2001, 2001).
  const std::vector<uint64_t> sent = run_on({0, 0, 0, 0, 0}, 10007);
  for (int r = 0; r < 5; ++r) EXPECT_EQ(sent[r], ring_allreduce().payload_bytes_sent(r, 5, 10007, 8, 0)) << r;
}

TEST(Hierarchical, EveryPlacementKindForEveryN) {
  for (int n = 1; n <= 8; ++n) {
    std::vector<int> halves(n), last_alone(n, 0), round_robin(n), own(n);
    for (int r = 0; r < n; ++r) halves[r] = r < (n + 1) / 2 ? 0 : 1, round_robin[r] = r % 2, own[r] = r;
    if (n > 1) last_alone[n - 1] = 1;
    for (const auto& hosts : {halves, last_alone, round_robin, own}) run_on(hosts, static_cast<size_t>(n) * 997 + 1);
  }
}

}  // namespace
}  // namespace ringbench
