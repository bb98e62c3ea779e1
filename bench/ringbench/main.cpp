// ringbench: mpirun -np N ringbench [options]. MPI launches the ranks and exchanges their
// addresses; everything after that runs over ringbench's own TCP connections.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <unistd.h>
#include <optional>

#include <fmt/format.h>

#include "algorithm_choice.h"
#include "byte_size.h"
#include "cli.h"
#include "ddp_workload.h"
#include "crossover.h"
#include "exchange_ladder.h"
#include "exit_codes.h"
#include "fault_injection.h"
#include "flight_dump.h"
#include "launch_check.h"
#include "launch_watchdog.h"
#include "link_test.h"
#include "measurement.h"
#include "mpi_collectives.h"
#include "mpi_transport.h"
#include "progress_line.h"
#include "mpi_bootstrap.h"
#include "report.h"
#include "results/results_file.h"
#include "ringbench_version.h"
#include "results_sink.h"
#include "run_conditions.h"
#include "run_record.h"
#include "segment_choice.h"
#include "shrink_events.h"
#include "size_sweep.h"
#include "slice_probe.h"
#include "sweep.h"
#include "statistics/call_statistics.h"
#include "statistics/order_statistics.h"
#include "transport/collectives/ring_allreduce.h"
#include "transport/communicator.h"
#include "transport/debug_log.h"
#include "transport/error.h"
#include "transport/shrink.h"

using namespace ringbench;

namespace {

struct KernelSummary {
  uint64_t connections = 0, mismatches = 0;
};

// This rank's connection ends whose byte counters disagree with the kernel's, each one named on
// stderr.
KernelSummary check_own_kernel_counts(const Communicator& comm) {
  KernelSummary kernel;
  for (const auto& check : comm.check_kernel_counts()) {
    ++kernel.connections;
    if (check.ok()) continue;
    ++kernel.mismatches;
    std::fprintf(stderr, "ringbench rank %d: byte counters disagree with TCP_INFO for rank %d: sent %llu vs %llu, "
                         "received %llu vs %llu\n",
                 comm.rank(), check.peer_rank, static_cast<unsigned long long>(check.ours_sent),
                 static_cast<unsigned long long>(check.kernel_sent), static_cast<unsigned long long>(check.ours_received),
                 static_cast<unsigned long long>(check.kernel_received));
  }
  return kernel;
}

// The kernel's own byte counts, at a quiet point after the last collective, summed over every
// rank on rank 0 (collective: every rank calls it).
KernelSummary check_kernel_counts(Communicator& comm) {
  comm.barrier();
  const KernelSummary own = check_own_kernel_counts(comm);
  // No rank leaves (Bye, close) while another still reads its counters: a late packet to a
  // closed peer would reset the connection and hide the FIN that TCP_INFO has counted.
  comm.barrier();
  KernelSummary total;
  for (const auto& bytes : comm.gather(std::as_bytes(std::span(&own, 1)), 0)) {
    KernelSummary k;
    std::memcpy(&k, bytes.data(), sizeof k);
    total.connections += k.connections;
    total.mismatches += k.mismatches;
  }
  return total;
}

// One ringbench run, from connecting to the /runs row that says how it ended.
class BenchRun {
 public:
  BenchRun(MpiBootstrap& mpi, const BenchOptions& options, LaunchWatchdog& launch)
      : launch_(launch), mpi_(mpi), options_(options), root_(mpi.rank() == 0),
        record_(describe_run(options, mpi.library_version())),
        sink_(options.output, commit_wait(options)) {
    report_.emplace(stdout, options, mpi.size());
    for (int r = 0; r < mpi.size(); ++r) launched_.push_back(r);
  }

