// Naive all-reduce: its plan (every rank sends its whole vector to every other rank), steps and
// bytes are in the specification, spec/naive_allreduce.cpp. It runs that plan here rather than in
// the generic runner for the sake of bit-identical results: all N-1 incoming vectors land in
// scratch ((N-1) x data of memory), then every rank reduces x0 op x1 op ... op x(N-1) in that
// fixed order, so all ranks run the same float operations without any further exchange.

#include "naive_allreduce.h"

#include <cstring>

#include "../communicator.h"
#include "../copy_distance.h"
#include "schedule.h"

namespace ringbench {
namespace {

class NaiveAllReduce final : public ScheduledAlgorithm {
 public:
  NaiveAllReduce() : ScheduledAlgorithm(spec::naive_allreduce()) {}

  void run(Communicator& comm, const CollectiveCall& call) const override {
    check_call(comm, call, name());
    comm.begin_collective();
    const int n = comm.size(), r = comm.rank();
    if (n == 1) return;
    const size_t esize = element_size(call.dtype), bytes = call.count * esize;
    std::byte* const data = call.buffer.data();
    std::span<std::byte> scratch = comm.scratch(static_cast<size_t>(n - 1) * with_copy_slack(bytes));
    auto slot = [&](int peer) {
      const auto index = static_cast<size_t>(peer < r ? peer : peer - 1);
      return half_page_from(scratch.data() + index * with_copy_slack(bytes), data);  // copied to data if peer 0's
    };

    // The plan's one step, with each receive redirected to its peer's scratch slot.
    const Step step = plan({r, n, call.count, esize, call.root, {}}).steps.at(0);
    std::vector<SendSpec> sends;
    std::vector<RecvSpec> recvs;
    for (const SendOp& s : step.sends)
      sends.push_back({s.peer, 0, {data + s.range.offset * esize, s.range.count * esize}});
    for (const RecvOp& v : step.recvs) recvs.push_back({v.peer, 0, {slot(v.peer), v.range.count * esize}});
    comm.exchange(sends, recvs, {"allreduce", "naive", 0, 1});

    // Fixed order x0 op x1 op ... : the accumulator starts as rank 0's vector.
    std::byte* acc = r == 0 ? data : slot(0);
    for (int j = 1; j < n; ++j) reduce_into(call.dtype, call.op, acc, j == r ? data : slot(j), call.count);
    if (acc != data && bytes > 0) std::memcpy(data, acc, bytes);  // an empty buffer's data may be null
  }
};

}  // namespace

const Algorithm& naive_allreduce() {
  static const NaiveAllReduce algorithm;
  return algorithm;
}

}  // namespace ringbench
