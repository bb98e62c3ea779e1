#include "cli.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "byte_size.h"
#include "segment_choice.h"
#include "slice_probe.h"
#include "fault_injection.h"
#include "measurement.h"
#include "mpi_collectives.h"
#include "progress_line.h"
#include "ringbench_version.h"
#include "size_sweep.h"
#include "statistics/call_statistics.h"
#include "statistics/stopping_rule.h"
#include "transport/algorithm.h"
#include "transport/interfaces.h"
#include "transport/stripe.h"

namespace ringbench {
namespace {

// The ranges --slice and --spin accept: below 1 KiB a send slice costs more in system calls than
// any overlap can win back; above 64 MiB it is no slice at all; a spin beyond 100 ms is a busy wait.
constexpr uint64_t kMinSlice = 1024;
constexpr uint64_t kMaxSlice = 64ull << 20;
constexpr int64_t kMaxSpinUs = 100'000;

// Thrown for a value CLI11 accepted syntactically but that cannot work; printed like CLI11's own.
struct BadValue {
  std::string message;
};

// The flags whose text needs parsing, as typed. They start as BenchOptions' own defaults written
// the way a user types them, so --help shows the defaults that bench_options.h and
// TransportOptions define, and nothing here repeats them.
struct TypedValues {
  std::string sizes, dtype, op, data, timing, sockbuf, pipeline, slice, spin, segment, placement, format, on_failure;
  std::string workload, grad_bytes, bucket_bytes;  // --workload ddp's
  std::vector<std::string> size_list;
  std::vector<std::string> collectives, injects;
  double timeout_s = 0;
  int streams = 1;
  int threads = 1;
  bool sizes_given = false;  // -m on the command line
};

TypedValues typed_defaults(const BenchOptions& options) {
  TypedValues typed;
  typed.sizes = fmt::format("{}:{}", format_byte_size(options.min_bytes), format_byte_size(options.max_bytes));
  typed.dtype = to_string(options.dtype);
  typed.op = to_string(options.op);
  typed.data = to_string(options.inputs);
  typed.timing = to_string(options.timing);
  typed.placement = to_string(options.placement);
  typed.format = to_string(options.format);
  typed.on_failure = to_string(options.on_failure);
  typed.sockbuf = format_byte_size(options.transport.socket_buffer_bytes);
  typed.pipeline = format_byte_size(options.transport.pipeline_bytes);
  typed.slice = options.transport.write_slice_bytes == 0 ? "auto" : format_byte_size(options.transport.write_slice_bytes);
  typed.spin = options.transport.spin ? std::to_string(options.transport.spin->count()) : "auto";
  typed.segment = options.segment_bytes == 0 ? "auto" : format_byte_size(options.segment_bytes);
  typed.streams = options.transport.streams;
  typed.threads = options.transport.threads;
  for (Collective c : options.collectives) typed.collectives.emplace_back(to_string(c));
  typed.timeout_s = std::chrono::duration<double>(options.transport.timeout).count();
  typed.workload = to_string(options.workload);
  typed.grad_bytes = format_byte_size(options.ddp.grad_bytes);
  typed.bucket_bytes = fmt::format("{}:{}", format_byte_size(options.ddp.bucket_min_bytes),
                                   format_byte_size(options.ddp.bucket_max_bytes));
  return typed;
}

// The collectives the harness runs, in its order, named as --collective takes them.
std::vector<Collective> harness_collectives() {
  std::vector<Collective> collectives;
  for (const Algorithm* a : harness_algorithms())
    if (std::find(collectives.begin(), collectives.end(), a->collective()) == collectives.end())
      collectives.push_back(a->collective());
  return collectives;
}

std::string collective_names() {
  std::string names;
  for (Collective c : harness_collectives()) names += std::string(to_string(c)) + ", ";
  return names + "or all";
}

uint64_t largest_allocatable_bytes() {
  // Three buffers of the largest message must fit in memory (input copy, buffer, scratch).
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) / 3 : UINT64_MAX;
}

// --- The flags, in the order --help lists them. Each shows its default from the options. ---

void add_sweep_options(CLI::App& app, BenchOptions& options, TypedValues& typed) {
  app.add_option("-m,--message-size", typed.sizes,
                 fmt::format("Message sizes in bytes, K/M/G suffixes (binary): MIN, then every power of two up to "
                             "MAX; MIN defaults to {}",
                             options.min_bytes))
      ->type_name("[MIN:]MAX")
      ->capture_default_str();
  app.add_option("--factor", options.size_factor,
                 "Step factor of -m's sweep, as nccl-tests' -f: MIN, MIN*F, MIN*F^2, ... below MAX, then MAX; "
                 "unset: every power of two")
      ->type_name("F");
  app.add_option("--sizes", typed.size_list,
                 "Exactly these message sizes, comma-separated, K/M/G suffixes (e.g. 1M,3M,25M), instead of -m's sweep")
      ->type_name("LIST")
      ->delimiter(',');
  app.add_option("-i,--iterations", options.iterations,
                 fmt::format("Exactly N timed calls per size, overriding --max-time; unset: calls in blocks of {} "
                             "until the median's {:.0f}% confidence interval is within +-{:.0f}% or --max-time is "
                             "spent (at least {} calls)",
                             stats::kCallsPerBlock, 100 * stats::kConfidence,
                             100 * stats::StoppingRule{}.target_half_width,
                             stats::kCallsPerBlock * stats::min_blocks_for_interval()))
      ->type_name("N")
      ->default_str("adaptive");
  app.add_option("-x,--warmup", options.warmup, "Untimed warm-up calls per size, before timing")
      ->type_name("N")
      ->capture_default_str();
  app.add_option("--timing", typed.timing,
                 "How calls are timed: barrier (osu: a barrier before each call, outside the timer; each call a "
                 "sample) or back-to-back (nccl-tests, Gloo: one barrier, then batches of calls back to back; each "
                 "batch's time / its calls a sample)")
      ->type_name("MODE")
      ->capture_default_str();
  app.add_flag("--samples", options.samples,
               "Also write every timed sample (the collective's time and each rank's own) to the results file's "
               "/samples table");
  app.add_flag("-f,--full", options.full_listing,
               "Full listing: adds the calls' mean, standard deviation, min and max, the call count and why timing "
               "stopped, overhead bytes, max error, and CPU cost (CPU s per GB, context switches per call) columns");
}

void add_collective_options(CLI::App& app, BenchOptions& options, TypedValues& typed) {
  app.add_option("-d,--dtype", typed.dtype,
                 fmt::format("Element type: {} (also nccl-tests' half, float, double; bf16, fp16)",
                             data_type_names()))
      ->type_name("TYPE")
      ->capture_default_str();
  app.add_option("--op", typed.op,
                 fmt::format("Reduction: {} (integer sum and prod wrap around modulo 2^bits; avg is sum / N, as "
                             "NCCL's, for floating types only)",
                             reduce_op_names()))
      ->type_name("OP")
      ->capture_default_str();
  app.add_option("--root", options.root, "Root rank of broadcast (the source) and reduce (the destination)")
      ->type_name("R")
      ->capture_default_str();
  app.add_option("--collective", typed.collectives, "Collectives to run, comma-separated: " + collective_names())
      ->type_name("LIST")
      ->capture_default_str()
      ->delimiter(',');
  app.add_option("--algo", options.algorithms,
                 "Algorithms of each collective, comma-separated: their names (docs/algorithms.md), `default` (each "
                 "collective's first: ring where there is one), `mpi` (the MPI library's own), `auto` (picks per size: "
                 "the topology model prices each on this run's measured links, a race settles a close call) or `all` (every one, "
                 "mpi and auto included)")
      ->type_name("LIST")
      ->capture_default_str()
      ->delimiter(',');
  app.add_option("--data", typed.data,
                 "Inputs: exact (every reduction exact in every dtype; results compared bit for bit) or random "
                 "(uniform in [-1, 1); the max error against a double-precision reference is reported)")
      ->type_name("KIND")
      ->capture_default_str();
  app.add_flag_callback(
      "--no-verify", [&options] { options.verify = false; },
      "Skip result verification (bytes are still checked); by default every rank checks its result");
}

void add_run_options(CLI::App& app, BenchOptions& options, TypedValues& typed) {
  app.add_option("--max-time", options.max_seconds_per_size,
                 "Time budget per size: timing stops when it is spent, even with a wide interval (never before "
                 "the fewest calls that give an interval); ignored with -i; 0 for none")
      ->type_name("SECONDS")
      ->capture_default_str();
  app.add_flag_callback(
      "--no-link-test", [&options] { options.link_test = false; },
      "Skip the link-bound measurement (the ring send/receive at each size, and the plain TCP pair)");
  app.add_flag("-q,--quiet", options.quiet,
               fmt::format("No progress line on stderr (it shows only when a terminal watches a sweep longer "
                           "than {} s)",
                           ProgressLine::kQuietStart.count()));
  app.add_option("--place", typed.placement,
                 "in (in place: the inputs restored outside the timed region), out (out of place: the input copied "
                 "into the output buffer inside each timed call, as with a separate receive buffer) or both (each "
                 "size both ways, taking turns, on one row as nccl-tests prints them)")
      ->type_name("WHERE")
      ->capture_default_str();
  app.add_flag_callback(
      "--out-of-place", [&typed] { typed.placement = to_string(Placement::OutOfPlace); }, "Same as --place out");
  app.add_option("--format", typed.format,
                 "What stdout carries: table (the osu-style table and its '#' lines), csv or jsonl (one line per row, "
                 "with the results file's /results column names; the '#' lines go to stderr)")
      ->type_name("FORMAT")
      ->capture_default_str();
  app.add_option("-o,--output", options.output, "HDF5 results file this run is appended to (created if missing)")
      ->type_name("FILE")
      ->capture_default_str();
}

void add_transport_options(CLI::App& app, BenchOptions& options, TypedValues& typed) {
  app.add_option("--iface", options.transport.iface_spec,
                 fmt::format("Network interface, in NCCL_SOCKET_IFNAME's syntax: name prefixes (ib,eth), =NAME for "
                             "exact names, a leading ^ to exclude (^docker,lo); wins over ${}. By default automatic: "
                             "loopback when every rank is on one host, else IPoIB (ib*), else the first non-virtual "
                             "interface",
                             kSocketIfnameVariable))
      ->type_name("SPEC");
  app.add_option("--timeout", typed.timeout_s,
                 "Seconds a peer may send nothing (no data, no heartbeat) while this rank waits before it is declared "
                 "failed; also how long connection set-up may take once every address is known; 0 waits forever")
      ->type_name("SECONDS")
      ->capture_default_str();
  app.add_option("--inject", typed.injects,
                 "Fault to play, repeatable: kill:RANK@CALL, stall:RANK@CALL:SECONDS, slow:RANK:FACTOR or "
                 "silent-link:A-B@CALL (see docs/failures.md); none by default")
      ->type_name("FAULT");
  app.add_option("--on-failure", typed.on_failure,
                 "When a rank fails: abort (every survivor exits 3 or 4, naming it) or shrink (the survivors agree on "
                 "the failed ranks, rebuild among themselves and go on from the size that failed; see "
                 "docs/failures.md)")
      ->type_name("abort|shrink")
      ->capture_default_str();
  app.add_option("--sockbuf", typed.sockbuf,
                 "SO_SNDBUF/SO_RCVBUF request in bytes, K/M/G suffixes, up to 1G; 0 keeps the kernel's autotuning")
      ->type_name("BYTES")
      ->capture_default_str();
  app.add_option("--pipeline", typed.pipeline,
                 "Received bytes handed to the reduction at a time, so that reducing overlaps receiving; K/M/G "
                 "suffixes")
      ->type_name("BYTES")
      ->capture_default_str();
}

// --slice, --spin, --streams and --threads: the progress loop's tuning (apply_tuning reads them);
// --segment: the pipelined plans' (parse_segment).
void add_tuning_options(CLI::App& app, TypedValues& typed) {
  app.add_option("--segment", typed.segment,
                 fmt::format("Pipelining segment of tree and pipelined-chain, and the ring all-reduce's rounds, K/M/G "
                             "suffixes, {} to {}; auto: per size and algorithm from this run's start-up link test, "
                             "sqrt(size x latency x bandwidth / (the steps that fill the pipeline + 1)), a power of "
                             "two; the ring in rounds of a core's L2 where the host's ranks x size reach its last-level "
                             "cache, with a core for every rank (docs/algorithms.md)",
                             format_byte_size(kMinSegmentBytes), format_byte_size(kMaxSegmentBytes)))
      ->type_name("BYTES|auto")
      ->capture_default_str();
  app.add_option("--slice", typed.slice,
                 fmt::format("Most bytes one send() may take, K/M/G suffixes, {} to {}; auto: measured at start-up, the "
                             "fastest of {} for a ring all-reduce of the run's largest size (at most {}; below {}, {} "
                             "with a core for every rank on the host, else {}); with more ranks than cores the core is "
                             "yielded after each slice",
                             format_byte_size(kMinSlice), format_byte_size(kMaxSlice), slice_candidate_list(),
                             format_byte_size(kMaxProbeBytes), format_byte_size(kMinProbeBytes),
                             format_byte_size(TransportOptions::kOwnCoreSlice),
                             format_byte_size(TransportOptions::kSharedCoreSlice)))
      ->type_name("BYTES|auto")
      ->capture_default_str();
  app.add_option("--spin", typed.spin,
                 fmt::format("Microseconds a stalled rank retries before it sleeps in poll(), 0 to {}; 0 sleeps at "
                             "once; auto: {} with a core for every rank on the host (a ring's wake-ups add up along "
                             "its steps), else {} (yielding the core at each retry where ranks outnumber cores)",
                             kMaxSpinUs, TransportOptions::kOwnCoreSpin.count(),
                             TransportOptions::kSharedCoreSpin.count()))
      ->type_name("US|auto")
      ->capture_default_str();
  app.add_option("--streams", typed.streams,
                 fmt::format("TCP connections to each peer, 1 to {}; each connection's bytes are striped over them in "
                             "{} pieces, for links where one flow cannot fill the wire; every rank needs the same",
                             TransportOptions::kMaxStreams, format_byte_size(kStripeBytes)))
      ->type_name("K")
      ->capture_default_str();
  app.add_option("--threads", typed.threads,
                 "Threads per rank that move the streams' bytes at once, the rank's own included, 1 to --streams; "
                 "for a NIC that one core's copying cannot fill")
      ->type_name("T")
      ->capture_default_str();
}

void add_workload_options(CLI::App& app, BenchOptions& options, TypedValues& typed) {
  app.add_option("--workload", typed.workload,
                 "What to measure: sweep (the collectives over message sizes) or ddp (a training step's backward "
                 "pass, its float32 gradient all-reduces started bucket by bucket as the layers finish, overlapping the "
                 "compute; docs/overlap.md); ddp all-reduces with --algo's algorithms, float32 sum")
      ->type_name("KIND")
      ->capture_default_str();
  app.add_option("--grad-bytes", typed.grad_bytes, "ddp: gradient bytes of every layer together, K/M/G suffixes")
      ->type_name("BYTES")
      ->capture_default_str();
  app.add_option("--layers", options.ddp.layers, "ddp: equal layers the gradients are split over")
      ->type_name("N")
      ->capture_default_str();
  app.add_option("--bucket-bytes", typed.bucket_bytes,
                 "ddp: bucket size, or MIN:MAX for every size from MIN doubling up to MAX, taking turns; K/M/G suffixes")
      ->type_name("SIZE|MIN:MAX")
      ->capture_default_str();
  app.add_option("--compute-ms", options.ddp.compute_ms,
                 "ddp: each layer's backward time in milliseconds (a wait with the CPU free); unset: the measured "
                 "blocking all-reduce of one layer's gradients, so compute and communication are balanced")
      ->type_name("MS")
      ->default_str("measured");
}

// --- The values, checked and converted, in the order the errors are reported. ---

// --sizes (instead of -m) and --factor (with -m).
void apply_size_list_and_factor(const TypedValues& typed, BenchOptions& options) {
  if (options.size_factor && !(*options.size_factor > 1 && std::isfinite(*options.size_factor)))
    throw BadValue{fmt::format("--factor {}: must be a number above 1", *options.size_factor)};
  if (!typed.size_list.empty() && typed.sizes_given)
    throw BadValue{"--sizes: give either --sizes or -m/--message-size, not both"};
  if (!typed.size_list.empty() && options.size_factor)
    throw BadValue{"--factor: steps -m's sweep; --sizes lists every size itself"};
  for (const auto& text : typed.size_list) {
    auto bytes = parse_byte_size(text);
    if (!bytes || *bytes == 0) throw BadValue{fmt::format("--sizes {}: expected positive sizes such as 1M", text)};
    if (*bytes > largest_allocatable_bytes())
      throw BadValue{fmt::format("--sizes {}: {} bytes per buffer cannot fit in this machine's memory", text, *bytes)};
    options.size_list.push_back(*bytes);
  }
  if (!options.size_list.empty()) {
    options.min_bytes = *std::min_element(options.size_list.begin(), options.size_list.end());
    options.max_bytes = *std::max_element(options.size_list.begin(), options.size_list.end());
  }
  if (options.size_factor && sweep_sizes(options.min_bytes, options.max_bytes, 1, options.size_factor).size() > kMaxSweepSizes)
    throw BadValue{fmt::format("--factor {}: more than {} sizes from {} to {}", *options.size_factor, kMaxSweepSizes,
                               options.min_bytes, options.max_bytes)};
}

// -m, then -i and -x.
void apply_sweep(const TypedValues& typed, BenchOptions& options) {
  const std::string& sizes = typed.sizes;
  auto range = parse_size_range(sizes, options.min_bytes);
  if (!range) throw BadValue{fmt::format("-m/--message-size {}: expected [MIN:]MAX such as 8:16M", sizes)};
  if (range->first > range->second) throw BadValue{fmt::format("-m/--message-size {}: MIN is larger than MAX", sizes)};
  if (range->second == 0) throw BadValue{fmt::format("-m/--message-size {}: MAX must be positive", sizes)};
  if (range->second > largest_allocatable_bytes())
    throw BadValue{fmt::format("-m/--message-size {}: {} bytes per buffer cannot fit in this machine's memory", sizes,
                               range->second)};
  options.min_bytes = range->first;
  options.max_bytes = range->second;
  apply_size_list_and_factor(typed, options);
  if (options.iterations && *options.iterations < 1)
    throw BadValue{fmt::format("-i/--iterations {}: must be at least 1", *options.iterations)};
  if (options.warmup < 0) throw BadValue{fmt::format("-x/--warmup {}: must not be negative", options.warmup)};
}

// -d, --op and --data.
void apply_elements(const TypedValues& typed, BenchOptions& options) {
  auto dtype = parse_data_type(typed.dtype);
  if (!dtype) throw BadValue{fmt::format("-d/--dtype {}: expected one of {}", typed.dtype, data_type_names())};
  options.dtype = *dtype;
  if (run_sizes(options).empty())
    throw BadValue{fmt::format("-m/--message-size {}: smaller than one {} element ({} bytes)", typed.sizes,
                               typed.dtype, element_size(options.dtype))};
  auto op = parse_reduce_op(typed.op);
  if (!op) throw BadValue{fmt::format("--op {}: expected one of {}", typed.op, reduce_op_names())};
  if (!reduce_op_defined(*op, options.dtype))
    throw BadValue{fmt::format("--op {}: not defined on the integer type {}; use a floating -d or --op sum",
                               typed.op, to_string(options.dtype))};
  options.op = *op;
  auto inputs = parse_input_kind(typed.data);
  if (!inputs) throw BadValue{fmt::format("--data {}: expected exact or random", typed.data)};
  options.inputs = *inputs;
}

void check_time_cap(const BenchOptions& options) {
  if (!(options.max_seconds_per_size >= 0))
    throw BadValue{fmt::format("--max-time {}: must not be negative", options.max_seconds_per_size)};
}

void apply_timing(const TypedValues& typed, BenchOptions& options) {
  auto timing = parse_timing_mode(typed.timing);
  if (!timing) throw BadValue{fmt::format("--timing {}: expected barrier or back-to-back", typed.timing)};
  options.timing = *timing;
  auto placement = parse_placement(typed.placement);
  if (!placement) throw BadValue{fmt::format("--place {}: expected in, out or both", typed.placement)};
  options.placement = *placement;
  auto format = parse_output_format(typed.format);
  if (!format) throw BadValue{fmt::format("--format {}: expected table, csv or jsonl", typed.format)};
  options.format = *format;
  if (options.root < 0) throw BadValue{fmt::format("--root {}: must not be negative", options.root)};
}

void apply_transport(const TypedValues& typed, TransportOptions& transport) {
  const double timeout_s = typed.timeout_s;
  // (Written so that NaN fails too; a week keeps the milliseconds far from poll()'s int limit.)
  if (!(timeout_s >= 0 && timeout_s <= 7 * 86400))
    throw BadValue{fmt::format("--timeout {}: expected 0 (wait forever) or up to a week of seconds", timeout_s)};
  transport.timeout = std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000));
  // Connection set-up obeys the same deadline (0: wait as long as it takes, a day at most).
  transport.connect_timeout = timeout_s > 0 ? transport.timeout : std::chrono::milliseconds(std::chrono::hours(24));
  std::vector<Fault> faults;
  for (const auto& spec : typed.injects) {
    std::string why;
    auto fault = parse_fault(spec, &why);
    if (!fault) throw BadValue{why};
    faults.push_back(*fault);
  }
  transport.silenced_peer = silenced_peer_hook(faults);
  transport.fault_hook = fault_hook(std::move(faults));
  auto buffer = parse_byte_size(typed.sockbuf);
  if (!buffer || *buffer > (1ull << 30))
    throw BadValue{fmt::format("--sockbuf {}: expected a size up to 1G", typed.sockbuf)};
  transport.socket_buffer_bytes = *buffer;
  auto piece = parse_byte_size(typed.pipeline);
  if (!piece || *piece == 0) throw BadValue{fmt::format("--pipeline {}: expected a positive size", typed.pipeline)};
  transport.pipeline_bytes = *piece;
}

