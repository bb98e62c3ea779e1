#include "schedule.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "../communicator.h"

namespace ringbench {

uint64_t Schedule::elements_sent() const {
  uint64_t elements = 0;
  for (const Step& step : steps)
    for (const SendOp& send : step.sends) elements += send.range.count;
  return elements;
}

uint64_t ScheduledAlgorithm::payload_bytes_sent(int rank, int world_size, size_t count, size_t element_bytes,
                                                int root) const {
  return plan({rank, world_size, count, element_bytes, root, {}}).elements_sent() * element_bytes;
}

uint64_t ScheduledAlgorithm::placed_payload_bytes_sent(int rank, std::span<const int> host_of_rank, size_t count,
                                                       size_t element_bytes, int root) const {
  const int world_size = static_cast<int>(host_of_rank.size());
  return plan({rank, world_size, count, element_bytes, root, host_of_rank}).elements_sent() * element_bytes;
}

void ScheduledAlgorithm::run(Communicator& comm, const CollectiveCall& call) const {
  check_call(comm, call, name());
  const std::vector<int> hosts = host_placement(comm);
  Schedule schedule = plan({comm.rank(), comm.size(), call.count, element_size(call.dtype), call.root, hosts});
  run_schedule(comm, call, schedule, name(), collective(), sends_from_snapshot());
}

void check_call(const Communicator& comm, const CollectiveCall& call, std::string_view algorithm) {
  const size_t need = call.count * element_size(call.dtype);
  if (call.buffer.size() < need)
    throw std::invalid_argument(fmt::format("rank {}: {}: buffer of {} bytes is too small for {} {} elements ({} bytes)",
                                            comm.rank(), algorithm, call.buffer.size(), call.count,
                                            to_string(call.dtype), need));
  if (call.root < 0 || call.root >= comm.size())
    throw std::invalid_argument(
        fmt::format("rank {}: {}: root {} is not a rank of this job (0..{})", comm.rank(), algorithm, call.root,
                    comm.size() - 1));
}

void run_schedule(Communicator& comm, const CollectiveCall& call, const Schedule& schedule,
                  std::string_view algorithm, Collective collective, bool sends_from_snapshot) {
  comm.begin_collective();
  const size_t esize = element_size(call.dtype);
  const size_t snapshot_bytes = sends_from_snapshot ? call.count * esize : 0;

  // One scratch region for the whole call (the communicator has one): the snapshot first, then
  // room for the largest step's reducing receives, each of which needs its own landing area.
  // A step that receives into elements it is also sending (recursive doubling swaps whole
  // vectors) must not touch them until its sends are written: the send may lag the receive when
  // the peer's buffers are full. Such a step lands everything in staging and combines afterwards.
  auto overlaps_a_send = [&](const Step& step, const RecvOp& r) {
    if (sends_from_snapshot) return false;
    for (const SendOp& s : step.sends)
      if (r.range.offset < s.range.offset + s.range.count && s.range.offset < r.range.offset + r.range.count)
        return true;
    return false;
  };
  auto deferred = [&](const Step& step) {
    for (const RecvOp& r : step.recvs)
      if (overlaps_a_send(step, r)) return true;
    return false;
  };
  size_t staging_bytes = 0;
  for (const Step& step : schedule.steps) {
    const bool defer = deferred(step);
    size_t bytes = 0;
    for (const RecvOp& r : step.recvs)
      if (defer || r.arrival != Arrival::Copy) bytes += r.range.count * esize;
    staging_bytes = std::max(staging_bytes, bytes);
  }
  std::span<std::byte> scratch = comm.scratch(snapshot_bytes + staging_bytes);
  std::byte* const data = call.buffer.data();
  if (snapshot_bytes > 0) std::memcpy(scratch.data(), data, snapshot_bytes);
  const std::byte* const send_base = sends_from_snapshot ? scratch.data() : data;

  const uint32_t total = static_cast<uint32_t>(schedule.steps.size());
  std::vector<SendSpec> sends;
  std::vector<RecvSpec> recvs;
  for (uint32_t tag = 0; tag < total; ++tag) {
    const Step& step = schedule.steps[tag];
    if (step.empty()) continue;
    sends.clear();
    recvs.clear();
    for (const SendOp& s : step.sends)
      sends.push_back({s.peer, tag, {send_base + s.range.offset * esize, s.range.count * esize}});
    std::byte* staging = scratch.data() + snapshot_bytes;
    const bool defer = deferred(step);
    std::vector<std::function<void()>> after_exchange;
    for (const RecvOp& r : step.recvs) {
      std::byte* target = data + r.range.offset * esize;
      const size_t bytes = r.range.count * esize;
      if (r.arrival == Arrival::Copy && !defer) {
        recvs.push_back({r.peer, tag, {target, bytes}});
        continue;
      }
      if (r.arrival == Arrival::Copy) {
        std::byte* incoming = staging;
        staging += bytes;
        recvs.push_back({r.peer, tag, {incoming, bytes}});
        after_exchange.push_back([=] { std::memcpy(target, incoming, bytes); });
        continue;
      }
      std::byte* incoming = staging;
      staging += bytes;
      const DataType dtype = call.dtype;
      const ReduceOp op = call.op;
      std::function<void(size_t, size_t)> combine;
      if (r.arrival == Arrival::Reduce) {
        combine = [=](size_t begin, size_t end) {
          reduce_into(dtype, op, target + begin, incoming + begin, (end - begin) / esize);
        };
      } else {
        // incoming op buffer, computed in the landing area and copied back.
        combine = [=](size_t begin, size_t end) {
          reduce_into(dtype, op, incoming + begin, target + begin, (end - begin) / esize);
          std::memcpy(target + begin, incoming + begin, end - begin);
        };
      }
      if (defer) {
        recvs.push_back({r.peer, tag, {incoming, bytes}});
        after_exchange.push_back([combine = std::move(combine), bytes] { combine(0, bytes); });
      } else {
        recvs.push_back({r.peer, tag, {incoming, bytes}, std::move(combine), esize});
      }
    }
    comm.exchange(sends, recvs, {to_string(collective), algorithm, tag, total});
    for (auto& finish : after_exchange) finish();
  }
}

}  // namespace ringbench
