#pragma once
// Runs one collective call and checks the payload bytes this rank sent against the algorithm's
// own formula: the check cannot agree with itself by construction, since one side is what
// send() returned and the other is arithmetic on the chunk layout.

#include <cstdint>

#include "algorithm.h"
#include "byte_counters.h"

namespace ringbench {

struct CountedRun {
  ByteCounters moved;         // this rank's counters for the call alone
  uint64_t expected_payload;  // the algorithm's formula
  bool bytes_ok() const { return moved.payload_sent == expected_payload; }
};

CountedRun run_counted(Communicator& comm, const Algorithm& algorithm, const CollectiveCall& call);

// The formula side alone: what this rank must send for `call` on this placement of ranks on
// hosts. Timed loops compute it once per size, outside the timed region.
uint64_t expected_payload(const Communicator& comm, const Algorithm& algorithm, const CollectiveCall& call);

}  // namespace ringbench