// --spin: auto (unset: Communicator::spin() chooses) or whole microseconds from 0 to kMaxSpinUs.
std::optional<std::chrono::microseconds> parse_spin(const std::string& text) {
  if (text == "auto") return std::nullopt;
  int64_t us = -1;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), us);
  if (error != std::errc{} || end != text.data() + text.size() || us < 0 || us > kMaxSpinUs)
    throw BadValue{fmt::format("--spin {}: expected auto or microseconds from 0 to {}", text, kMaxSpinUs)};
  return std::chrono::microseconds(us);
}

// --slice, --spin, --streams and --threads: the progress loop's send slice and spin, the sockets
// per peer and the threads that drive them.
void apply_tuning(const TypedValues& typed, TransportOptions& transport) {
  if (typed.slice == "auto") {
    transport.write_slice_bytes = 0;
  } else {
    auto slice = parse_byte_size(typed.slice);
    if (!slice || *slice < kMinSlice || *slice > kMaxSlice)
      throw BadValue{fmt::format("--slice {}: expected auto or a size from {} to {}", typed.slice,
                                 format_byte_size(kMinSlice), format_byte_size(kMaxSlice))};
    transport.write_slice_bytes = *slice;
  }
  transport.spin = parse_spin(typed.spin);
  if (typed.streams < 1 || typed.streams > TransportOptions::kMaxStreams)
    throw BadValue{fmt::format("--streams {}: expected 1 to {}", typed.streams, TransportOptions::kMaxStreams)};
  transport.streams = typed.streams;
  if (typed.threads < 1 || typed.threads > typed.streams)
    throw BadValue{fmt::format("--threads {}: expected 1 to --streams ({}): a thread drives whole streams", typed.threads,
                               typed.streams)};
  transport.threads = typed.threads;
}

