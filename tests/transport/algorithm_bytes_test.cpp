// The point of the suite in numbers: naive all-reduce sends (N-1) x data per rank against the
// ring's 2(N-1)/N x data, and the bandwidth-optimal algorithms meet their collective's lower
// bound exactly when N divides the count. Checked from the formulas and from the counters.

#include <gtest/gtest.h>

#include <vector>

#include "thread_ranks.h"
#include "transport/algorithm.h"
#include "transport/counted_run.h"

namespace ringbench {
namespace {

const Algorithm& algorithm(Collective c, std::string_view name) {
  const Algorithm* a = find_algorithm(c, name);
  if (!a) throw std::runtime_error("no algorithm " + std::string(name));
  return *a;
}

TEST(AlgorithmBytes, NaiveSendsNMinus1TimesTheDataAndRingTwoNMinus1OverN) {
  for (int n = 2; n <= 8; ++n) {
    const size_t count = static_cast<size_t>(n) * 1000;
    const uint64_t data = count * 4;
    for (int r = 0; r < n; ++r) {
      EXPECT_EQ(algorithm(Collective::AllReduce, "naive").payload_bytes_sent(r, n, count, 4, 0), (n - 1) * data);
      EXPECT_EQ(algorithm(Collective::AllReduce, "ring").payload_bytes_sent(r, n, count, 4, 0),
                2 * (n - 1) * data / n);
    }
  }
}

TEST(AlgorithmBytes, CountersAgree_NaiveVersusRingAtN5) {
  const int n = 5;
  const size_t count = 5 * 4099;  // N divides it, so the ring meets 2(N-1)/N exactly
  const uint64_t data = count * sizeof(float);
  testing::run_ranks(n, testing::quiet_options(4096), [&](Communicator& comm) {
    std::vector<float> buffer(count, 1.0f);
    CollectiveCall call{DataType::Float32, ReduceOp::Sum, std::as_writable_bytes(std::span(buffer)), count, 0};
    CountedRun naive = run_counted(comm, algorithm(Collective::AllReduce, "naive"), call);
    CountedRun ring = run_counted(comm, algorithm(Collective::AllReduce, "ring"), call);
    EXPECT_EQ(naive.moved.payload_sent, (n - 1) * data) << "rank " << comm.rank();
    EXPECT_EQ(ring.moved.payload_sent, 2 * (n - 1) * data / n) << "rank " << comm.rank();
    EXPECT_EQ(static_cast<double>(ring.moved.payload_sent), lower_bound_bytes(Collective::AllReduce, n, data));
    EXPECT_EQ(buffer[0], static_cast<float>(n * n)) << "ring ran on naive's result: n x n";
  });
}

// Where N divides the count, these send exactly the collective's bound on every rank (for
// broadcast: the root; reduce: each non-root sends data once, the bound for the root's link).
TEST(AlgorithmBytes, BandwidthOptimalAlgorithmsMeetTheBound) {
  struct Expect {
    Collective c;
    const char* name;
    bool powers_of_two_only;
  };
  const Expect optimal[] = {{Collective::AllReduce, "ring", false},    {Collective::AllReduce, "rhd", true},
                            {Collective::AllReduce, "hierarchical", false}, {Collective::AllGather, "ring", false},
                            {Collective::AllGather, "recursive-doubling", true},
                            {Collective::ReduceScatter, "ring", false}, {Collective::ReduceScatter, "rhd", true},
                            {Collective::AllToAll, "pairwise", false}};
  for (const Expect& e : optimal) {
    for (int n = 2; n <= 8; ++n) {
      if (e.powers_of_two_only && (n & (n - 1)) != 0) continue;
      const size_t count = 840;  // divisible by 1..8
      for (int r = 0; r < n; ++r)
        EXPECT_EQ(static_cast<double>(algorithm(e.c, e.name).payload_bytes_sent(r, n, count, 8, 0)),
                  lower_bound_bytes(e.c, n, count * 8))
            << to_string(e.c) << "/" << e.name << " N=" << n << " rank " << r;
    }
  }
  for (int n = 2; n <= 8; ++n)
    EXPECT_EQ(algorithm(Collective::Broadcast, "pipelined-chain").payload_bytes_sent(3 % n, n, 840, 8, 3 % n),
              840u * 8);
}

}  // namespace
}  // namespace ringbench
