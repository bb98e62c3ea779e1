#include "cli.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <climits>
#include <cstdio>

#include "byte_size.h"
#include "fault_injection.h"
#include "ringbench_version.h"
#include "measurement.h"
#include "mpi_collectives.h"
#include "transport/algorithm.h"
#include "transport/interfaces.h"

namespace ringbench {
namespace {

// Thrown for a value CLI11 accepted syntactically but that cannot work; printed like CLI11's own.
struct BadValue {
  std::string message;
};

uint64_t largest_allocatable_bytes() {
  // Three buffers of the largest message must fit in memory (input copy, buffer, scratch).
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) / 3 : UINT64_MAX;
}

}  // namespace

ParsedCommandLine parse_command_line(int argc, char** argv, bool print) {
  BenchOptions options;
  for (int i = 0; i < argc; ++i) options.command_line += (i ? " " : "") + std::string(argv[i]);

  CLI::App app{"ringbench: collective communication over our own TCP, verified and byte-counted.\n"
               "Run under MPI: mpirun -np N ringbench [options]"};
  app.set_version_flag("-v,--version", fmt::format("ringbench {} ({})", kVersion, kGitRevision));
  std::string sizes = "8:16M", dtype = "float32", op = "sum", data = "exact";
  std::vector<std::string> collectives = {"allreduce"};
  double timeout_s = 30, max_time = options.max_seconds_per_size;
  std::string sockbuf = "0", pipeline = "256K";

  app.add_option("-m,--message-size", sizes, "Message sizes [MIN:]MAX in bytes, K/M/G suffixes (powers of two)")
      ->capture_default_str();
  app.add_option("-i,--iterations", options.iterations, "Timed iterations per size")->capture_default_str();
  app.add_option("-x,--warmup", options.warmup, "Untimed warm-up iterations per size")->capture_default_str();
  app.add_flag("-f,--full", options.full_listing, "Full listing: min/max latency, iterations, overhead");
  app.add_option("-d,--dtype", dtype, "Element type: float32, float64, int32, int64")->capture_default_str();
  app.add_option("--op", op, "Reduction: sum, prod, min, max (integer sum/prod wrap around)")->capture_default_str();
  app.add_option("--collective", collectives, "Collective(s): allreduce, allgather, reducescatter, broadcast, "
                                              "reduce, alltoall, or all")
      ->capture_default_str()->delimiter(',');
  app.add_option("--algo", options.algorithms, "Algorithm(s) of each collective, `mpi` for the MPI library's own, "
                                               "`auto` to pick per size from this run's link costs, or all (every one, "
                                               "mpi and auto included)")
      ->capture_default_str()->delimiter(',');
  app.add_option("--data", data, "Inputs: exact (bit-exact check) or random (max error reported)")
      ->capture_default_str();
  app.add_flag("!--no-verify", options.verify, "Skip result verification (bytes are still checked)");
  app.add_option("--max-time", max_time, "Cap on timed seconds per size; 0 for none")->capture_default_str();
  app.add_flag("!--no-link-test", options.link_test, "Skip the ring send/receive link-bound measurement");
  app.add_flag("-q,--quiet", options.quiet, "No progress line on stderr (it only shows on a terminal anyway)");
  app.add_flag("--out-of-place", options.out_of_place, "Time a copy from input to output buffer as part of each call");
  app.add_option("-o,--output", options.output, "HDF5 results file to append this run to")->capture_default_str();
  app.add_option("--iface", options.transport.iface_prefix, "Network interface name prefix (default: automatic)");
  app.add_option("--timeout", timeout_s, "Seconds without progress before a peer is declared failed; 0 waits "
                                         "forever")
      ->capture_default_str();
  std::vector<std::string> injects;
  app.add_option("--inject", injects, "Fault to play: kill:RANK@CALL, stall:RANK@CALL:SECONDS or slow:RANK:FACTOR "
                                      "(see docs/failures.md)");
  app.add_option("--sockbuf", sockbuf, "SO_SNDBUF/SO_RCVBUF bytes; 0 keeps kernel autotuning")->capture_default_str();
  app.add_option("--pipeline", pipeline, "Bytes received before reducing them (pipelining granularity)")
      ->capture_default_str();

  auto fail = [&](const std::string& message) {
    if (print) std::fprintf(stderr, "ringbench: error: %s\n", message.c_str());
    return ParsedCommandLine{std::nullopt, 2};
  };
  try {
    app.parse(argc, argv);
    auto range = parse_size_range(sizes, 8);
    if (!range) throw BadValue{fmt::format("-m/--message-size {}: expected [MIN:]MAX such as 8:16M", sizes)};
    if (range->first > range->second)
      throw BadValue{fmt::format("-m/--message-size {}: MIN is larger than MAX", sizes)};
    if (range->second == 0) throw BadValue{fmt::format("-m/--message-size {}: MAX must be positive", sizes)};
    if (range->second > largest_allocatable_bytes())
      throw BadValue{fmt::format("-m/--message-size {}: {} bytes per buffer cannot fit in this machine's memory",
                                 sizes, range->second)};
    options.min_bytes = range->first;
    options.max_bytes = range->second;
    if (options.iterations < 1) throw BadValue{fmt::format("-i/--iterations {}: must be at least 1", options.iterations)};
    if (options.warmup < 0) throw BadValue{fmt::format("-x/--warmup {}: must not be negative", options.warmup)};
    auto parsed_dtype = parse_data_type(dtype);
    if (!parsed_dtype) throw BadValue{fmt::format("-d/--dtype {}: expected float32, float64, int32 or int64", dtype)};
    options.dtype = *parsed_dtype;
    if (sweep_sizes(options.min_bytes, options.max_bytes, element_size(options.dtype)).empty())
      throw BadValue{fmt::format("-m/--message-size {}: smaller than one {} element ({} bytes)", sizes, dtype,
                                 element_size(options.dtype))};
    auto parsed_op = parse_reduce_op(op);
    if (!parsed_op) throw BadValue{fmt::format("--op {}: expected sum, prod, min or max", op)};
    options.op = *parsed_op;
    if (data == "exact") options.inputs = InputKind::Exact;
    else if (data == "random") options.inputs = InputKind::Random;
    else throw BadValue{fmt::format("--data {}: expected exact or random", data)};
    if (!(max_time >= 0)) throw BadValue{fmt::format("--max-time {}: must not be negative", max_time)};
    options.max_seconds_per_size = max_time;
    // (Written so that NaN fails too; a week keeps the milliseconds far from poll()'s int limit.)
    if (!(timeout_s >= 0 && timeout_s <= 7 * 86400))
      throw BadValue{fmt::format("--timeout {}: expected 0 (wait forever) or up to a week of seconds", timeout_s)};
    options.transport.timeout = std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000));
    // Connection set-up obeys the same deadline (0: wait as long as it takes, a day at most).
    options.transport.connect_timeout =
        timeout_s > 0 ? options.transport.timeout : std::chrono::milliseconds(std::chrono::hours(24));
    std::vector<Fault> faults;
    for (const auto& spec : injects) {
      std::string why;
      auto fault = parse_fault(spec, &why);
      if (!fault) throw BadValue{why};
      faults.push_back(*fault);
    }
    options.transport.fault_hook = fault_hook(std::move(faults));
    auto buffer = parse_byte_size(sockbuf);
    if (!buffer || *buffer > (1ull << 30)) throw BadValue{fmt::format("--sockbuf {}: expected a size up to 1G", sockbuf)};
    options.transport.socket_buffer_bytes = *buffer;
    auto piece = parse_byte_size(pipeline);
    if (!piece || *piece == 0) throw BadValue{fmt::format("--pipeline {}: expected a positive size", pipeline)};
    options.transport.pipeline_bytes = *piece;

    options.collectives.clear();
    for (const auto& name : collectives) {
      if (name == "all") {
        for (const Algorithm* a : harness_algorithms())
          if (std::find(options.collectives.begin(), options.collectives.end(), a->collective()) ==
              options.collectives.end())
            options.collectives.push_back(a->collective());
        continue;
      }
      auto c = parse_collective(name);
      if (!c) throw BadValue{fmt::format("--collective {}: unknown collective", name)};
      options.collectives.push_back(*c);
    }
    // The MPI library counts elements in int.
    const bool mpi_rows = std::find(options.algorithms.begin(), options.algorithms.end(), "mpi") !=
                              options.algorithms.end() ||
                          std::find(options.algorithms.begin(), options.algorithms.end(), "all") != options.algorithms.end();
    if (mpi_rows && options.max_bytes / element_size(options.dtype) > static_cast<uint64_t>(INT_MAX))
      throw BadValue{fmt::format("-m/--message-size {}: the mpi rows take at most {} elements (MPI counts in int)",
                                 sizes, INT_MAX)};
    for (const auto& name : options.algorithms) {
      if (name == "all" || name == "auto" || name == "default") continue;
      bool known = false;
      for (Collective c : options.collectives) known |= find_harness_algorithm(c, name) != nullptr;
      if (!known) {
        std::string names;
        for (const Algorithm* a : harness_algorithms())
          if (std::find(options.collectives.begin(), options.collectives.end(), a->collective()) !=
              options.collectives.end())
            names += (names.empty() ? "" : ", ") + std::string(a->name());
        throw BadValue{fmt::format("--algo {}: no such algorithm for the chosen collective(s) (known: {})", name, names)};
      }
    }
    if (options.output.empty()) throw BadValue{"-o/--output: empty file name"};
    if (!options.transport.iface_prefix.empty()) {
      try {
        choose_interface(local_interfaces(), options.transport.iface_prefix, false);
      } catch (const std::exception& e) {
        throw BadValue{e.what()};
      }
    }
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
