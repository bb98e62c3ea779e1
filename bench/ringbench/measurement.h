#pragma once
// Measures algorithms at one message size, the osu way, and gathers every rank's figures to rank 0
// over our own TCP. Every rank calls measure() or measure_together() with the same arguments.
//
// Per size: fill the inputs; warm each algorithm up; then time blocks of calls (for each call:
// restore the inputs and barrier over our TCP outside the timed region, time the call, count its
// bytes) until rank 0's stopping rule says enough (statistics/stopping_rule.h), its decision sent
// to every rank. Several algorithms take turns block by block. Before each block, a share of the
// ring send/receive link test at the row's chunk size runs, so the row's link bound is measured in
// the same moments as its calls. When an algorithm stops, its last call's result is verified.

#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "bench_options.h"
#include "cpu_contention.h"
#include "segment_choice.h"
#include "statistics/call_statistics.h"
#include "statistics/collective_call_time.h"
#include "statistics/stopping_rule.h"
#include "transport/algorithm.h"
#include "transport/communicator.h"
#include "transport/counted_run.h"

namespace ringbench {

// Rank 0's value (a non-negative decision) on every rank. Collective.
double from_rank0(Communicator& comm, double value);

// Every rank on one host: their CLOCK_MONOTONIC stamps are comparable (collective_call_time.h).
bool on_one_host(const Communicator& comm);

// A row's link test runs in shares, one before each block of its calls (RingExchange). A bandwidth
// figure settles within tens of repetitions, while a noisy small size can take thousands of calls:
// one exchange per call up to kMaxLinkRepetitions in all, then one per block, which keeps the link
// test beside the calls to the row's end. How many run before a block of `calls` calls, `done` so far.
inline constexpr int kMaxLinkRepetitions = 100;
int link_repetitions_before_block(int done, size_t calls);

// One rank's figures for one size; trivially copyable so it crosses the wire as bytes.
struct RankSample {
  double mean_us = 0;            // this rank's mean over the timed calls
  double link_us = 0;            // median ring send/receive of one chunk (bytes / N)
  uint64_t payload_sent = 0;     // per call (identical in every call, else bytes_mismatch)
  uint64_t overhead_sent = 0;    // per call
  uint64_t expected_payload = 0; // the algorithm's formula for this rank
  uint64_t bytes_mismatches = 0; // calls whose payload differed from the formula
  uint64_t checked = 0, wrong = 0, first_wrong_index = 0;
  double expected = 0, got = 0, max_abs_error = 0;
  uint64_t hash = 0;
  CpuReading cpu;                // since the run's first size (cpu_contention.h)
  double call_cpu_seconds = 0;   // this process's CPU time inside the timed calls (cpu_cost.h)
  uint64_t call_context_switches = 0;
};

// The transport parameters a row ran with (rank 0's; the slice default depends on its host), as
// /results records them. Rows that did not run over our transport (mpi) keep the missing values.
struct TransportTuning {
  uint64_t pipeline_bytes = 0;     // Communicator::pipeline_piece(1)
  uint64_t write_slice_bytes = 0;  // Communicator::write_slice_bytes()
  double spin_us = std::nan("");   // Communicator::spin()
  int64_t streams = -1;            // Communicator::streams()
  int64_t threads = -1;            // Communicator::stream_threads()
  uint64_t segment_bytes = 0;      // the pipelined plans' segment (segment_choice.h); 0: not pipelined
};
TransportTuning transport_tuning(const Communicator& comm);

// What rank 0 reports for one size.
struct SizeResult {
  Collective collective;
  std::string algorithm;          // as requested: "ring", "mpi", "auto"
  std::string chosen;             // what ran: the algorithm itself, or auto's pick
  bool bytes_counted = true;      // false for `mpi` rows: their bytes do not cross our connections
  std::string transport = "ringbench tcp";  // mpi rows: "mpi: ob1/vader (pml=... btl=...)"
  bool same_wire = true;          // false: the mpi rows ran over another wire, so eff is n/a
  uint64_t bytes = 0;
  size_t count = 0;
  bool in_place = true;           // false: out of place (bench_options.h, Placement)
  int root = 0;                   // broadcast's source, reduce's destination
  int iterations = 0, warmup = 0;  // timed calls (as the stopping rule decided), warm-up calls
  uint32_t epoch = 0;             // shrinks before this row was measured (--on-failure shrink)
  TransportTuning tuning;         // filled for rows over our transport (bytes_counted)
  // Rank 0 only: each timed call's time as the collective's (statistics/collective_call_time.h),
  // in order; each rank's own duration of every call; their statistics; why timing stopped.
  std::vector<double> call_us;
  std::vector<std::vector<double>> rank_call_us;
  stats::CallStatistics time;
  std::string stop_reason;
  // The share of a host's CPU that other processes took while the calls ran; above
  // kForeignCpuShareLimit the interval is withheld (time.ci95 empty) and `contended` is set.
  double foreign_cpu_share = 0;
  bool contended = false;
  std::vector<RankSample> ranks;  // by rank; empty on ranks other than 0

