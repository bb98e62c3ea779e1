#include "ddp_workload.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "input_data.h"
#include "link_test.h"
#include "size_sweep.h"
#include "statistics/call_statistics.h"
#include "statistics/order_statistics.h"
#include "statistics/stopping_rule.h"
#include "statistics/turn_order.h"
#include "transport/collectives/chunk_layout.h"
#include "transport/collectives/ring_allreduce.h"
#include "transport/counted_run.h"
#include "verification.h"

namespace ringbench {
namespace {

using Clock = std::chrono::steady_clock;
constexpr DataType kGradType = DataType::Float32;  // DDP's gradients
constexpr size_t kGradElementBytes = 4;
// Steps per bucket size: at least the fewest whose median has a 95% interval (order statistics),
// at most this many however wide the interval stays.
constexpr size_t kMinSteps = 6, kMaxSteps = 100;
// Blocking all-reduces of one layer's gradients timed for the default compute time, after warm-up.
constexpr int kComputeProbeWarmup = 2, kComputeProbeCalls = 7;
// Timed ring send/receive calls per bucket size and turn (their median is the turn's figure).
constexpr int kExchangeCallsPerTurn = 3;
// Gradient buffers up to this many elements are verified after every step and every
// communication-alone pass; larger ones (recomputing the reference costs N input values per
// element) only in the first round.
constexpr size_t kVerifyAlwaysElements = size_t{4} << 20;

double us_since(Clock::time_point t) { return std::chrono::duration<double, std::micro>(Clock::now() - t).count(); }

// Every rank's values reduced element-wise with `op` (max: the slowest rank's; sum: totals), over
// a blocking ring all-reduce, so every rank holds the same numbers and takes the same decisions.
void agree(Communicator& comm, std::vector<double>& values, ReduceOp op) {
  if (comm.size() == 1 || values.empty()) return;
  CollectiveCall call{DataType::Float64, op, std::as_writable_bytes(std::span(values)), values.size(), 0};
  ring_allreduce().run(comm, call);
}

// The interval's larger distance from the median, as a fraction of it; empty below kMinSteps.
std::optional<double> relative_half_width(std::span<const double> values) {
  auto ci = stats::median_confidence_interval(values, stats::kConfidence);
  if (!ci) return std::nullopt;
  const double median = stats::median(values);
  return median > 0 ? std::max(median - ci->low, ci->high - median) / median : 0.0;
}

struct Bucket {
  size_t offset = 0, count = 0;  // elements of the gradient buffer
  int ready_after = 0;           // the backward position (0: the last layer) whose end fills it
  uint64_t formula = 0;          // the algorithm's payload bytes for this rank
};

// The gradient buffer in backward order: position p holds layer L-1-p, with ChunkLayout's sizes.
// Buckets cut it in order; each is ready once the layer holding its last element is done.
std::vector<Bucket> make_buckets(size_t total, int layers, size_t bucket_elements) {
  const ChunkLayout layout(total, layers);
  std::vector<Bucket> buckets;
  int p = 0;
  for (size_t offset = 0; offset < total; offset += bucket_elements) {
    Bucket bucket{offset, std::min(bucket_elements, total - offset)};
    while (layout.offset(p) + layout.size(p) < offset + bucket.count) ++p;
    bucket.ready_after = p;
    buckets.push_back(bucket);
  }
  return buckets;
}

class DdpRunner {
 public:
  DdpRunner(Communicator& comm, const BenchOptions& options, const Algorithm& algorithm, uint64_t seed)
      : comm_(comm), options_(options), ddp_(options.ddp), algorithm_(algorithm), seed_(seed),
        total_(ddp_.grad_bytes / kGradElementBytes), pristine_(total_ * kGradElementBytes),
        buffer_(pristine_.size()) {
    fill_inputs(pristine_, InputKind::Exact, seed_, ReduceOp::Sum, kGradType, comm_.rank(), total_);
  }
  DdpResult run();

