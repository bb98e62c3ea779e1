#include "streamed_ring.h"

#include <vector>

#include "../communicator.h"
#include "ring_allreduce.h"

namespace ringbench {

namespace {

bool overlaps(const Range& a, const Range& b) {
  return a.count > 0 && b.count > 0 && a.offset < b.offset + b.count && b.offset < a.offset + a.count;
}

}  // namespace

bool sends_what_the_step_before_received(const Schedule& schedule, size_t k) {
  if (k == 0) return false;
  const Range& sent = schedule.steps[k].sends[0].range;
  const Range& received = schedule.steps[k - 1].recvs[0].range;
  return sent.offset == received.offset && sent.count == received.count;
}

bool is_a_streamable_ring(const Schedule& schedule) {
  for (size_t k = 0; k < schedule.steps.size(); ++k) {
    const Step& step = schedule.steps[k];
    if (step.sends.size() != 1 || step.recvs.size() != 1) return false;
    if (step.recvs[0].arrival == spec::Arrival::ReduceIncomingFirst) return false;  // dst = dst op src only
    if (k == 0) continue;
    const Step& first = schedule.steps[0];
    if (step.sends[0].peer != first.sends[0].peer || step.recvs[0].peer != first.recvs[0].peer) return false;
    if (sends_what_the_step_before_received(schedule, k)) continue;
    // A round's first send: data of this rank's own, which no earlier receive may have written (it
    // would need that receive's feed). A later receive into it, as the round's all-gather lands its
    // chunk in place, comes from a peer that first had to receive these very bytes, so the in-place
    // write cannot overtake the send: the same order that one round's first send relies on.
    for (size_t j = 0; j < k; ++j)
      if (overlaps(step.sends[0].range, schedule.steps[j].recvs[0].range)) return false;
  }
  return !schedule.steps.empty();
}

void reduce_through_staging(RecvSpec& in, DataType type, ReduceOp op, std::span<std::byte> staging) {
  const size_t esize = element_size(type);
  in.on_arrival = [target = in.payload, staging, esize, type, op](size_t begin, size_t end) {
    reduce_into(type, op, target.data() + begin, staging.data() + begin % staging.size(), (end - begin) / esize);
  };
  in.granule = esize;
  in.staging = staging;
}

void StreamedRing::run(Communicator& comm, const CollectiveCall& call) const {
  check_call(comm, call, name());
  if (comm.size() == 1) return;
  const size_t esize = element_size(call.dtype);
  const Schedule schedule =
      plan({comm.rank(), comm.size(), call.count, esize, call.root, host_placement(comm), call.segment_bytes});
  if (!is_a_streamable_ring(schedule)) {
    run_schedule(comm, call, schedule, name(), collective(), false);
    return;
  }
  comm.begin_collective();
  std::byte* data = call.buffer.data();
  auto bytes_of = [&](const Range& range) { return std::span<std::byte>(data + range.offset * esize, range.count * esize); };
  std::span<std::byte> staging = comm.scratch(kRingStagingPieces * comm.pipeline_piece(esize));
  std::vector<SendSpec> sends;
  std::vector<RecvSpec> receives;
  for (uint32_t tag = 0; tag < schedule.steps.size(); ++tag) {
    const Step& step = schedule.steps[tag];
    sends.push_back({step.sends[0].peer, tag, bytes_of(step.sends[0].range),
                     sends_what_the_step_before_received(schedule, tag)});
    const RecvOp& in = step.recvs[0];
    const std::span<std::byte> target = bytes_of(in.range);
    receives.push_back({in.peer, tag, target});
    if (spec::reduces(in.arrival)) reduce_through_staging(receives.back(), call.dtype, call.op, staging);
  }
  comm.ring_stream(sends, receives, {to_string(collective()), name(), 0, static_cast<uint32_t>(schedule.steps.size())});
}

}  // namespace ringbench