  int run() {
    connect();
    // Whoever writes after a shrink writes under the run's one id.
    if (options_.on_failure == OnFailure::Shrink) record_.run_id = share_run_id(*comm_, record_.run_id);
    start_report();
    try {
      if (options_.workload == Workload::Ddp) return run_ddp();
      auto sweep = std::make_unique<Sweep>(*comm_, mpi_, options_, *report_, sink_, record_.run_id, *cpu_since_, segments_);
      sweep->set_exchange_ladder(exchange_ladder_);
      for (;;) {
        try {
          sweep->run_all();
          break;
        } catch (const Fenced&) {
          throw;
        } catch (const TransportError& e) {
          if (options_.on_failure != OnFailure::Shrink || e.peer_rank() < 0) throw;
          shrinking_ = true;
          sweep = shrink_and_resume(*sweep, e);
          shrinking_ = false;
        }
      }
      const KernelSummary kernel = check_kernel_counts(*comm_);
      return leave(root_ ? finish(*sweep, kernel) : exit_code::kOk);
    } catch (const TransportError& e) {
      // A rank whose shrink failed may have been left out (fenced, or it cannot tell): the
      // survivors, if any, own the run's /runs row now.
      if (!shrinking_) close_run(std::string("failed: ") + e.what());
      throw;
    }
  }

 private:
  // After a shrink, no MPI_Finalize: MPI's communicator still holds the failed ranks, and
  // finalizing may wait for them forever. The Byes go out first, so no survivor takes this
  // rank's exit for a death.
  int leave(int code) {
    if (comm_->epoch() == 0) return code;
    comm_.reset();
    std::fflush(nullptr);
    std::_Exit(code);
  }

  // The survivors agree on who failed and rebuild (transport/shrink.h), and a sweep over the new
  // communicator takes over from where the failed one was. The first survivor writes from now on.
  std::unique_ptr<Sweep> shrink_and_resume(const Sweep& failed, const TransportError& e) {
    const auto verdict = std::chrono::steady_clock::now();
    Shrunk shrunk = shrink(*comm_, e);
    ShrinkEvent event;
    event.old_size = comm_->size();
    for (int r : shrunk.failed) event.failed.push_back(launched_[static_cast<size_t>(r)]);
    std::vector<int> launched;
    for (int r : shrunk.survivors) launched.push_back(launched_[static_cast<size_t>(r)]);
    launched_ = std::move(launched);
    comm_ = std::move(shrunk.comm);
    comm_->set_flight_sink(flight_sink(options_.output, launched_[static_cast<size_t>(comm_->rank())]));
    comm_->dump_on_signal();
    root_ = comm_->rank() == 0;
    report_.emplace(stdout, options_, comm_->size());
    const SweepPosition at = agree_resume_point(*comm_, failed.position());
    event.run_id = record_.run_id;
    event.new_size = comm_->size();
    event.epoch = comm_->epoch();
    event.collective = failed.collective_name(at.collective);
    event.bytes = at.bytes;
    event.rounds = shrunk.rounds;
    event.agreement_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - verdict).count();
    event.cause = e.facts().what;
    event.time_utc = utc_now();
    event.resumed_unix_s = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    if (root_) {
      print_event(report_->human(), event);
      sink_.add([row = to_row(event)](results::Transaction& t) { t.append(events_table(), {&row, 1}); });
    }
    auto next = std::make_unique<Sweep>(*comm_, mpi_, options_, *report_, sink_, record_.run_id, *cpu_since_, segments_);
    next->resume_after(failed, at);
    return next;
  }

  // While the others wait on rank 0 at the next barrier, a commit may not hold rank 0 for long:
  // a third of --timeout (5 s when it is 0), queued for later if another writer has the file.
  static std::chrono::milliseconds commit_wait(const BenchOptions& options) {
    const auto timeout = options.transport.timeout;
    return timeout.count() > 0 ? timeout / 3 : std::chrono::milliseconds(5000);
  }

  void connect() {
    comm_ = Communicator::connect(mpi_, options_.transport, [this](const std::string& waiting_for) {
      launch_.phase(waiting_for);
    });
    launch_.done();
    comm_->set_flight_sink(flight_sink(options_.output, comm_->rank()));
    comm_->dump_on_signal();
    hosts_ = comm_->distinct_hosts();
    record_.world_size = mpi_.size();
    for (const auto& h : hosts_) record_.hosts += (record_.hosts.empty() ? "" : ",") + h;
    record_.interface = fmt::format("{} ({})", comm_->interface().name, comm_->interface().address);
    record_.interface_reason = comm_->interface().reason;
  }