// --segment: auto (0) or a size in [kMinSegmentBytes, kMaxSegmentBytes].
uint64_t parse_segment(const std::string& text) {
  if (text == "auto") return 0;
  const auto bytes = parse_byte_size(text);
  if (!bytes || *bytes < kMinSegmentBytes || *bytes > kMaxSegmentBytes)
    throw BadValue{fmt::format("--segment {}: expected auto or a size from {} to {}", text,
                               format_byte_size(kMinSegmentBytes), format_byte_size(kMaxSegmentBytes))};
  return *bytes;
}

// --bucket-bytes: one size (MIN = MAX) or MIN:MAX.
void apply_bucket_bytes(const std::string& text, DdpOptions& ddp) {
  std::optional<std::pair<uint64_t, uint64_t>> sizes;
  if (text.find(':') != std::string::npos) sizes = parse_size_range(text, 0);
  else if (auto one = parse_byte_size(text)) sizes = std::pair{*one, *one};
  if (!sizes || sizes->first < 4 || sizes->first > sizes->second)
    throw BadValue{fmt::format("--bucket-bytes {}: expected a size of at least one float32 (4) or MIN:MAX such as "
                               "64K:128M",
                               text)};
  ddp.bucket_min_bytes = sizes->first;
  ddp.bucket_max_bytes = sizes->second;
}

