#pragma once
// Runs one collective call and checks the payload bytes this rank sent against the algorithm's
// own formula: the check cannot agree with itself by construction, since one side is what
// send() returned and the other is arithmetic on the chunk layout. The tests check single calls
// with it; ringbench's timed loop (bench/ringbench/measurement.cpp) runs every call through it.

#include <cstdint>
#include <functional>
#include <memory>

#include "algorithm.h"
#include "byte_counters.h"
#include "request.h"

namespace ringbench {

struct CountedRun {
  ByteCounters moved;         // this rank's counters for the call alone
  uint64_t expected_payload;  // the algorithm's formula
  double seconds = 0;         // wall time of the call alone (see run_counted)
  // The same interval as CLOCK_MONOTONIC readings (steady_clock on Linux), so that rank 0 can
  // line up every rank's calls when the ranks share a host and so a clock.
  int64_t start_ns = 0, end_ns = 0;
  bool bytes_ok() const { return moved.payload_sent == expected_payload; }
};

// Runs `call` once on this rank. `expected` is expected_payload() for it: timed loops work it out
// once per size, outside the loop. `seconds` covers `start_of_call` (work the caller counts as
// part of the call, such as ringbench's out-of-place copy of the inputs) and algorithm.run(); the
// counter reads and algorithm.settle() stay outside it. With avg it also covers finish_average
// below: the division is part of the call, as NCCL folds avg's scaling into the collective.
// Blocks until the call is done.
CountedRun run_counted(Communicator& comm, const Algorithm& algorithm, const CollectiveCall& call, uint64_t expected,
                       const std::function<void()>& start_of_call = {});
// A run_counted started on the progress thread (Communicator::start). The counters are read
// there, around the call alone, so calls in flight together each count only their own bytes;
// `seconds` covers the call's run, not its time in the queue. call.buffer must stay alive until
// the request is done.
class CountedRequest {
 public:
  CountedRequest(Request request, std::shared_ptr<CountedRun> result)
      : request_(std::move(request)), result_(std::move(result)) {}
  bool test() const { return request_.test(); }
  // Blocks until done; rethrows the call's TransportError (Request::wait).
  CountedRun wait() const {
    request_.wait();
    return *result_;
  }

 private:
  Request request_;
  std::shared_ptr<CountedRun> result_;
};
CountedRequest start_counted(Communicator& comm, const Algorithm& algorithm, const CollectiveCall& call,
                             uint64_t expected);

// The same, with the formula worked out here.
CountedRun run_counted(Communicator& comm, const Algorithm& algorithm, const CollectiveCall& call);

// avg's one division of the result by N, on the region where this rank's call left a reduction:
// all of it for all-reduce, chunk `rank` for reduce-scatter, the root's buffer for reduce;
// nothing for the other collectives or another op. Algorithms (ours and the `mpi` rows) reduce
// avg as a sum, so avg is implemented once, here, rather than in every algorithm: NCCL's own
// ncclAvg is likewise a sum on the wire with one scaling (its network plug-ins see it as sum).
// run_counted calls it; anyone calling Algorithm::run directly with avg must call it after.
void finish_average(const Communicator& comm, Collective collective, const CollectiveCall& call);

// The formula side alone: what this rank must send for `call` on this placement of ranks on
// hosts.
uint64_t expected_payload(const Communicator& comm, const Algorithm& algorithm, const CollectiveCall& call);

}  // namespace ringbench