 private:
  struct Size {
    DdpRow row;
    std::vector<Bucket> buckets;
    std::vector<double> step_us, comm_us;  // every rank's slowest, per round
    std::vector<double> exchange_us;       // this rank's, per round (link test on)
  };
  double measure_compute_us();
  void take_turn(Size& size, bool verify);
  double step(Size& size);
  double comm_alone(Size& size);
  bool times_exchange() const { return options_.link_test && comm_.size() > 1; }
  uint64_t exchange_chunk_bytes(const Size& size) const;
  double exchange_us(const Size& size);
  CountedRequest start(const Bucket& bucket);
  void collect(Size& size, std::vector<CountedRequest>& requests);
  void restore();
  void verify(Size& size);
  bool enough(size_t rounds, double elapsed_seconds) const;
  void summarize(Size& size);

  Communicator& comm_;
  const BenchOptions& options_;
  const DdpOptions& ddp_;
  const Algorithm& algorithm_;
  const uint64_t seed_;
  const size_t total_;               // gradient elements
  std::vector<std::byte> pristine_;  // this rank's gradients, restored before every pass
  std::vector<std::byte> buffer_;    // all-reduced in place, bucket by bucket
  double compute_us_ = 0;            // per layer
  std::vector<Size> sizes_;
};

DdpResult DdpRunner::run() {
  compute_us_ = measure_compute_us();
  for (uint64_t bytes : ddp_bucket_sizes(ddp_)) {
    Size size;
    size.row.algorithm = std::string(algorithm_.name());
    size.row.bucket_bytes = bytes;
    size.row.compute_us_per_layer = compute_us_;
    size.buckets = make_buckets(total_, ddp_.layers, std::max<size_t>(1, bytes / kGradElementBytes));
    for (Bucket& b : size.buckets)
      b.formula = expected_payload(comm_, algorithm_, {kGradType, ReduceOp::Sum, {}, b.count, 0});
    size.row.buckets = size.buckets.size();
    sizes_.push_back(std::move(size));
  }
  const auto started = Clock::now();
  for (size_t round = 0;; ++round) {
    for (size_t i : stats::turn_order(sizes_.size(), seed_ + round))
      take_turn(sizes_[i], round == 0 || total_ <= kVerifyAlwaysElements);
    std::vector<double> elapsed{us_since(started) / 1e6};
    agree(comm_, elapsed, ReduceOp::Max);
    if (enough(round + 1, elapsed[0])) break;
  }
  DdpResult result;
  for (Size& size : sizes_) {
    summarize(size);
    result.rows.push_back(size.row);
    if (!size.exchange_us.empty())
      result.exchanges.push_back({exchange_chunk_bytes(size), stats::median(size.exchange_us),
                                  static_cast<int>(size.exchange_us.size()) * kExchangeCallsPerTurn});
  }
  return result;
}

// The blocking all-reduce of one layer's gradients (the largest layer), the slowest rank's median.
double DdpRunner::measure_compute_us() {
  if (ddp_.compute_ms) return *ddp_.compute_ms * 1000;
  const size_t count = ChunkLayout(total_, ddp_.layers).size(0);
  const CollectiveCall call{kGradType, ReduceOp::Sum, {buffer_.data(), count * kGradElementBytes}, count, 0};
  std::vector<double> times;
  for (int i = 0; i < kComputeProbeWarmup + kComputeProbeCalls; ++i) {
    std::memcpy(buffer_.data(), pristine_.data(), count * kGradElementBytes);
    comm_.barrier();
    const auto t0 = Clock::now();
    algorithm_.run(comm_, call);
    if (i >= kComputeProbeWarmup) times.push_back(us_since(t0));
  }
  std::vector<double> median{stats::median(times)};
  agree(comm_, median, ReduceOp::Max);
  return median[0];
}

// After each timed pass, a barrier before any rank checks or restores the gradients: a rank that
// finished early would otherwise copy or verify them on cores the slower ranks still need for
// their last buckets, and the pass's time (the slowest rank's) would hold the others' clean-up.
// On the 2-core VM at N = 4 (4 MiB of gradients in 1 MiB buckets, each pass verified), the buckets
// back to back took 1.1-3.8x as long as the same all-reduces run blocking without the barrier,
// 0.8-1.5x with it.
void DdpRunner::take_turn(Size& size, bool verify_results) {
  std::vector<double> times{step(size), 0.0};
  comm_.barrier();
  if (verify_results) verify(size);
  times[1] = comm_alone(size);
  comm_.barrier();
  if (verify_results) verify(size);
  if (times_exchange()) size.exchange_us.push_back(exchange_us(size));
  agree(comm_, times, ReduceOp::Max);
  size.step_us.push_back(times[0]);
  size.comm_us.push_back(times[1]);
}

void DdpRunner::restore() {
  std::memcpy(buffer_.data(), pristine_.data(), buffer_.size());
  comm_.barrier();
}

CountedRequest DdpRunner::start(const Bucket& bucket) {
  const CollectiveCall call{kGradType, ReduceOp::Sum,
                            {buffer_.data() + bucket.offset * kGradElementBytes, bucket.count * kGradElementBytes},
                            bucket.count, 0};
  return start_counted(comm_, algorithm_, call, bucket.formula);
}

// Backward in reverse layer order, each layer a timed wait with the CPU free; a bucket starts as
// soon as its last layer is done. Deadlines count from the step's start, so a late wake-up does
// not push the layers after it.
double DdpRunner::step(Size& size) {
  restore();
  const auto t0 = Clock::now();
  const std::chrono::duration<double, std::micro> per_layer(compute_us_);
  std::vector<CountedRequest> requests;
  requests.reserve(size.buckets.size());
  size_t next = 0;
  for (int p = 0; p < ddp_.layers; ++p) {
    std::this_thread::sleep_until(t0 + std::chrono::duration_cast<Clock::duration>(per_layer * (p + 1)));
    for (; next < size.buckets.size() && size.buckets[next].ready_after == p; ++next)
      requests.push_back(start(size.buckets[next]));
  }
  collect(size, requests);
  return us_since(t0);
}

// The same buckets, all started at once: back to back on the progress thread, no compute.
double DdpRunner::comm_alone(Size& size) {
  restore();
  const auto t0 = Clock::now();
  std::vector<CountedRequest> requests;
  requests.reserve(size.buckets.size());
  for (const Bucket& bucket : size.buckets) requests.push_back(start(bucket));
  collect(size, requests);
  return us_since(t0);
}

// A ring all-reduce's chunk of the size's largest bucket: what a sweep row's link test times for
// an all-reduce of that many bytes (measurement.cpp), and what topomodel reads it as.
uint64_t DdpRunner::exchange_chunk_bytes(const Size& size) const {
  return ChunkLayout(size.buckets.front().count, comm_.size()).size(0) * kGradElementBytes;
}

// One turn's ring send/receive at the size's chunk, per chunk, in the gradient buffer (every pass
// restores it first): 2(N - 1) chunks back to back, as a row's link test.
double DdpRunner::exchange_us(const Size& size) {
  return ring_exchange_seconds(comm_, exchange_chunk_bytes(size), kExchangeCallsPerTurn, 2 * (comm_.size() - 1),
                               buffer_) *
         1e6;
}

// Waits for every bucket, counting those whose bytes differ from the formula. On a failure the
// rest fail at once (the communicator's error); they are waited for, so none still uses the
// buffer when the error leaves.
void DdpRunner::collect(Size& size, std::vector<CountedRequest>& requests) {
  // Calls complete in issue order, so once the last is done every one is. Waiting for it first
  // wakes this thread once per pass instead of once per bucket: at 64 KiB buckets, 2,048 wake-ups,
  // each a pair of context switches on the cores the progress threads run on, which a training
  // loop (waiting at the end of its backward pass) does not pay. Its error, if any, is rethrown in
  // issue order below.
  if (!requests.empty()) {
    try {
      requests.back().wait();
    } catch (...) {  // rethrown below, by the first call that failed
    }
  }
  for (size_t i = 0; i < requests.size(); ++i) {
    try {
      if (!requests[i].wait().bytes_ok()) ++size.row.bytes_mismatches;
    } catch (...) {
      for (size_t j = i + 1; j < requests.size(); ++j) {
        try {
          requests[j].wait();
        } catch (...) {  // the same failure
        }
      }
      throw;
    }
  }
}

void DdpRunner::verify(Size& size) {
  size.row.wrong += verify_result(Collective::AllReduce, buffer_, total_, kGradType, ReduceOp::Sum, InputKind::Exact,
                                  seed_, comm_.rank(), comm_.size(), 0)
                        .wrong;
}

// -i N: exactly N steps. Else at least kMinSteps, then until every size's median interval is
// within the stopping rule's target, --max-time per size is spent, or kMaxSteps. The step times
// and the elapsed time are agreed, so every rank decides alike.
bool DdpRunner::enough(size_t rounds, double elapsed_seconds) const {
  if (options_.iterations) return rounds >= static_cast<size_t>(*options_.iterations);
  if (rounds < kMinSteps) return false;
  if (rounds >= kMaxSteps) return true;
  const double budget = options_.max_seconds_per_size * static_cast<double>(sizes_.size());
  if (budget > 0 && elapsed_seconds >= budget) return true;
  const double target = stats::StoppingRule{}.target_half_width;
  for (const Size& size : sizes_) {
    auto width = relative_half_width(size.step_us);
    if (!width || *width > target) return false;
  }
  return true;
}

void DdpRunner::summarize(Size& size) {
  DdpRow& row = size.row;
  std::vector<double> sorted = size.step_us;
  std::sort(sorted.begin(), sorted.end());
  row.steps = sorted.size();
  row.step_us = stats::sorted_quantile(sorted, 0.5);
  row.step_p05_us = stats::sorted_quantile(sorted, 0.05);
  row.step_p95_us = stats::sorted_quantile(sorted, 0.95);
  const auto width = relative_half_width(size.step_us);
  row.step_ci_pct = width ? 100 * *width : std::nan("");
  row.comm_alone_us = stats::median(size.comm_us);
  row.compute_us = ddp_.layers * row.compute_us_per_layer;
  row.exposed_comm_us = exposed_comm_us(row.step_us, row.compute_us);
  row.overlap_fraction = overlap_fraction(row.exposed_comm_us, row.comm_alone_us);
  std::vector<double> totals{static_cast<double>(row.bytes_mismatches), static_cast<double>(row.wrong)};
  agree(comm_, totals, ReduceOp::Sum);
  row.bytes_mismatches = static_cast<uint64_t>(totals[0]);
  row.wrong = static_cast<uint64_t>(totals[1]);
}

}  // namespace

std::vector<uint64_t> ddp_bucket_sizes(const DdpOptions& ddp) {
  return sweep_sizes(ddp.bucket_min_bytes, ddp.bucket_max_bytes, kGradElementBytes);
}

double exposed_comm_us(double step_us, double compute_us) { return std::max(0.0, step_us - compute_us); }

double overlap_fraction(double exposed_comm_us, double comm_alone_us) {
  if (!(comm_alone_us > 0)) return std::nan("");
  return std::clamp(1.0 - exposed_comm_us / comm_alone_us, 0.0, 1.0);
}

std::vector<const Algorithm*> ddp_algorithms(const BenchOptions& options) {
  std::vector<const Algorithm*> algorithms;
  for (const auto& name : options.algorithms) {
    const Algorithm* a = name == "default" ? &ring_allreduce() : find_algorithm(Collective::AllReduce, name);
    if (a && std::find(algorithms.begin(), algorithms.end(), a) == algorithms.end()) algorithms.push_back(a);
  }
  return algorithms;
}

DdpResult run_ddp_workload(Communicator& comm, const BenchOptions& options,
                           const std::vector<const Algorithm*>& algorithms, uint64_t seed) {
  DdpResult result;
  for (const Algorithm* algorithm : algorithms) {
    DdpResult more = DdpRunner(comm, options, *algorithm, seed).run();
    result.rows.insert(result.rows.end(), more.rows.begin(), more.rows.end());
    result.exchanges.insert(result.exchanges.end(), more.exchanges.begin(), more.exchanges.end());
  }
  return result;
}

}  // namespace ringbench