// --workload and its flags. The gradients and their pristine copy must fit in memory.
void apply_workload(const TypedValues& typed, BenchOptions& options) {
  auto workload = parse_workload(typed.workload);
  if (!workload) throw BadValue{fmt::format("--workload {}: expected sweep or ddp", typed.workload)};
  options.workload = *workload;
  DdpOptions& ddp = options.ddp;
  if (ddp.layers < 1) throw BadValue{fmt::format("--layers {}: must be at least 1", ddp.layers)};
  auto grad = parse_byte_size(typed.grad_bytes);
  if (!grad || *grad / 4 < static_cast<uint64_t>(ddp.layers))
    throw BadValue{fmt::format("--grad-bytes {}: expected at least one float32 per layer ({} layers)", typed.grad_bytes,
                               ddp.layers)};
  if (*grad > largest_allocatable_bytes())
    throw BadValue{fmt::format("--grad-bytes {}: cannot fit in this machine's memory", typed.grad_bytes)};
  ddp.grad_bytes = *grad;
  apply_bucket_bytes(typed.bucket_bytes, ddp);
  if (ddp.compute_ms && !(*ddp.compute_ms >= 0 && std::isfinite(*ddp.compute_ms)))
    throw BadValue{fmt::format("--compute-ms {}: must be a number of milliseconds, 0 or more", *ddp.compute_ms)};
}