  // The plain-pair figure, the '#' header and the /runs row.
  void start_report() {
    // CPU readings start here, so that a lasting load shows from the first size on.
    cpu_since_.emplace(host_placement(*comm_)[static_cast<size_t>(comm_->rank())]);
    const RunConditions conditions = record_.conditions = measure_run_conditions(*comm_);
    const std::string write_slice = choose_write_slice();
    // The plain socket pair involves rank 0 (and one rank on another host), while the others
    // wait at the barrier.
    std::vector<LinkPoint> links;
    if (options_.link_test) {
      PlainPair plain = measure_plain_pair(*comm_);
      record_.plain_pair_GBps = plain.GBps;
      record_.plain_pair_path = plain.path;
      // The probes a model of this machine is fitted on (machine_probes.h); rank 0's core.
      if (root_) {
        const CoreRates rates = measure_core_rates(options_.dtype, options_.op);
        record_.reduce_GBps = rates.reduce_GBps, record_.copy_GBps = rates.copy_GBps;
      }
      links = measure_link_classes(*comm_);
      exchange_ladder_ = measure_exchange_ladder_if_useful();
    }
    segments_ = SegmentChoice(options_.segment_bytes,
                              agree_segment_link(*comm_, links, options_.link_test && options_.segment_bytes == 0),
                              agree_ring_rounds(*comm_));
    comm_->barrier();
    if (!root_) return;
    report_->header({fmt::format("{} ({})", kVersion, kGitRevision), mpi_.size(), hosts_,
                    record_.interface + ": " + record_.interface_reason,
                    record_.mpi_library, record_.plain_pair_GBps, record_.plain_pair_path, conditions, write_slice,
                    comm_->size() > 1 ? segments_.describe() : std::string()});
    sink_.add([row = to_row(record_), links = link_rows(record_.run_id, links),
               exchanges = exchange_rows(record_.run_id, exchange_ladder_)](results::Transaction& t) {
      t.append(runs_table(), {&row, 1});
      if (!links.empty()) t.append(links_table(), links);
      if (!exchanges.empty()) t.append(exchanges_table(), exchanges);
    });
  }

  // The exchange at the messages the rows' link tests do not reach, and beside it the reducing
  // exchange where the run reduces (exchange_ladder.h), for the model's copy and reduction rate
  // curves. Only where those curves are used, a sweep on one host. Collective.
  std::vector<ExchangePoint> measure_exchange_ladder_if_useful() {
    if (options_.workload != Workload::Sweep || hosts_.size() != 1) return {};
    const std::vector<uint64_t> sizes = run_sizes(options_);
    if (sizes.empty()) return {};
    const auto [smallest, largest] = std::minmax_element(sizes.begin(), sizes.end());
    std::vector<ExchangePoint> points = measure_exchange_ladder(*comm_, *largest);
    if (std::any_of(options_.collectives.begin(), options_.collectives.end(), combines_data))
      for (const ExchangePoint& p : measure_reduction_ladder(*comm_, *smallest, *largest)) points.push_back(p);
    return points;
  }

  // --slice auto: measured here, before the link test and every row, which all run with the
  // winner (slice_probe.h). Collective. Returns the header's account of the slice.
  std::string choose_write_slice() {
    const size_t slice = comm_->write_slice_bytes();
    if (options_.transport.write_slice_bytes != 0) return format_byte_size(slice) + " (--slice)";
    if (const auto bytes = slice_probe_bytes(options_)) return describe(probe_write_slice(*comm_, *bytes));
    return fmt::format("{}, the default {} (no probe: {})", format_byte_size(slice),
                       comm_->ranks_exceed_cores() ? "with more ranks than cores" : "with a core for every rank",
                       options_.injects.empty() ? "no call of ours as large as " + format_byte_size(kMinProbeBytes)
                                                : std::string("--inject counts the calls"));
  }

