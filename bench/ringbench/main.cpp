// ringbench: mpirun -np N ringbench [options]. MPI launches the ranks and exchanges their
// addresses; everything after that runs over ringbench's own TCP connections.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <unistd.h>
#include <optional>

#include <fmt/format.h>

#include "algorithm_choice.h"
#include "byte_size.h"
#include "cli.h"
#include "crossover.h"
#include "exit_codes.h"
#include "launch_check.h"
#include "link_test.h"
#include "measurement.h"
#include "mpi_collectives.h"
#include "progress_line.h"
#include "mpi_bootstrap.h"
#include "report.h"
#include "results/results_file.h"
#include "ringbench_version.h"
#include "results_sink.h"
#include "run_record.h"
#include "transport/communicator.h"
#include "transport/error.h"

using namespace ringbench;

namespace {

struct KernelSummary {
  uint64_t connections = 0, mismatches = 0;
};

int run(MpiBootstrap& mpi, const BenchOptions& options) {
  const auto wall_start = std::chrono::steady_clock::now();
  const bool root = mpi.rank() == 0;
  RunRecord record = describe_run(options, mpi.library_version());
  // While the others wait on rank 0 at the next barrier, a commit may not hold rank 0 for long:
  // a third of --timeout (5 s when it is 0), queued for later if another writer has the file.
  const auto timeout = options.transport.timeout;
  ResultsSink sink(options.output, timeout.count() > 0 ? timeout / 3 : std::chrono::milliseconds(5000));
  const int n = mpi.size();

  std::unique_ptr<Communicator> comm = Communicator::connect(mpi, options.transport);
  const std::vector<std::string> hosts = comm->distinct_hosts();
  record.world_size = n;
  for (const auto& h : hosts) record.hosts += (record.hosts.empty() ? "" : ",") + h;
  record.interface = fmt::format("{} ({})", comm->interface().name, comm->interface().address);

  // The plain socket pair involves rank 0 (and one rank on another host), while the others wait
  // at the barrier.
  if (options.link_test) {
    PlainPair plain = measure_plain_pair(*comm);
    record.plain_pair_GBps = plain.GBps;
    record.plain_pair_path = plain.path;
  }
  comm->barrier();

  Report report(stdout, options, n);
  if (root) {
    report.header({fmt::format("{} ({})", kVersion, kGitRevision), n, hosts, record.interface, record.mpi_library,
                   record.plain_pair_GBps, record.plain_pair_path});
    sink.add([row = to_row(record)](results::Transaction& t) { t.append(runs_table(), {&row, 1}); });
  }

  // Rank 0 closes its /runs row however the run ends, after every queued row, so a run that fails
  // at a later size keeps the sizes it completed and says why it stopped.
  auto close_run = [&] {
    if (!root) return;
    sink.add([id = record.run_id, row = to_row(record)](results::Transaction& t) {
      t.update_where(runs_table(), "run_id", id, row);
    });
    sink.flush(std::chrono::seconds(60));  // the others are done or gone: wait as long as the lock needs
  };
  try {
    // Every rank derives the same seed from the job's first card, so inputs agree across ranks.
    const uint64_t seed = comm->peers()[0].secret_proposal;
    Measurement measurement(*comm, options, seed);
    const std::vector<int> hosts_of_ranks = host_placement(*comm);
    const size_t esize = element_size(options.dtype);
    // The `mpi` rows need MPI itself; under the file bootstrap (fault tests) they are left out.
    auto runnable = [&](const Algorithm& algorithm) { return algorithm.bytes_counted() || mpi.uses_mpi(); };
    auto wanted = [&](Collective collective, std::string_view name) {
      for (const auto& w : options.algorithms) {
        if (w == "all" || w == name) return true;
        if (w == "default") {
          for (const Algorithm* a : all_algorithms())
            if (a->collective() == collective) return a->name() == name;
        }
      }
      return false;
    };
    std::optional<LinkModel> link_model;
    const auto sizes = sweep_sizes(options.min_bytes, options.max_bytes, esize);
    // Under mpirun a rank's stderr is always a pipe, but its stdout is a pty exactly when mpirun's
    // is a terminal: either one says a person is watching.
    ProgressLine progress(root && !options.quiet && (::isatty(STDERR_FILENO) || ::isatty(STDOUT_FILENO)));
    for (Collective collective : options.collectives) {
      int runs = wanted(collective, "auto") ? 1 : 0;
      for (const Algorithm* algorithm : harness_algorithms())
        runs += algorithm->collective() == collective && runnable(*algorithm) && wanted(collective, algorithm->name()) ? 1 : 0;
      for (int i = 0; i < runs; ++i)
        for (uint64_t bytes : sizes)
          if (call_count(collective, bytes, esize, n) > 0) progress.plan(bytes);
    }
    int rows = 0, failed_rows = 0;
    auto record_row = [&](const SizeResult& result) {
      progress.clear();
      ++rows;
      report.row(result);
      if (!result.bytes_ok() || (options.verify && !result.verified())) {
        ++failed_rows;
        report.failure_details(result);
      }
      sink.add([row = to_row(record.run_id, result, options, n)](results::Transaction& t) {
        t.append(results_table(), {&row, 1});
      });
    };

    for (Collective collective : options.collectives) {
      std::vector<SizeResult> collective_results;
      std::vector<const Algorithm*> ours;  // auto's candidates: ringbench's own algorithms
      for (const Algorithm* algorithm : harness_algorithms()) {
        if (algorithm->collective() != collective) continue;
        if (algorithm->bytes_counted()) ours.push_back(algorithm);
        if (!runnable(*algorithm) || !wanted(collective, algorithm->name())) continue;
        if (root) report.collective_header(collective, std::string(algorithm->name()));
        for (uint64_t bytes : sizes) {
          if (call_count(collective, bytes, esize, n) == 0) continue;  // all-to-all below one element per peer
          progress.starting(fmt::format("{} {}", algorithm->name(), to_string(collective)), bytes);
          SizeResult result = measurement.measure(*algorithm, bytes);
          progress.finished(bytes);
          if (!root) continue;
          record_row(result);
          collective_results.push_back(std::move(result));
        }
      }
      if (wanted(collective, "auto") && !ours.empty()) {
        if (!link_model) {
          link_model = fit_link_model(*comm);
          if (root)
            fmt::print("#\n# auto model   : alpha {:.1f} us per step, beta {:.3f} GB/s per link, fitted on this run's "
                       "link test (64 B and 1 MiB chunks)\n",
                       link_model->alpha_s * 1e6, link_model->beta_s > 0 ? 1e-9 / link_model->beta_s : 0.0);
        }
        if (root) report.collective_header(collective, "auto");
        std::string picks;
        for (uint64_t bytes : sizes) {
          if (call_count(collective, bytes, esize, n) == 0) continue;
          const Algorithm* pick = choose_algorithm(ours, *link_model, hosts_of_ranks, bytes / esize, esize);
          progress.starting(fmt::format("auto ({}) {}", pick->name(), to_string(collective)), bytes);
          SizeResult result = measurement.measure(*pick, bytes);
          progress.finished(bytes);
          result.algorithm = "auto";
          result.chosen = std::string(pick->name());
          if (!root) continue;
          record_row(result);
          picks += fmt::format("{}{} {}", picks.empty() ? "" : ", ", format_byte_size(bytes), result.chosen);
          collective_results.push_back(std::move(result));
        }
        if (root) fmt::print("# auto picked : {}\n", picks);
      }
      if (root) print_crossovers(stdout, collective, n, collective_results);
    }

    // The kernel's own byte counts, at a quiet point after the last collective.
    comm->barrier();
    KernelSummary kernel;
    for (const auto& check : comm->check_kernel_counts()) {
      ++kernel.connections;
      if (!check.ok()) {
        ++kernel.mismatches;
        std::fprintf(stderr, "ringbench rank %d: byte counters disagree with TCP_INFO for rank %d: sent %llu vs %llu, "
                             "received %llu vs %llu\n",
                     comm->rank(), check.peer_rank, static_cast<unsigned long long>(check.ours_sent),
                     static_cast<unsigned long long>(check.kernel_sent), static_cast<unsigned long long>(check.ours_received),
                     static_cast<unsigned long long>(check.kernel_received));
      }
    }
    // No rank leaves (Bye, close) while another still reads its counters: a late packet to a
    // closed peer would reset the connection and hide the FIN that TCP_INFO has counted.
    comm->barrier();
    auto all_kernel = comm->gather(std::as_bytes(std::span(&kernel, 1)), 0);
    if (!root) return exit_code::kOk;

    KernelSummary total;
    for (const auto& bytes : all_kernel) {
      KernelSummary k;
      std::memcpy(&k, bytes.data(), sizeof k);
      total.connections += k.connections;
      total.mismatches += k.mismatches;
    }
    fmt::print("#\n# kernel check : {} of {} connection ends agree with TCP_INFO (bytes sent and received, handshake "
               "and headers included)\n",
               total.connections - total.mismatches, total.connections);
    if (total.mismatches) ++failed_rows;
    report.summary(rows, failed_rows, std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count());

    record.end_utc = utc_now();
    record.exit_status = failed_rows ? fmt::format("failed: {} of {} rows", failed_rows, rows) : "ok";
    close_run();
    if (!sink.failed()) fmt::print("# results      : run {} appended to {}\n", record.run_id, options.output);
    return failed_rows == 0 && !sink.failed() ? exit_code::kOk : exit_code::kCheckFailed;
  } catch (const TransportError& e) {
    record.end_utc = utc_now();
    record.exit_status = std::string("failed: ") + e.what();
    close_run();
    throw;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (std::string reason = launch_without_pmi(); !reason.empty()) {
    std::fprintf(stderr, "ringbench: error: %s\n", reason.c_str());
    return exit_code::kBadInput;
  }
  MpiBootstrap mpi(&argc, &argv);
  const bool root = mpi.rank() == 0;
  if (std::string mismatch = mpi.launch_mismatch(); !mismatch.empty()) {
    std::fprintf(stderr, "ringbench: error: %s\n", mismatch.c_str());
    return exit_code::kBadInput;
  }
  ParsedCommandLine parsed = parse_command_line(argc, argv, root);
  if (!parsed.options) return parsed.exit_code;
  if (!mpi.uses_mpi() && std::find(parsed.options->algorithms.begin(), parsed.options->algorithms.end(), "mpi") !=
                             parsed.options->algorithms.end()) {
    if (root)
      std::fprintf(stderr, "ringbench: error: --algo mpi: the MPI library's collectives need an MPI launch, and this "
                           "one uses the file bootstrap (RINGBENCH_BOOTSTRAP_DIR)\n");
    return exit_code::kBadInput;
  }
  if (root) {
    // Checked before any socket is opened; the other ranks learn of it through MPI_Abort, since
    // they have no other channel yet.
    try {
      results::check_writable(parsed.options->output);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "ringbench: error: -o/--output: %s\n", e.what());
      std::fflush(stderr);
      mpi.abort(exit_code::kBadInput);
    }
  }
  try {
    return run(mpi, *parsed.options);
  } catch (const TransportError& e) {
    std::fprintf(stderr, "ringbench: error: %s\n", e.what());
    int code = e.kind() == TransportErrorKind::Config    ? exit_code::kBadInput
               : e.kind() == TransportErrorKind::Timeout ? exit_code::kTimedOut
                                                         : exit_code::kPeerFailed;
    // Not MPI_Finalize: with a peer dead or frozen it may wait for that peer forever.
    std::fflush(nullptr);
    std::_Exit(code);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "ringbench: error: rank %d: out of memory for the buffers of -m/--message-size (each rank "
                         "holds about 3 times the largest message, 4 with verification)\n",
                 mpi.rank());
    std::fflush(nullptr);
    std::_Exit(exit_code::kBadInput);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ringbench: error: rank %d: %s\n", mpi.rank(), e.what());
    std::fflush(nullptr);
    std::_Exit(exit_code::kCheckFailed);
  }
}
