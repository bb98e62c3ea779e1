#include "schedule.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "../communicator.h"

namespace ringbench {

namespace {

Collective collective_named(const spec::AlgorithmSpec& spec) {
  const std::optional<Collective> collective = parse_collective(spec.collective);
  if (!collective)  // a programming error in spec/, caught when the algorithm table is built
    throw std::logic_error(fmt::format("spec {}/{}: unknown collective", spec.collective, spec.name));
  return *collective;
}

}  // namespace

ScheduledAlgorithm::ScheduledAlgorithm(const spec::AlgorithmSpec& spec, bool sends_from_snapshot)
    : spec_(spec), collective_(collective_named(spec)), sends_from_snapshot_(sends_from_snapshot) {}

uint64_t ScheduledAlgorithm::payload_bytes_sent(int rank, int world_size, size_t count, size_t element_bytes,
                                                int root) const {
  return spec::payload_bytes_sent(spec_, {rank, world_size, count, element_bytes, root, {}});
}

uint64_t ScheduledAlgorithm::placed_payload_bytes_sent(int rank, std::span<const int> host_of_rank, size_t count,
                                                       size_t element_bytes, int root) const {
  const int world_size = static_cast<int>(host_of_rank.size());
  return spec::payload_bytes_sent(spec_, {rank, world_size, count, element_bytes, root, host_of_rank});
}

void ScheduledAlgorithm::run(Communicator& comm, const CollectiveCall& call) const {
  check_call(comm, call, name());
  const std::vector<int> hosts = host_placement(comm);
  Schedule schedule =
      plan({comm.rank(), comm.size(), call.count, element_size(call.dtype), call.root, hosts, call.segment_bytes});
  run_schedule(comm, call, schedule, name(), collective(), sends_from_snapshot_);
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

namespace {

// A step that receives into elements it is also sending (recursive doubling swaps whole vectors)
// must not touch them until its sends are written: the send may lag the receive when the peer's
// buffers are full. Such a step lands everything in staging and combines after the exchange.
bool receives_into_its_sends(const Step& step) {
  for (const RecvOp& r : step.recvs)
    for (const SendOp& s : step.sends)
      if (r.range.offset < s.range.offset + s.range.count && s.range.offset < r.range.offset + r.range.count)
        return true;
  return false;
}

// One run of a schedule on this rank: its buffers, and the specs of the step being run.
class ScheduleRun {
 public:
  ScheduleRun(Communicator& comm, const CollectiveCall& call, bool sends_from_snapshot)
      : comm_(comm), call_(call), sends_from_snapshot_(sends_from_snapshot), esize_(element_size(call.dtype)),
        snapshot_bytes_(sends_from_snapshot ? call.count * esize_ : 0) {}

  // Takes the scratch region for the whole call (the communicator has one): the snapshot first,
  // then room for the largest step's staged receives, each of which needs its own landing area.
  void prepare(const Schedule& schedule) {
    size_t staging_bytes = 0;
    for (const Step& step : schedule.steps) {
      const bool defer = deferred(step);
      size_t bytes = 0;
      for (const RecvOp& r : step.recvs)
        if (defer || r.arrival != Arrival::Copy) bytes += r.range.count * esize_;
      staging_bytes = std::max(staging_bytes, bytes);
    }
    scratch_ = comm_.scratch(snapshot_bytes_ + staging_bytes);
    if (snapshot_bytes_ > 0) std::memcpy(scratch_.data(), call_.buffer.data(), snapshot_bytes_);
    send_base_ = sends_from_snapshot_ ? scratch_.data() : call_.buffer.data();
  }

  void run_step(const Step& step, uint32_t tag, const StepContext& where) {
    sends_.clear();
    recvs_.clear();
    after_exchange_.clear();
    for (const SendOp& s : step.sends)
      sends_.push_back({s.peer, tag, {send_base_ + s.range.offset * esize_, s.range.count * esize_}});
    std::byte* staging = scratch_.data() + snapshot_bytes_;
    const bool defer = deferred(step);
    for (const RecvOp& r : step.recvs) add_recv(r, tag, defer, staging);
    comm_.exchange(sends_, recvs_, where);
    for (auto& finish : after_exchange_) finish();
  }

 private:
  // With sends from a snapshot, receives never overwrite what is sent.
  bool deferred(const Step& step) const { return !sends_from_snapshot_ && receives_into_its_sends(step); }

  // Adds the receive `r`, landing it in place or at `staging` (advanced past what it takes).
  void add_recv(const RecvOp& r, uint32_t tag, bool defer, std::byte*& staging) {
    std::byte* target = call_.buffer.data() + r.range.offset * esize_;
    const size_t bytes = r.range.count * esize_;
    if (r.arrival == Arrival::Copy && !defer) {
      recvs_.push_back({r.peer, tag, {target, bytes}});
      return;
    }
    std::byte* incoming = staging;
    staging += bytes;
    if (r.arrival == Arrival::Copy) {
      recvs_.push_back({r.peer, tag, {incoming, bytes}});
      after_exchange_.push_back([=] { std::memcpy(target, incoming, bytes); });
      return;
    }
    std::function<void(size_t, size_t)> combine = combiner(r.arrival, target, incoming);
    if (defer) {
      recvs_.push_back({r.peer, tag, {incoming, bytes}});
      after_exchange_.push_back([combine = std::move(combine), bytes] { combine(0, bytes); });
    } else {
      recvs_.push_back({r.peer, tag, {incoming, bytes}, std::move(combine), esize_});
    }
  }

  // Reduces bytes [begin, end) that landed at `incoming` into `target`, in the order `arrival` asks.
  std::function<void(size_t, size_t)> combiner(Arrival arrival, std::byte* target, std::byte* incoming) const {
    const DataType dtype = call_.dtype;
    const ReduceOp op = call_.op;
    const size_t esize = esize_;
    if (arrival == Arrival::Reduce)
      return [=](size_t begin, size_t end) {
        reduce_into(dtype, op, target + begin, incoming + begin, (end - begin) / esize);
      };
    // incoming op buffer, computed in the landing area and copied back.
    return [=](size_t begin, size_t end) {
      reduce_into(dtype, op, incoming + begin, target + begin, (end - begin) / esize);
      std::memcpy(target + begin, incoming + begin, end - begin);
    };
  }

  Communicator& comm_;
  const CollectiveCall& call_;
  const bool sends_from_snapshot_;
  const size_t esize_;
  const size_t snapshot_bytes_;
  std::span<std::byte> scratch_;
  const std::byte* send_base_ = nullptr;
  std::vector<SendSpec> sends_;
  std::vector<RecvSpec> recvs_;
  std::vector<std::function<void()>> after_exchange_;
};

}  // namespace

void run_schedule(Communicator& comm, const CollectiveCall& call, const Schedule& schedule,
                  std::string_view algorithm, Collective collective, bool sends_from_snapshot) {
  comm.begin_collective();
  ScheduleRun run(comm, call, sends_from_snapshot);
  run.prepare(schedule);
  const uint32_t total = static_cast<uint32_t>(schedule.steps.size());
  for (uint32_t tag = 0; tag < total; ++tag) {
    const Step& step = schedule.steps[tag];
    if (!step.empty()) run.run_step(step, tag, {to_string(collective), algorithm, tag, total});
  }
}

}  // namespace ringbench