  // --workload ddp (ddp_workload.h): its table and /workloads rows instead of the sweep's.
  int run_ddp() {
    const DdpResult result =
        run_ddp_workload(*comm_, options_, ddp_algorithms(options_), comm_->peers()[0].secret_proposal);
    const KernelSummary kernel = check_kernel_counts(*comm_);
    if (!root_) return exit_code::kOk;
    print_ddp_table(stdout, options_, mpi_.size(), result.rows);
    sink_.add([rows = workload_rows(record_.run_id, options_, mpi_.size(), record_.hosts, result.rows),
               exchanges = exchange_rows(record_.run_id, result.exchanges)](results::Transaction& t) {
      t.append(workloads_table(), rows);
      if (!exchanges.empty()) t.append(exchanges_table(), exchanges);
    });
    print_kernel_line(kernel);
    int failed_rows = kernel.mismatches ? 1 : 0;
    for (const DdpRow& row : result.rows) failed_rows += row.ok() ? 0 : 1;
    return conclude(static_cast<int>(result.rows.size()), failed_rows);
  }

  void print_kernel_line(const KernelSummary& kernel) {
    fmt::print(report_->human(), "#\n# kernel check : {} of {} connection ends agree with TCP_INFO (bytes sent and received, handshake "
               "and headers included)\n",
               kernel.connections - kernel.mismatches, kernel.connections);
  }

  // Rank 0: the kernel line, the summary, and the /runs row's ending.
  int finish(const Sweep& sweep, const KernelSummary& kernel) {
    print_kernel_line(kernel);
    const int rows = sweep.rows();
    const int failed_rows = sweep.failed_rows() + (kernel.mismatches ? 1 : 0);
    report_->noise_warning(rows, sweep.noisy_rows());
    sweep.bus_bandwidth().print(report_->human());
    record_.median_ci_width = sweep.median_ci_width();
    return conclude(rows, failed_rows);
  }

  // Rank 0: the summary line, the /runs row's ending, the results line and the exit code.
  int conclude(int rows, int failed_rows) {
    const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - wall_start_;
    report_->summary(rows, failed_rows, wall.count());
    close_run(failed_rows ? fmt::format("failed: {} of {} rows", failed_rows, rows) : "ok");
    if (!sink_.failed()) fmt::print(report_->human(), "# results      : run {} appended to {}\n", record_.run_id, options_.output);
    else
      fmt::print(report_->human(), "# results      : NOT all written to {} (the error is on stderr): the rows above are this run's "
                 "record\n", options_.output);
    if (failed_rows) return exit_code::kCheckFailed;
    return sink_.failed() ? exit_code::kBadInput : exit_code::kOk;
  }

  // Rank 0 closes its /runs row however the run ends, after every queued row, so a run that
  // fails at a later size keeps the sizes it completed and says why it stopped.
  void close_run(const std::string& exit_status) {
    record_.end_utc = utc_now();
    record_.exit_status = exit_status;
    if (!root_) return;
    sink_.add([id = record_.run_id, row = to_row(record_)](results::Transaction& t) {
      t.update_where(runs_table(), "run_id", id, row);
    });
    sink_.flush(std::chrono::seconds(60));  // the others are done or gone: wait as long as the lock needs
  }

  std::optional<CpuMeter> cpu_since_;
  SegmentChoice segments_;  // how pipelined plans are cut: from the start-up link test, or --segment
  std::vector<ExchangePoint> exchange_ladder_;  // this rank's, from start_report (for auto)
  LaunchWatchdog& launch_;
  MpiBootstrap& mpi_;
  const BenchOptions& options_;
  bool shrinking_ = false;  // in shrink_and_resume()
  bool root_;  // rank 0, or after a shrink the first survivor: it reports and writes
  const std::chrono::steady_clock::time_point wall_start_ = std::chrono::steady_clock::now();
  RunRecord record_;
  ResultsSink sink_;
  std::optional<Report> report_;  // rebuilt for the new N after a shrink
  std::vector<int> launched_;     // launched_[rank]: that rank's rank as launched
  std::unique_ptr<Communicator> comm_;
  std::vector<std::string> hosts_;
};

// What the options ask that this launch cannot give (every rank gets the same answer), or empty:
// checked once the world is known and before any socket opens.
std::string problem_with_this_world(const MpiBootstrap& mpi, const BenchOptions& options) {
  if (!mpi.uses_mpi() && std::find(options.algorithms.begin(), options.algorithms.end(), "mpi") != options.algorithms.end())
    return "--algo mpi: the MPI library's collectives need an MPI launch, and this one uses the file bootstrap "
           "(RINGBENCH_BOOTSTRAP_DIR)";
  if (options.root >= mpi.size())
    return fmt::format("--root {}: there are only {} ranks (0 to {})", options.root, mpi.size(), mpi.size() - 1);
  return fault_rank_problem(options.injects, mpi.size());
}

