#pragma once
// --slice auto: the write slice (the most bytes one send() may take) that moves this machine's
// ring all-reduce fastest, measured at start-up instead of assumed.
//
// Why measured: the best slice is a property of the machine, not of the code. With a core per
// rank, 128 KiB slices paid on one machine type (N=2 ring 2-8 MiB 1.3-1.7x faster than one send
// per frame) and cost half the bandwidth on another (AMD EPYC guest: N=2 ring at 16 MiB 12.4 ms
// with 128 KiB slices, 7.6 ms with 2 MiB; docs/performance.md). A constant fits one of them.
//
// How: the ring all-reduce of the probe size (the run's largest, at most kMaxProbeBytes) with
// each candidate slice, candidates taking turns in rounds so that a slow phase of a noisy
// machine hits them alike: one untimed round, then rounds until kRounds or the time budget. Each
// call's time is the collective's (statistics/collective_call_time.h); rank 0 takes each
// candidate's median and the fastest wins; every rank then runs with the winner.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace ringbench {

class Communicator;
struct BenchOptions;

struct SliceProbe {
  uint64_t bytes = 0;                   // the all-reduce's size
  int rounds = 0;                       // timed rounds (each candidate once per round)
  std::vector<size_t> candidates;       // slices tried, in bytes
  std::vector<double> median_us;        // each candidate's median call time (rank 0's; empty elsewhere)
  size_t chosen = 0;                    // the winner, on every rank
};

inline constexpr size_t kSliceCandidates[] = {128 * 1024, 512 * 1024, 2 * 1024 * 1024};
inline constexpr uint64_t kMaxProbeBytes = 16ull << 20;
// Below this the run has no call whose sends a slice would cut.
inline constexpr uint64_t kMinProbeBytes = 512 * 1024;
inline constexpr int kSliceProbeRounds = 5;
// After the untimed round, rounds are cut to fit this many seconds (at least 3 rounds).
inline constexpr double kSliceProbeBudgetSeconds = 1.0;

// The all-reduce size a run's probe uses, or nothing when the slice is pinned (--slice), the run
// makes no call of our own large enough to cut, or injected faults count its calls.
std::optional<uint64_t> slice_probe_bytes(const BenchOptions& options);

// Collective: every rank calls it with the same bytes; sets the winner on `comm`.
SliceProbe probe_write_slice(Communicator& comm, uint64_t bytes);

// The candidate with the least median: index into `median_us`.
size_t fastest_candidate(std::span<const double> median_us);

// "128K, 512K, 2M": the candidates, for --help.
std::string slice_candidate_list();

// "16 MiB ring all-reduce, median of 5 rounds: 128K 12.41 ms, 512K 7.58 ms, 2M 6.39 ms -> 2M"
std::string describe(const SliceProbe& probe);

}  // namespace ringbench