// ddp all-reduces its buckets on the progress thread: ringbench's own algorithms only.
void check_ddp_algorithms(const BenchOptions& options) {
  if (options.workload != Workload::Ddp) return;
  if (options.collectives != std::vector<Collective>{Collective::AllReduce})
    throw BadValue{"--collective: --workload ddp all-reduces its buckets; leave --collective out"};
  for (const auto& name : options.algorithms)
    if (name != "default" && !find_algorithm(Collective::AllReduce, name))
      throw BadValue{fmt::format("--algo {}: --workload ddp takes ringbench's own all-reduce algorithms by name "
                                 "(or default), not mpi, auto or all",
                                 name)};
  if (options.on_failure == OnFailure::Shrink)
    throw BadValue{"--on-failure shrink: only the sweep goes on after a failure; --workload ddp stops, naming the rank"};
}

void apply_collectives(const TypedValues& typed, BenchOptions& options) {
  options.collectives.clear();
  for (const auto& name : typed.collectives) {
    if (name == "all") {
      for (Collective c : harness_collectives())
        if (std::find(options.collectives.begin(), options.collectives.end(), c) == options.collectives.end())
          options.collectives.push_back(c);
      continue;
    }
    auto c = parse_collective(name);
    if (!c) throw BadValue{fmt::format("--collective {}: unknown collective", name)};
    options.collectives.push_back(*c);
  }
}

