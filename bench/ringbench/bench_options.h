#pragma once
// Everything one ringbench run is asked to do, as parsed from the command line (cli.cpp).

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "transport/collective.h"
#include "transport/data_type.h"
#include "transport/options.h"

namespace ringbench {

// What the inputs are: `exact` inputs make every reduction exact in every dtype, so results are
// compared bit for bit; `random` inputs are uniform in [-1, 1) and the maximum error against a
// double-precision reference is reported.
enum class InputKind { Exact, Random };

// --data's names for them.
inline std::string_view to_string(InputKind kind) { return kind == InputKind::Exact ? "exact" : "random"; }
inline std::optional<InputKind> parse_input_kind(std::string_view name) {
  for (InputKind kind : {InputKind::Exact, InputKind::Random})
    if (name == to_string(kind)) return kind;
  return std::nullopt;
}

// How calls are timed. Barrier (osu-micro-benchmarks): a barrier over our TCP before each call,
// outside the timed region; every call is a sample. Back-to-back (nccl-tests, Gloo): one barrier,
// then a batch of calls back to back, each started as soon as the last ended; a batch's time /
// its calls is a sample. Small messages differ between the two: back-to-back overlaps one call's
// tail with the next call's start and hides the barrier's skew.
enum class TimingMode { Barrier, BackToBack };
inline std::string_view to_string(TimingMode mode) { return mode == TimingMode::Barrier ? "barrier" : "back-to-back"; }
inline std::optional<TimingMode> parse_timing_mode(std::string_view name) {
  for (TimingMode mode : {TimingMode::Barrier, TimingMode::BackToBack})
    if (name == to_string(mode)) return mode;
  return std::nullopt;
}

// Every default of a run is a member initialiser here (the transport's in TransportOptions), and
// only here: the command line starts from these values and --help shows them.

struct BenchOptions {
  std::vector<Collective> collectives = {Collective::AllReduce};
  // Names, "all", or "default": each collective's first algorithm (ring where there is one).
  std::vector<std::string> algorithms = {"default"};
  DataType dtype = DataType::Float32;
  ReduceOp op = ReduceOp::Sum;
  uint64_t min_bytes = 8;
  uint64_t max_bytes = 16ull << 20;
  bool full_listing = false;     // osu -f: add min/max latency, iterations and overhead columns
  // -i N: exactly N timed calls per size. Unset: calls in blocks until the median's 95% interval
  // is within 5% or --max-time is spent (statistics/stopping_rule.h).
  std::optional<int> iterations;
  int warmup = 10;               // untimed calls per size before timing
  TimingMode timing = TimingMode::Barrier;
  double max_seconds_per_size = 1.0;  // time budget per size unless -i; 0 = none
  bool verify = true;
  InputKind inputs = InputKind::Exact;
  bool link_test = true;
  bool out_of_place = false;     // copy input to output inside the timed call (nccl-tests' out-of-place)
  bool quiet = false;            // no progress line on stderr
  bool samples = false;          // --samples: every timed sample to /samples too
  std::string output = "ringbench.h5";
  std::vector<std::string> injects;  // --inject specs as given (played by transport.fault_hook)
  TransportOptions transport;
  std::string command_line;
};

}  // namespace ringbench
