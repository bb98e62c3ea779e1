#include "schedule.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "../communicator.h"
#include "../copy_distance.h"

namespace ringbench {

namespace {

Collective collective_named(const spec::AlgorithmSpec& spec) {
  const std::optional<Collective> collective = parse_collective(spec.collective);
  if (!collective)  // a programming error in spec/, caught when the algorithm table is built
    throw std::logic_error(fmt::format("spec {}/{}: unknown collective", spec.collective, spec.name));
  return *collective;
}

}  // namespace

ScheduledAlgorithm::ScheduledAlgorithm(const spec::AlgorithmSpec& spec, bool sends_original_data)
    : spec_(spec), collective_(collective_named(spec)), sends_original_data_(sends_original_data) {}

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
  run_schedule(comm, call, schedule, name(), collective(), sends_original_data_);
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

// The last step at or after `from` whose sends overlap `range`, or nullopt if none does.
std::optional<size_t> last_send_of(const Schedule& schedule, size_t from, const spec::Range& range) {
  std::optional<size_t> last;
  for (size_t t = from; t < schedule.steps.size(); ++t)
    for (const SendOp& s : schedule.steps[t].sends)
      if (range.offset < s.range.offset + s.range.count && s.range.offset < range.offset + range.count) last = t;
  return last;
}

// One run of a schedule on this rank: its buffers, and the specs of the step being run.
class ScheduleRun {
 public:
  ScheduleRun(Communicator& comm, const CollectiveCall& call, bool sends_original_data)
      : comm_(comm), call_(call), sends_original_data_(sends_original_data), esize_(element_size(call.dtype)) {}

  // Takes the scratch region for the whole call (the communicator has one). With sends of the
  // original data, a receive that lands on data this or a later step still sends is held back in
  // a region of its own until that step's exchange is done, then copied in (held_until_); the
  // rest land in place. In pairwise all-to-all that is the blocks received before their own send, about half
  // the buffer, where a snapshot of the whole buffer before the first step copied all of it and
  // cost 1.6-2.1x the exchange alone at 1 MiB, N = 4, on the 2-core AMD EPYC VM. After the held
  // receives comes room for the largest step's staged receives, each of which needs its own
  // landing area. Every landing area lies half a page from its target (copy_distance.h).
  void prepare(const Schedule& schedule) {
    size_t held_bytes = 0, staging_bytes = 0;
    held_until_.assign(schedule.steps.size(), {});
    for (size_t t = 0; t < schedule.steps.size(); ++t) {
      const Step& step = schedule.steps[t];
      const bool defer = deferred(step);
      size_t bytes = 0;
      for (const RecvOp& r : step.recvs) {
        std::optional<size_t> until;
        if (sends_original_data_ && r.arrival == Arrival::Copy) until = last_send_of(schedule, t, r.range);
        held_until_[t].push_back(until);
        if (until) held_bytes += with_copy_slack(r.range.count * esize_);
        else if (defer || r.arrival != Arrival::Copy) bytes += with_copy_slack(r.range.count * esize_);
      }
      staging_bytes = std::max(staging_bytes, bytes);
    }
    scratch_ = comm_.scratch(held_bytes + staging_bytes);
    held_next_ = scratch_.data();
    staging_base_ = scratch_.data() + held_bytes;
    copies_after_.assign(schedule.steps.size(), {});
  }

  void run_step(const Step& step, uint32_t tag, const StepContext& where) {
    sends_.clear();
    recvs_.clear();
    after_exchange_.clear();
    for (const SendOp& s : step.sends)
      sends_.push_back({s.peer, tag, {call_.buffer.data() + s.range.offset * esize_, s.range.count * esize_}});
    std::byte* staging = staging_base_;
    const bool defer = deferred(step);
    for (size_t i = 0; i < step.recvs.size(); ++i) {
      if (const auto until = held_until_[tag][i]) hold(step.recvs[i], tag, *until);
      else add_recv(step.recvs[i], tag, defer, staging);
    }
    comm_.exchange(sends_, recvs_, where);
    for (auto& finish : after_exchange_) finish();
    for (auto& copy : copies_after_[tag]) copy();
  }

 private:
  // Sends of the original data need no step-wide deferral: their overlapping receives are held.
  bool deferred(const Step& step) const { return !sends_original_data_ && receives_into_its_sends(step); }

  // A landing area of `bytes` for `target`, at or after `free` (advanced past it) and before `end`,
  // half a page from its target (copy_distance.h); prepare() counted a page of slack for each.
  static std::byte* land(std::byte*& free, const std::byte* end, const std::byte* target, size_t bytes) {
    std::byte* area = half_page_from(free, target);
    const size_t room = end > area ? static_cast<size_t>(end - area) : 0;
    if (room < bytes)  // a programming error: prepare() and the steps disagree
      throw std::logic_error(fmt::format("a landing area of {} bytes overruns the scratch by {} bytes", bytes,
                                         bytes - room));
    free = area + bytes;
    return area;
  }

  // Receives `r` into the next held region; it is copied to its place after step `until`.
  void hold(const RecvOp& r, uint32_t tag, size_t until) {
    std::byte* target = call_.buffer.data() + r.range.offset * esize_;
    const size_t bytes = r.range.count * esize_;
    std::byte* incoming = land(held_next_, staging_base_, target, bytes);
    recvs_.push_back({r.peer, tag, {incoming, bytes}});
    copies_after_[until].push_back([=] { std::memcpy(target, incoming, bytes); });
  }

  // Adds the receive `r`, landing it in place or at `staging` (advanced past what it takes).
  void add_recv(const RecvOp& r, uint32_t tag, bool defer, std::byte*& staging) {
    std::byte* target = call_.buffer.data() + r.range.offset * esize_;
    const size_t bytes = r.range.count * esize_;
    if (r.arrival == Arrival::Copy && !defer) {
      recvs_.push_back({r.peer, tag, {target, bytes}});
      return;
    }
    std::byte* incoming = land(staging, scratch_.data() + scratch_.size(), target, bytes);
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
  const bool sends_original_data_;
  const size_t esize_;
  std::span<std::byte> scratch_;
  std::vector<std::vector<std::optional<size_t>>> held_until_;  // per step and receive
  std::byte* held_next_ = nullptr;
  std::byte* staging_base_ = nullptr;
  std::vector<SendSpec> sends_;
  std::vector<RecvSpec> recvs_;
  std::vector<std::function<void()>> after_exchange_;
  std::vector<std::vector<std::function<void()>>> copies_after_;  // per step: held receives to place
};

}  // namespace

void run_schedule(Communicator& comm, const CollectiveCall& call, const Schedule& schedule,
                  std::string_view algorithm, Collective collective, bool sends_original_data) {
  comm.begin_collective();
  ScheduleRun run(comm, call, sends_original_data);
  run.prepare(schedule);
  const uint32_t total = static_cast<uint32_t>(schedule.steps.size());
  for (uint32_t tag = 0; tag < total; ++tag) {
    const Step& step = schedule.steps[tag];
    if (!step.empty()) run.run_step(step, tag, {to_string(collective), algorithm, tag, total});
  }
}

}  // namespace ringbench
