#include "slice_probe.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "bench_options.h"
#include "byte_size.h"
#include "measurement.h"
#include "size_sweep.h"
#include "statistics/collective_call_time.h"
#include "statistics/order_statistics.h"
#include "transport/algorithm.h"
#include "transport/collectives/ring_allreduce.h"
#include "transport/communicator.h"

namespace ringbench {

namespace {

bool runs_our_transport(const BenchOptions& options) {
  return std::any_of(options.algorithms.begin(), options.algorithms.end(), [](const std::string& a) { return a != "mpi"; });
}

// One all-reduce of `buffer` per candidate, in the order `first`, first+1, ... (mod candidates), so
// that no candidate always runs right after the same one. Returns this rank's stamps in candidate order.
std::vector<stats::CallStamp> one_round(Communicator& comm, std::span<std::byte> buffer, size_t first) {
  constexpr size_t kCandidates = std::size(kSliceCandidates);
  std::vector<stats::CallStamp> stamps(kCandidates);
  CollectiveCall call{DataType::Float32, ReduceOp::Sum, buffer, buffer.size() / sizeof(float), 0};
  for (size_t turn = 0; turn < kCandidates; ++turn) {
    const size_t c = (first + turn) % kCandidates;
    comm.set_write_slice_bytes(kSliceCandidates[c]);
    comm.barrier();
    stamps[c].start_ns = stats::monotonic_ns();
    ring_allreduce().run(comm, call);
    stamps[c].end_ns = stats::monotonic_ns();
  }
  return stamps;
}

// Rank 0: each candidate's median over the rounds of the collective's call time.
std::vector<double> candidate_medians(Communicator& comm, const std::vector<stats::CallStamp>& mine, int rounds) {
  const auto gathered = comm.gather(std::as_bytes(std::span(mine)), 0);
  if (comm.rank() != 0) return {};
  std::vector<std::vector<stats::CallStamp>> by_rank(gathered.size(), std::vector<stats::CallStamp>(mine.size()));
  for (size_t rank = 0; rank < gathered.size(); ++rank)
    std::memcpy(by_rank[rank].data(), gathered[rank].data(), gathered[rank].size());
  const std::vector<double> call_us = stats::collective_call_times_us(by_rank, on_one_host(comm));
  constexpr size_t kCandidates = std::size(kSliceCandidates);
  std::vector<double> medians;
  for (size_t c = 0; c < kCandidates; ++c) {
    std::vector<double> times;
    for (int r = 0; r < rounds; ++r) times.push_back(call_us[static_cast<size_t>(r) * kCandidates + c]);
    medians.push_back(stats::median(times));
  }
  return medians;
}

}  // namespace

std::optional<uint64_t> slice_probe_bytes(const BenchOptions& options) {
  if (options.transport.write_slice_bytes != 0 || !options.injects.empty() || !runs_our_transport(options))
    return std::nullopt;
  uint64_t largest = 0;
  if (options.workload == Workload::Ddp) {
    largest = options.ddp.grad_bytes;
  } else {
    for (uint64_t bytes : run_sizes(options)) largest = std::max(largest, bytes);
  }
  if (largest < kMinProbeBytes) return std::nullopt;
  return std::min(largest, kMaxProbeBytes) / sizeof(float) * sizeof(float);
}

size_t fastest_candidate(std::span<const double> median_us) {
  return static_cast<size_t>(std::min_element(median_us.begin(), median_us.end()) - median_us.begin());
}

SliceProbe probe_write_slice(Communicator& comm, uint64_t bytes) {
  constexpr size_t kCandidates = std::size(kSliceCandidates);
  SliceProbe probe;
  probe.bytes = bytes;
  probe.candidates.assign(std::begin(kSliceCandidates), std::end(kSliceCandidates));
  std::vector<std::byte> buffer(bytes);
  // The untimed round warms the socket buffers' autotuning and sizes the timed ones.
  const auto warm_start = std::chrono::steady_clock::now();
  one_round(comm, buffer, 0);
  const double round_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - warm_start).count();
  const double affordable = std::floor(kSliceProbeBudgetSeconds / std::max(round_seconds, 1e-9));
  probe.rounds = static_cast<int>(from_rank0(comm, std::clamp(affordable, 3.0, double{kSliceProbeRounds})));
  std::vector<stats::CallStamp> mine;
  for (int r = 0; r < probe.rounds; ++r) {
    const auto stamps = one_round(comm, buffer, static_cast<size_t>(r) % kCandidates);
    mine.insert(mine.end(), stamps.begin(), stamps.end());
  }
  probe.median_us = candidate_medians(comm, mine, probe.rounds);
  const double winner = comm.rank() == 0 ? static_cast<double>(fastest_candidate(probe.median_us)) : 0;
  probe.chosen = kSliceCandidates[static_cast<size_t>(from_rank0(comm, winner))];
  comm.set_write_slice_bytes(probe.chosen);
  return probe;
}

std::string slice_candidate_list() {
  std::string list;
  for (size_t slice : kSliceCandidates) list += (list.empty() ? "" : ", ") + format_byte_size(slice);
  return list;
}

std::string describe(const SliceProbe& probe) {
  std::string each;
  for (size_t c = 0; c < probe.candidates.size() && c < probe.median_us.size(); ++c)
    each += fmt::format("{}{} {:.2f} ms", each.empty() ? "" : ", ", format_byte_size(probe.candidates[c]),
                        probe.median_us[c] / 1e3);
  return fmt::format("{} ring all-reduce with each slice, median of {} rounds taking turns: {} -> {}",
                     format_byte_size(probe.bytes), probe.rounds, each, format_byte_size(probe.chosen));
}

}  // namespace ringbench
