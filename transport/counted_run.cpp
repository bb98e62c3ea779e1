#include "counted_run.h"

#include <chrono>

#include "collectives/chunk_layout.h"
#include "communicator.h"

namespace ringbench {

void finish_average(const Communicator& comm, Collective collective, const CollectiveCall& call) {
  if (call.op != ReduceOp::Avg || comm.size() == 1) return;
  const size_t esize = element_size(call.dtype);
  switch (collective) {
    case Collective::AllReduce: return finish_average(call.dtype, call.buffer.data(), call.count, comm.size());
    case Collective::ReduceScatter: {
      const ChunkLayout chunks(call.count, comm.size());
      std::byte* mine = call.buffer.data() + chunks.offset(comm.rank()) * esize;
      return finish_average(call.dtype, mine, chunks.size(comm.rank()), comm.size());
    }
    case Collective::Reduce:
      if (comm.rank() == call.root) finish_average(call.dtype, call.buffer.data(), call.count, comm.size());
      return;
    case Collective::AllGather:
    case Collective::Broadcast:
    case Collective::AllToAll: return;  // nothing reduced, nothing to average
  }
}

uint64_t expected_payload(const Communicator& comm, const Algorithm& algorithm, const CollectiveCall& call) {
  // The placed formula: algorithms that follow hosts (hierarchical) send what this placement needs.
  return algorithm.placed_payload_bytes_sent(comm.rank(), host_placement(comm), call.count, element_size(call.dtype),
                                             call.root);
}

CountedRun run_counted(Communicator& comm, const Algorithm& algorithm, const CollectiveCall& call, uint64_t expected,
                       const std::function<void()>& start_of_call) {
  using Clock = std::chrono::steady_clock;
  const ByteCounters before = comm.counters();
  const auto start = Clock::now();
  if (start_of_call) start_of_call();
  algorithm.run(comm, call);
  finish_average(comm, algorithm.collective(), call);
  const auto end = Clock::now();
  algorithm.settle();
  const auto since_boot = [](Clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
  };
  return {comm.counters() - before, expected, std::chrono::duration<double>(end - start).count(), since_boot(start),
          since_boot(end)};
}

CountedRequest start_counted(Communicator& comm, const Algorithm& algorithm, const CollectiveCall& call,
                             uint64_t expected) {
  auto result = std::make_shared<CountedRun>();
  // The result is written before the request is marked done, and read only after.
  Request request = comm.start([&algorithm, call, expected, result](Communicator& c) {
    *result = run_counted(c, algorithm, call, expected);
  });
  return {std::move(request), std::move(result)};
}

CountedRun run_counted(Communicator& comm, const Algorithm& algorithm, const CollectiveCall& call) {
  return run_counted(comm, algorithm, call, expected_payload(comm, algorithm, call));
}

}  // namespace ringbench
