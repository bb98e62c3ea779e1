#pragma once
// Everything one ringbench run is asked to do, as parsed from the command line (cli.cpp).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "transport/collective.h"
#include "transport/data_type.h"
#include "transport/options.h"

namespace ringbench {

// The option value named `name` on the command line: the one of `all` whose to_string() it is.
template <typename Enum, size_t N>
std::optional<Enum> parse_named(std::string_view name, const Enum (&all)[N]) {
  for (Enum value : all)
    if (to_string(value) == name) return value;
  return std::nullopt;
}

// What the inputs are: `exact` inputs make every reduction exact in every dtype, so results are
// compared bit for bit; `random` inputs are uniform in [-1, 1) and the maximum error against a
// double-precision reference is reported.
enum class InputKind { Exact, Random };

// --data's names for them.
inline std::string_view to_string(InputKind kind) { return kind == InputKind::Exact ? "exact" : "random"; }
inline std::optional<InputKind> parse_input_kind(std::string_view name) {
  constexpr InputKind all[] = {InputKind::Exact, InputKind::Random};
  return parse_named(name, all);
}

// How calls are timed. Barrier (osu-micro-benchmarks): a barrier over our TCP before each call,
// outside the timed region; every call is a sample. Back-to-back (nccl-tests, Gloo): one barrier,
// then a batch of calls back to back, each started as soon as the last ended; a batch's time /
// its calls is a sample. Small messages differ between the two: back-to-back overlaps one call's
// tail with the next call's start and hides the barrier's skew.
enum class TimingMode { Barrier, BackToBack };
inline std::string_view to_string(TimingMode mode) { return mode == TimingMode::Barrier ? "barrier" : "back-to-back"; }
inline std::optional<TimingMode> parse_timing_mode(std::string_view name) {
  constexpr TimingMode all[] = {TimingMode::Barrier, TimingMode::BackToBack};
  return parse_named(name, all);
}

// Where a call's result goes (nccl-tests' in-place and out-of-place). In place, the buffer holds the
// inputs on entry and the result on return; the inputs are restored outside the timed region.
// Out of place, copying the inputs from the input buffer into the output buffer is part of the
// call, as with a separate receive buffer. Both: each size is measured both ways, taking turns,
// and the table prints the two on one row, as nccl-tests does.
enum class Placement { InPlace, OutOfPlace, Both };
inline std::string_view to_string(Placement place) {
  return place == Placement::InPlace ? "in" : place == Placement::OutOfPlace ? "out" : "both";
}
inline std::optional<Placement> parse_placement(std::string_view name) {
  constexpr Placement all[] = {Placement::InPlace, Placement::OutOfPlace, Placement::Both};
  return parse_named(name, all);
}

// What stdout carries: the osu-style table with '#' header lines, or only the rows, as CSV (a
// header line of the /results column names, then one line per row) or JSON lines (one object per
// row, the same names), with the '#' lines on stderr.
enum class OutputFormat { Table, Csv, Jsonl };
inline std::string_view to_string(OutputFormat format) {
  return format == OutputFormat::Table ? "table" : format == OutputFormat::Csv ? "csv" : "jsonl";
}
inline std::optional<OutputFormat> parse_output_format(std::string_view name) {
  constexpr OutputFormat all[] = {OutputFormat::Table, OutputFormat::Csv, OutputFormat::Jsonl};
  return parse_named(name, all);
}

// What a run measures: the sweep of collectives over message sizes (the default), or a simulated
// training step whose gradient all-reduces overlap its backward pass (ddp_workload.h).
enum class Workload { Sweep, Ddp };
inline std::string_view to_string(Workload workload) { return workload == Workload::Sweep ? "sweep" : "ddp"; }
inline std::optional<Workload> parse_workload(std::string_view name) {
  constexpr Workload all[] = {Workload::Sweep, Workload::Ddp};
  return parse_named(name, all);
}

// --workload ddp's step (ddp_workload.h): float32 gradients over equal layers, all-reduced in
// buckets that start as soon as the backward pass has filled them.
struct DdpOptions {
  uint64_t grad_bytes = 128ull << 20;  // --grad-bytes: every layer's gradients together
  int layers = 32;                     // --layers
  // --bucket-bytes MIN:MAX: each bucket size in turn, MIN doubling up to MAX (one size: MIN = MAX).
  // PyTorch DDP's default bucket is 25 MiB; the sweep shows where overlap stops helping, on both
  // sides of the best size.
  uint64_t bucket_min_bytes = 64ull << 10;
  uint64_t bucket_max_bytes = 128ull << 20;
  // --compute-ms: each layer's backward time. Unset: the measured blocking all-reduce time of one
  // layer's gradients, so that computation and communication are balanced.
  std::optional<double> compute_ms;
};

// What the survivors do when a rank fails (docs/failures.md): stop, naming it (exit 3 or 4), or
// agree on who failed, rebuild among themselves and go on with the sweep (transport/shrink.h).
enum class OnFailure { Abort, Shrink };
inline std::string_view to_string(OnFailure what) { return what == OnFailure::Abort ? "abort" : "shrink"; }
inline std::optional<OnFailure> parse_on_failure(std::string_view name) {
  constexpr OnFailure all[] = {OnFailure::Abort, OnFailure::Shrink};
  return parse_named(name, all);
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
  std::optional<double> size_factor;  // --factor: each size F times the last (nccl-tests' -f); unset: powers of two
  std::vector<uint64_t> size_list;  // --sizes: exactly these, in this order (instead of -m's sweep)
  int root = 0;                  // --root: broadcast's source and reduce's destination
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
  Placement placement = Placement::InPlace;
  OutputFormat format = OutputFormat::Table;
  bool quiet = false;            // no progress line on stderr
  bool samples = false;          // --samples: every timed sample to /samples too
  std::string output = "ringbench.h5";
  Workload workload = Workload::Sweep;
  DdpOptions ddp;
  std::vector<std::string> injects;  // --inject specs as given (played by transport.fault_hook)
  OnFailure on_failure = OnFailure::Abort;
  uint64_t segment_bytes = 0;  // --segment: pipelined plans' segment; 0 = auto (segment_choice.h)
  TransportOptions transport;
  std::string command_line;
};

}  // namespace ringbench
