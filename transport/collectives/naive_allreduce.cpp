// Naive all-reduce: every rank sends its whole vector to every other rank and reduces locally.
// The foil that shows what ring saves.
//
//   steps          1 (every send and receive in one exchange, so it cannot deadlock)
//   bytes per rank (N-1) x data, every rank the same
//   wins           never on bandwidth (N/2 times the ring's bytes); at best ties for tiny
//                  messages on few ranks, where one step of latency beats 2(N-1)
//
// All N-1 incoming vectors land in scratch ((N-1) x data of memory), then every rank reduces
// x0 op x1 op ... op x(N-1) in that fixed order, so all ranks run the same float operations and
// get bit-identical results without any further exchange.

#include "naive_allreduce.h"

#include <cstring>

#include "../communicator.h"
#include "schedule.h"

namespace ringbench {
namespace {

class NaiveAllReduce final : public ScheduledAlgorithm {
 public:
  Collective collective() const override { return Collective::AllReduce; }
  std::string_view name() const override { return "naive"; }
  std::string_view when_it_wins() const override {
    return "never on bandwidth; the foil: one step, but (N-1) x data per rank";
  }
  uint32_t steps(int world_size) const override { return world_size > 1 ? 1 : 0; }

  // The plan is the byte formula and the pairing the tests check; run() lands each receive in
  // its own scratch slot rather than in the buffer the plan names.
  Schedule plan(const PlanInput& in) const override {
    Schedule schedule;
    const Range whole{0, in.count};
    for (int peer = 0; peer < in.world_size; ++peer) {
      if (peer == in.rank) continue;
      schedule.send(0, peer, whole);
      schedule.recv(0, peer, whole, Arrival::Copy);
    }
    return schedule;
  }

  void run(Communicator& comm, const CollectiveCall& call) const override {
    check_call(comm, call, name());
    comm.begin_collective();
    const int n = comm.size(), r = comm.rank();
    if (n == 1) return;
    const size_t bytes = call.count * element_size(call.dtype);
    std::byte* const data = call.buffer.data();
    std::span<std::byte> scratch = comm.scratch(static_cast<size_t>(n - 1) * bytes);
    auto slot = [&](int peer) { return scratch.data() + static_cast<size_t>(peer < r ? peer : peer - 1) * bytes; };

    std::vector<SendSpec> sends;
    std::vector<RecvSpec> recvs;
    for (int peer = 0; peer < n; ++peer) {
      if (peer == r) continue;
      sends.push_back({peer, 0, {data, bytes}});
      recvs.push_back({peer, 0, {slot(peer), bytes}});
    }
    comm.exchange(sends, recvs, {"allreduce", "naive", 0, 1});

    // Fixed order x0 op x1 op ... : the accumulator starts as rank 0's vector.
    std::byte* acc = r == 0 ? data : slot(0);
    for (int j = 1; j < n; ++j) reduce_into(call.dtype, call.op, acc, j == r ? data : slot(j), call.count);
    if (acc != data) std::memcpy(data, acc, bytes);
  }
};

}  // namespace

const Algorithm& naive_allreduce() {
  static const NaiveAllReduce algorithm;
  return algorithm;
}

}  // namespace ringbench