bool asks_for(const BenchOptions& options, std::string_view name) {
  return std::find(options.algorithms.begin(), options.algorithms.end(), name) != options.algorithms.end();
}

void check_algorithms(const TypedValues& typed, const BenchOptions& options) {
  // The MPI library counts elements in int.
  const bool mpi_rows = asks_for(options, "mpi") || asks_for(options, "all");
  if (mpi_rows && options.max_bytes / element_size(options.dtype) > static_cast<uint64_t>(INT_MAX))
    throw BadValue{fmt::format("-m/--message-size {}: the mpi rows take at most {} elements (MPI counts in int)",
                               typed.sizes, INT_MAX)};
  const auto chosen = [&](Collective c) {
    return std::find(options.collectives.begin(), options.collectives.end(), c) != options.collectives.end();
  };
  for (const auto& name : options.algorithms) {
    if (name == "all" || name == "auto" || name == "default") continue;
    bool known = false;
    for (Collective c : options.collectives) known |= find_harness_algorithm(c, name) != nullptr;
    if (known) continue;
    std::string names;
    for (const Algorithm* a : harness_algorithms())
      if (chosen(a->collective())) names += (names.empty() ? "" : ", ") + std::string(a->name());
    throw BadValue{fmt::format("--algo {}: no such algorithm for the chosen collective(s) (known: {})", name, names)};
  }
}

