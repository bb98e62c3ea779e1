#pragma once
// A ring plan run as one stream. In a ring plan every step sends one range to the right
// neighbour and receives one from the left, and the range a step sends is the one the step before
// received (or reduced into), or begins a new round with data of its own: so the whole plan can go
// to the progress loop at once
// (Communicator::ring_stream), each piece going on to the right as soon as it has arrived and, in
// a reduce-scatter, been reduced. Every link stays busy across steps, where the generic runner
// (schedule.h) waits for each step to finish before the next begins. The ring plans then run as
// the link test that bounds them runs (bench/ringbench/link_test.h), so the model prices one
// pattern for both. (Against the generic runner the all-gather and reduce-scatter measured
// alike, inside the noise, on the 2-core AMD EPYC VM: docs/performance.md.)
//
// Reduce-scatter receives land in a staging ring of kRingStagingPieces pipeline pieces and are
// reduced into their chunk piece by piece as they arrive (RecvSpec::on_arrival, RecvSpec::staging),
// so the reduction of one piece overlaps the receive of the next and reads it from cache.
// All-gather receives land in place. A plan that is not such a ring (one rank, or a layout where a
// step is empty) runs on the generic runner.

#include <span>

#include "../communicator.h"
#include "../data_type.h"
#include "schedule.h"

namespace ringbench {

class StreamedRing final : public ScheduledAlgorithm {
 public:
  explicit StreamedRing(const spec::AlgorithmSpec& spec) : ScheduledAlgorithm(spec) {}
  void run(Communicator& comm, const CollectiveCall& call) const override;
};

// Makes `in` land in `staging` (a ring of whole pipeline pieces of `type`) and be reduced into its
// payload piece by piece as it arrives (payload = payload op incoming): the ring plans'
// reduce-scatter receives, and the reducing link test's (bench/ringbench/link_test.h).
void reduce_through_staging(RecvSpec& in, DataType type, ReduceOp op, std::span<std::byte> staging);

// Every step one send to the same peer and one receive from the same peer (copied, or reduced as
// dst = dst op src), and each step after the first sends what the step before received, or, where
// a round begins (spec/ring_allreduce.cpp), data that no earlier receive wrote.
bool is_a_streamable_ring(const Schedule& schedule);
// Step k > 0 sends exactly the range step k - 1 received: ring_stream feeds it from that receive.
bool sends_what_the_step_before_received(const Schedule& schedule, size_t k);

}  // namespace ringbench