  double t_avg_us() const;
  double t_min_us() const;
  double t_max_us() const;
  uint64_t sent_min() const;
  uint64_t sent_max() const;
  uint64_t overhead_max() const;
  double bound_bytes(int world) const;
  double link_bound_us(int world) const;  // bound bytes at the measured ring link bandwidth
  // CPU cost (cpu_cost.h): CPU seconds over the ranks per GB of bound bytes over the ranks, and
  // context switches over the ranks per call. NaN without calls or bound bytes (N = 1).
  double cpu_s_per_GB(int world) const;
  double ctx_switches_per_call() const;
  uint64_t wrong() const;                 // wrong elements over all ranks, plus ranks disagreeing
  bool bytes_ok() const;          // true where bytes are not counted (see bytes_counted)
  bool verified() const { return wrong() == 0; }
  const RankSample* first_wrong_rank(int* rank) const;
};

// One algorithm to measure, in one placement.
struct Contestant {
  const Algorithm* algorithm = nullptr;
  bool out_of_place = false;
};

class Measurement {
 public:
  // `cpu_since`: where the CPU readings start (cpu_contention.h); the earlier, the sooner a lasting
  // load shows. By default, now.
  Measurement(Communicator& comm, const BenchOptions& options, uint64_t seed,
              std::optional<CpuMeter> cpu_since = std::nullopt);
  // One algorithm, in place unless --place out.
  SizeResult measure(const Algorithm& algorithm, uint64_t bytes);
  // Several algorithms of one collective at one size, taking turns block by block until their
  // stopping rules stop them together (stats::leaves_the_turns: one whose interval is already
  // narrow keeps its turns, within its own --max-time, while another still needs calls), so a
  // slow phase of a noisy machine falls on all of them alike (the interleaving compare.sh does
  // across runs, inside one run): their medians compare like for like. Results in the order
  // given; an algorithm may appear twice (auto's pick, or both placements).
  std::vector<SizeResult> measure_together(std::span<const Contestant> contestants, uint64_t bytes);
  // How pipelined algorithms' calls are cut from now on (every rank sets the same); until then,
  // the specification's default.
  void set_segments(const SegmentChoice& segments) { segments_ = segments; }

 private:
  struct Contender;  // one algorithm's state while it takes turns

  SizeResult describe_point(const Contestant& contestant, uint64_t bytes) const;
  // The untimed preparation of a call: inputs restored (in place), then a barrier over our TCP.
  void prepare(const Contender& contender, std::span<const std::byte> inputs);
  CountedRun counted_call(const Contender& contender, std::span<const std::byte> inputs);
  void warm_up(Contender& contender, std::span<const std::byte> inputs);
  // One block of timed calls, each byte-counted, then rank 0's decision (into the contender's
  // result: the calls' times on rank 0, the count everywhere).
  stats::StopReason run_block(Contender& contender, std::span<const std::byte> inputs);
  // Whether a contender leaves the turns after its latest block: stats::leaves_the_turns, decided
  // alike on every rank. Collective where it depends on the time spent.
  bool leaves_the_turns(const Contender& contender, std::span<const Contender> all);
  // After its last block: statistics, verification of its last call, link test, every rank's figures.
  void finish(Contender& contender, std::span<const std::byte> inputs);
  bool back_to_back() const;
  stats::StoppingRule stopping_rule() const;
  size_t calls_in_next_block(const SizeResult& result) const;  // kCallsPerBlock, or what -i leaves
  static void account_bytes(const CountedRun& counted, RankSample& sample);
  // Gathers one block's stamps to rank 0, which adds the block's samples to `result` (a stamp
  // spanning several back-to-back calls counts as their mean) and decides; every rank returns
  // rank 0's decision, so no rank stops or goes on alone.
  stats::StopReason close_block(std::span<const stats::CallStamp> block, size_t calls_per_stamp,
                                double elapsed_seconds, SizeResult& result);
  void record_verification(const SizeResult& result, const CollectiveCall& call, RankSample* sample) const;
  // The row's ring link test at its chunk size, in shares: before each block of calls, as many
  // exchanges as the block has calls (link_test.h, RingExchange).
  void time_link_share(Contender& contender, size_t calls);
  std::vector<RankSample> gather_samples(const RankSample& sample);  // every rank's, on rank 0
  void withhold_interval_if_contended(SizeResult& result);           // rank 0

  Communicator& comm_;
  const BenchOptions& options_;
  uint64_t seed_;
  const bool shared_clock_;        // every rank on one host reads the same CLOCK_MONOTONIC
  const CpuMeter cpu_meter_;
  ContentionHistory contention_;   // rank 0
  SegmentChoice segments_;
  std::vector<std::byte> inputs_;  // pristine inputs, restored before every call
  std::vector<std::byte> buffer_;  // the collective's in-place buffer
};

// Elements one call of `collective` moves for a `bytes` buffer: bytes / element size, rounded
// down to a multiple of N for all-to-all (equal blocks per peer). Zero means nothing to measure.
size_t call_count(Collective collective, uint64_t bytes, size_t element_bytes, int world);


}  // namespace ringbench