// RINGBENCH_DEBUG, _SUBSYS and _FILE (transport/debug_log.h), applied before any socket opens. A
// bad value is the same on every rank, so rank 0 names it; a file that cannot be opened is this
// rank's own. False: the run stops with exit code 2.
bool diagnostics_started(const MpiBootstrap& mpi) {
  debug::Config config;
  try {
    config = debug::config_from_environment();
  } catch (const TransportError& e) {
    if (mpi.rank() == 0) std::fprintf(stderr, "ringbench: error: %s\n", e.what());
    return false;
  }
  try {
    debug::configure(config);
  } catch (const TransportError& e) {
    std::fprintf(stderr, "ringbench: error: rank %d: %s\n", mpi.rank(), e.what());
    return false;
  }
  debug::info(debug::Subsys::Init, mpi.rank(), "ringbench {} ({}), rank {} of {}, launched by {}; diagnostics {}",
              kVersion, kGitRevision, mpi.rank(), mpi.size(), mpi.uses_mpi() ? "MPI" : "the file bootstrap",
              debug::describe(config));
  return true;
}

// First thing in main, before any thread exists (MPI_Init starts some): SIGUSR1 is blocked, so
// every thread blocks it and the progress loop alone takes it (transport/flight_recorder.h); and
// the launch deadline starts, from --timeout as given (or its default) before MPI_Init can hang.
std::unique_ptr<LaunchWatchdog> start_launch(int argc, char** argv) {
  block_flight_signal();
  const auto timeout = LaunchWatchdog::timeout_in(argc, argv).value_or(TransportOptions{}.timeout);
  auto launch = std::make_unique<LaunchWatchdog>(LaunchWatchdog::deadline_for(timeout));
  launch->phase("MPI start-up (MPI_Init, or the file bootstrap's environment)");
  return launch;
}

}  // namespace

int main(int argc, char** argv) {
  const auto launch = start_launch(argc, argv);
  // Read before MPI_Init, which sets a singleton's launcher variables itself; said after the
  // command line, so --help stays clean.
  const std::string single_rank = single_rank_notice();
  if (std::string reason = launch_without_pmi(); !reason.empty()) {
    std::fprintf(stderr, "ringbench: error: %s\n", reason.c_str());
    return exit_code::kBadInput;
  }
  MpiBootstrap mpi(&argc, &argv);
  const bool root = mpi.rank() == 0;
  launch->set_rank(mpi.rank());
  launch->phase("the checks of the command line and the results file");
  if (std::string mismatch = mpi.launch_mismatch(); !mismatch.empty()) {
    std::fprintf(stderr, "ringbench: error: %s\n", mismatch.c_str());
    return exit_code::kBadInput;
  }
  ParsedCommandLine parsed = parse_command_line(argc, argv, root);
  if (!parsed.options) return parsed.exit_code;  // --help, --version or a bad flag: no notice
  launch->set_deadline(LaunchWatchdog::deadline_for(parsed.options->transport.timeout));
  if (!single_rank.empty()) std::fprintf(stderr, "%s\n", single_rank.c_str());
  if (!diagnostics_started(mpi)) return exit_code::kBadInput;
  if (std::string problem = problem_with_this_world(mpi, *parsed.options); !problem.empty()) {
    if (root) std::fprintf(stderr, "ringbench: error: %s\n", problem.c_str());
    return exit_code::kBadInput;
  }
  // Checked before any socket is opened. Under the file bootstrap only rank 0 knows, and the
  // others learn of it through the abort.
  if (std::string problem = output_problem(mpi, parsed.options->output); !problem.empty()) {
    if (root) std::fprintf(stderr, "ringbench: error: -o/--output: %s\n", problem.c_str());
    std::fflush(stderr);
    if (!mpi.uses_mpi()) mpi.abort(exit_code::kBadInput);
    return exit_code::kBadInput;
  }
  try {
    return BenchRun(mpi, *parsed.options, *launch).run();
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