// The interface filter: --iface, else the environment's; its syntax, and that it admits one of
// this host's interfaces, are checked here, before any socket opens.
void check_output_and_interface(BenchOptions& options, bool iface_given) {
  if (options.output.empty()) throw BadValue{"-o/--output: empty file name"};
  TransportOptions& transport = options.transport;
  if (iface_given && transport.iface_spec.empty())
    throw BadValue{"--iface: empty; leave it out for the automatic choice"};
  const char* variable = std::getenv(kSocketIfnameVariable);
  if (!iface_given && variable != nullptr && *variable != '\0') {
    transport.iface_spec = variable;
    transport.iface_origin = kSocketIfnameVariable;
  }
  if (transport.iface_spec.empty()) return;
  try {
    choose_interface(local_interfaces(), parse_interface_filter(transport.iface_spec, transport.iface_origin), true);
  } catch (const std::exception& e) {
    throw BadValue{e.what()};
  }
}

}  // namespace

ParsedCommandLine parse_command_line(int argc, char** argv, bool print) {
  BenchOptions options;
  for (int i = 0; i < argc; ++i) options.command_line += (i ? " " : "") + std::string(argv[i]);
  TypedValues typed = typed_defaults(options);

  CLI::App app{"ringbench: collective communication over our own TCP, verified and byte-counted.\n"
               "Run under MPI: mpirun -np N ringbench [options]"};
  app.set_version_flag("-v,--version", fmt::format("ringbench {} ({})", kVersion, kGitRevision));
  add_sweep_options(app, options, typed);
  add_collective_options(app, options, typed);
  add_run_options(app, options, typed);
  add_transport_options(app, options, typed);
  add_tuning_options(app, typed);
  add_workload_options(app, options, typed);

  auto fail = [&](const std::string& message) {
    if (print) std::fprintf(stderr, "ringbench: error: %s\n", message.c_str());
    return ParsedCommandLine{std::nullopt, 2};
  };
  try {
    app.parse(argc, argv);
    typed.sizes_given = app.count("--message-size") > 0;
    apply_sweep(typed, options);
    apply_elements(typed, options);
    check_time_cap(options);
    apply_timing(typed, options);
    apply_transport(typed, options.transport);
    apply_tuning(typed, options.transport);
    options.segment_bytes = parse_segment(typed.segment);
    options.injects = typed.injects;  // recorded in /runs, and checked against N in main()
    if (auto what = parse_on_failure(typed.on_failure)) options.on_failure = *what;
    else throw BadValue{fmt::format("--on-failure {}: expected abort or shrink", typed.on_failure)};
    apply_collectives(typed, options);
    check_algorithms(typed, options);
    apply_workload(typed, options);
    check_ddp_algorithms(options);
    check_output_and_interface(options, app.count("--iface") > 0);
  } catch (const CLI::CallForHelp&) {
    if (print) std::printf("%s", app.help().c_str());
    return {std::nullopt, 0};
  } catch (const CLI::CallForVersion&) {
    if (print) std::printf("%s\n", app.version().c_str());
    return {std::nullopt, 0};
  } catch (const CLI::ParseError& e) {
    return fail(e.what());
  } catch (const BadValue& e) {
    return fail(e.message);
  }
  return {options, 0};
}

}  // namespace ringbench
