#pragma once
// A collective algorithm as a plug-in: everything the harness needs to run it, check its result
// and check its bytes. Ours are ScheduledAlgorithms (collectives/schedule.h): their steps, bytes
// and plan come from the specification (spec/), so the byte formula the tests and the report use
// is the sum of the plan the transport runs, the one copy of it. The `mpi` baseline rows
// implement this interface too, without a plan.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "collective.h"
#include "data_type.h"

namespace ringbench {

class Communicator;

// One call. `buffer` holds `count` elements on every rank, in place: the input on entry, the
// result on return (for all-reduce, every rank's buffer becomes the reduction of all inputs).
struct CollectiveCall {
  DataType dtype = DataType::Float32;
  ReduceOp op = ReduceOp::Sum;
  std::span<std::byte> buffer;
  size_t count = 0;
  int root = 0;
  // Pipelined algorithms' segment in bytes (spec/segments.h: the tree all-reduce, the chain
  // broadcast); 0: the specification's default. Every rank must pass the same.
  size_t segment_bytes = 0;
};

class Algorithm {
 public:
  virtual ~Algorithm() = default;
  virtual Collective collective() const = 0;
  virtual std::string_view name() const = 0;
  // Communication steps (rounds of exchange) for one call at this world size.
  virtual uint32_t steps(int world_size) const = 0;
  // The exact payload bytes `rank` sends in one call.
  virtual uint64_t payload_bytes_sent(int rank, int world_size, size_t count, size_t element_bytes,
                                      int root) const = 0;
  // Runs one call. Blocks; throws TransportError on a peer failure or timeout.
  virtual void run(Communicator& comm, const CollectiveCall& call) const = 0;

  // The exact payload bytes `rank` sends for a given placement of ranks on hosts:
  // host_of_rank[r] is the index of rank r's host (see host_placement()). Only algorithms that
  // follow hosts (hierarchical) override it; the 5-argument formula above is the one-host case.
  virtual uint64_t placed_payload_bytes_sent(int rank, std::span<const int> host_of_rank, size_t count,
                                             size_t element_bytes, int root) const {
    return payload_bytes_sent(rank, static_cast<int>(host_of_rank.size()), count, element_bytes, root);
  }
  // One line for the README table: the regime in which this algorithm is the one to pick.
  virtual std::string_view when_it_wins() const { return {}; }
  // False for algorithms whose bytes do not cross our connections (the MPI library's own
  // collectives, run as a baseline): their counters stay at zero and no formula applies.
  virtual bool bytes_counted() const { return true; }
  // Called by the harness after each timed call, outside the timed region, before anything else
  // crosses the wire. Ours need nothing; the MPI library's may still owe its peers progress (Open
  // MPI's TCP transport finishes a send only while the receiver is inside MPI), so the `mpi`
  // rows settle with MPI_Barrier before the next barrier over our own connections.
  virtual void settle() const {}
};

// Each rank's host as a small index (0 for rank 0's host, then numbered by first appearance),
// from the host identities published at bootstrap. Every rank computes the same vector.
std::vector<int> host_placement(const Communicator& comm);

// Every algorithm the specification holds, in its order (spec::all_algorithm_specs()).
const std::vector<const Algorithm*>& all_algorithms();
// nullptr when there is no such algorithm for that collective.
const Algorithm* find_algorithm(Collective collective, std::string_view name);

}  // namespace ringbench
