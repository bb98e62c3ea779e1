#pragma once
// Running a plan of the specification (spec/schedule.h) over this rank's connections. The plans,
// their byte formulas and their step counts live in spec/, one file per algorithm; the transport
// only runs them, so the bytes it sends are by construction the bytes the spec counts:
// payload_bytes_sent() is the sum of the plan's sends, and run() sends exactly those ranges.

#include <string_view>

#include "../algorithm.h"
#include "spec/algorithm_spec.h"
#include "spec/schedule.h"

namespace ringbench {

// The specification's vocabulary, under the names the transport and its tests have always used.
using spec::Arrival;
using spec::ceil_log2;
using spec::ChunkLayout;
using spec::chunk_range;
using spec::chunks_range;
using spec::floor_log2;
using spec::PlanInput;
using spec::Range;
using spec::RecvOp;
using spec::Schedule;
using spec::SendOp;
using spec::Step;

// An Algorithm that runs one AlgorithmSpec: its name, steps, bytes and plan come from the spec;
// run() walks the plan. Subclasses override run() only where they run the same plan faster
// (ring all-reduce streams it; naive all-reduce reduces in a fixed order).
class ScheduledAlgorithm : public Algorithm {
 public:
  // `sends_original_data`: every send carries the call's input as it was (all-to-all in place), so
  // a receive that lands on data this or a later step still sends is held in scratch until that
  // step is done (schedule.cpp). Otherwise later steps send what earlier ones received or reduced.
  explicit ScheduledAlgorithm(const spec::AlgorithmSpec& spec, bool sends_original_data = false);

  const spec::AlgorithmSpec& spec() const { return spec_; }
  Schedule plan(const PlanInput& input) const { return spec_.plan(input); }

  Collective collective() const override { return collective_; }
  std::string_view name() const override { return spec_.name; }
  std::string_view when_it_wins() const override { return spec_.when_it_wins; }
  uint32_t steps(int world_size) const override { return spec_.steps(world_size); }
  uint64_t payload_bytes_sent(int rank, int world_size, size_t count, size_t element_bytes,
                              int root) const override;
  uint64_t placed_payload_bytes_sent(int rank, std::span<const int> host_of_rank, size_t count,
                                     size_t element_bytes, int root) const override;
  void run(Communicator& comm, const CollectiveCall& call) const override;

 private:
  const spec::AlgorithmSpec& spec_;
  const Collective collective_;
  const bool sends_original_data_;
};

// Runs `schedule` for this rank: shared by ScheduledAlgorithm::run and algorithms that add work
// around it. Blocks; throws TransportError naming the step on failure.
void run_schedule(Communicator& comm, const CollectiveCall& call, const Schedule& schedule,
                  std::string_view algorithm, Collective collective, bool sends_original_data);

// Throws std::invalid_argument unless the call is well formed for this communicator (buffer
// large enough for count elements, root in range): caught before any byte moves.
void check_call(const Communicator& comm, const CollectiveCall& call, std::string_view algorithm);

}  // namespace ringbench
