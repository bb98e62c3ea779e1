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
#include "crossover.h"
#include "exit_codes.h"
#include "launch_check.h"
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
#include "statistics/call_statistics.h"
#include "statistics/order_statistics.h"
#include "transport/collectives/ring_allreduce.h"
#include "transport/communicator.h"
#include "transport/error.h"

using namespace ringbench;

namespace {

// One series of rows of a collective: one algorithm at every size, or `auto`, which picks one of
// ringbench's own algorithms per size.
struct Series {
  Collective collective;
  const Algorithm* algorithm = nullptr;  // nullptr: auto
  bool is_auto() const { return algorithm == nullptr; }
};

// The sweep of one run: every wanted series of every collective at every size. Every rank runs
// it; only rank 0 reports rows, writes them and counts them.
class Sweep {
 public:
  Sweep(Communicator& comm, MpiBootstrap& mpi, const BenchOptions& options, Report& report, ResultsSink& sink,
        const std::string& run_id, const CpuMeter& cpu_since)
      : comm_(comm), mpi_(mpi), options_(options), report_(report), sink_(sink), run_id_(run_id),
        root_(comm.rank() == 0), esize_(element_size(options.dtype)),
        // Every rank derives the same seed from the job's first card, so inputs agree across ranks.
        measurement_(comm, options, comm.peers()[0].secret_proposal, cpu_since), trial_options_(auto_trial_options(options)),
        trial_(comm, trial_options_, comm.peers()[0].secret_proposal), hosts_of_ranks_(host_placement(comm)),
        sizes_(sweep_sizes(options.min_bytes, options.max_bytes, esize_)),
        // Under mpirun a rank's stderr is always a pipe, but its stdout is a pty exactly when
        // mpirun's is a terminal: either one says a person is watching.
        progress_(root_ && !options.quiet && (::isatty(STDERR_FILENO) || ::isatty(STDOUT_FILENO))) {}

  void run_all() {
    plan_progress();
    for (Collective collective : options_.collectives) {
      std::vector<SizeResult> collective_results;
      for (const Series& series : series_of(collective)) run_series(series, collective_results);
      if (root_) print_crossovers(stdout, collective, comm_.size(), collective_results);
    }
  }

  int rows() const { return rows_; }
  int failed_rows() const { return failed_rows_; }
  int noisy_rows() const { return noisy_rows_; }
  // The median over the rows that had an interval of its half-width / median (NaN: none had).
  double median_ci_width() const { return ci_widths_.empty() ? std::nan("") : stats::median(ci_widths_); }

 private:
  // The `mpi` rows need MPI itself; under the file bootstrap (fault tests) they are left out.
  bool runnable(const Algorithm& algorithm) const { return algorithm.bytes_counted() || mpi_.uses_mpi(); }

  bool wanted(Collective collective, std::string_view name) const {
    for (const auto& w : options_.algorithms) {
      if (w == "all" || w == name) return true;
      if (w == "default") {
        for (const Algorithm* a : all_algorithms())
          if (a->collective() == collective) return a->name() == name;
      }
    }
    return false;
  }

  // auto's candidates: ringbench's own algorithms of the collective.
  std::vector<const Algorithm*> own_algorithms(Collective collective) const {
    std::vector<const Algorithm*> ours;
    for (const Algorithm* algorithm : harness_algorithms())
      if (algorithm->collective() == collective && algorithm->bytes_counted()) ours.push_back(algorithm);
    return ours;
  }

  // In the order they run and print: the wanted algorithms in harness order, then auto.
  std::vector<Series> series_of(Collective collective) const {
    std::vector<Series> series;
    for (const Algorithm* algorithm : harness_algorithms())
      if (algorithm->collective() == collective && runnable(*algorithm) && wanted(collective, algorithm->name()))
        series.push_back({collective, algorithm});
    if (wanted(collective, "auto") && !own_algorithms(collective).empty()) series.push_back({collective, nullptr});
    return series;
  }

  void plan_progress() {
    for (Collective collective : options_.collectives) {
      const size_t series_count = series_of(collective).size();
      for (size_t i = 0; i < series_count; ++i)
        for (uint64_t bytes : measured_sizes(collective)) progress_.plan(bytes);
    }
  }

  // All-to-all skips sizes below one element per peer.
  std::vector<uint64_t> measured_sizes(Collective collective) const {
    std::vector<uint64_t> sizes;
    for (uint64_t bytes : sizes_)
      if (call_count(collective, bytes, esize_, comm_.size()) > 0) sizes.push_back(bytes);
    return sizes;
  }

  void run_series(const Series& series, std::vector<SizeResult>& collective_results) {
    if (series.is_auto()) fit_link_model_once();
    const bool is_mpi = !series.is_auto() && !series.algorithm->bytes_counted();
    if (is_mpi && root_) warn_once_if_mpi_on_another_wire();
    const std::string name = series.is_auto() ? "auto"
                             : is_mpi         ? fmt::format("mpi ({})", mpi_wire_.name)
                                              : std::string(series.algorithm->name());
    if (root_) report_.collective_header(series.collective, name);
    std::string picks;
    for (uint64_t bytes : measured_sizes(series.collective)) {
      const Algorithm& algorithm = series.is_auto() ? auto_pick(series.collective, bytes) : *series.algorithm;
      const std::string label =
          series.is_auto() ? fmt::format("auto ({})", algorithm.name()) : std::string(algorithm.name());
      progress_.starting(fmt::format("{} {}", label, to_string(series.collective)), bytes);
      SizeResult result = measurement_.measure(algorithm, bytes);
      progress_.finished(bytes);
      if (series.is_auto()) {
        result.algorithm = "auto";
        result.chosen = std::string(algorithm.name());
      }
      if (is_mpi) {
        result.transport = fmt::format("mpi: {} ({})", mpi_wire_.name, mpi_wire_.because);
        result.same_wire = mpi_wire_.same_wire_as_ours;
      }
      if (!root_) continue;
      record_row(result);
      if (series.is_auto())
        picks += fmt::format("{}{} {}", picks.empty() ? "" : ", ", format_byte_size(bytes), result.chosen);
      collective_results.push_back(std::move(result));
    }
    if (root_ && series.is_auto()) fmt::print("# auto picked : {}\n", picks);
  }

  // Comparing the mpi rows' time with our TCP link test is only fair on the same wire: say so once
  // when Open MPI's parameters put them on another one (shared memory, RDMA).
  void warn_once_if_mpi_on_another_wire() {
    if (mpi_wire_.same_wire_as_ours || warned_mpi_wire_) return;
    warned_mpi_wire_ = true;
    fmt::print("#\n# warning      : the mpi rows ran over {} ({}), not over TCP like ringbench's rows, so their eff "
               "is n/a; mpirun --mca pml ob1 --mca btl tcp,self puts them on the same wire\n",
               mpi_wire_.name, mpi_wire_.because);
  }

  // auto's link costs, measured the first time a collective runs auto (collective: every rank).
  void fit_link_model_once() {
    if (link_model_) return;
    link_model_ = fit_link_model(comm_);
    const auto& chunks = link_fit_chunk_bytes();
    if (root_)
      fmt::print("#\n# auto model   : alpha {:.1f} us per step, beta {:.3f} GB/s per link, fitted (Theil-Sen) on "
                 "medians of this run's link test at {} chunk sizes, {}-{}; the algorithms it prices within {}x "
                 "of the cheapest run {} turns of {} calls each, taking turns, and the lowest median is picked\n",
                 link_model_->alpha_s * 1e6, link_model_->beta_s > 0 ? 1e-9 / link_model_->beta_s : 0.0,
                 chunks.size(), format_byte_size(static_cast<uint64_t>(chunks.front())),
                 format_byte_size(static_cast<uint64_t>(chunks.back())), kShortlistFactor, kTrialTurns,
                 kTrialCallsPerTurn);
  }

  // auto's trials take turns: each shortlisted algorithm runs kTrialCallsPerTurn calls per turn for
  // kTrialTurns turns, so a slow phase of a noisy machine hits every candidate alike, as
  // compare.sh's interleaved repetitions do; the lowest median over its calls wins.
  static constexpr int kTrialTurns = 3;
  static constexpr int kTrialCallsPerTurn = 4;

  // Trial options: one turn's calls, barrier-timed, unverified (the picked algorithm's own row is
  // verified), no link test, no per-call samples.
  static BenchOptions auto_trial_options(const BenchOptions& options) {
    BenchOptions trial = options;
    trial.iterations = kTrialCallsPerTurn;
    trial.warmup = 1;
    trial.verify = trial.link_test = trial.samples = false;
    trial.timing = TimingMode::Barrier;
    return trial;
  }

  // The model's shortlist, then a trial of each on rank 0's clock; every rank follows rank 0.
  const Algorithm& auto_pick(Collective collective, uint64_t bytes) {
    const std::vector<const Algorithm*> list =
        shortlist(own_algorithms(collective), *link_model_, hosts_of_ranks_, bytes / esize_, esize_);
    if (list.size() == 1) return *list.front();
    std::vector<std::vector<double>> calls_us(list.size());  // rank 0: every trial call, by candidate
    for (int turn = 0; turn < kTrialTurns; ++turn)
      for (size_t i = 0; i < list.size(); ++i) {
        const SizeResult trial = trial_.measure(*list[i], bytes);
        calls_us[i].insert(calls_us[i].end(), trial.call_us.begin(), trial.call_us.end());
      }
    double pick = 0;  // rank 0's choice, an index into list
    if (root_)
      for (size_t i = 1; i < list.size(); ++i)
        if (stats::median(calls_us[i]) < stats::median(calls_us[static_cast<size_t>(pick)])) pick = static_cast<double>(i);
    CollectiveCall call{DataType::Float64, ReduceOp::Max, std::as_writable_bytes(std::span(&pick, 1)), 1, 0};
    if (comm_.size() > 1) ring_allreduce().run(comm_, call);
    return *list[static_cast<size_t>(pick)];
  }

  void record_row(const SizeResult& result) {
    progress_.clear();
    ++rows_;
    if (result.contended ||
        (result.stop_reason == stats::stop_reason_name(stats::StopReason::time) && report_.interval_is_wide(result)))
      ++noisy_rows_;
    if (const auto width = result.time.relative_half_width()) ci_widths_.push_back(*width);
    report_.row(result);
    if (!result.bytes_ok() || (options_.verify && !result.verified())) {
      ++failed_rows_;
      report_.failure_details(result);
    }
    sink_.add([row = to_row(run_id_, result, options_, comm_.size())](results::Transaction& t) {
      t.append(results_table(), {&row, 1});
    });
    if (options_.samples)
      sink_.add([rows = sample_rows(run_id_, rows_ - 1, result)](results::Transaction& t) {
        t.append(samples_table(), rows);
      });
  }

  Communicator& comm_;
  MpiBootstrap& mpi_;
  const BenchOptions& options_;
  Report& report_;
  ResultsSink& sink_;
  const std::string run_id_;
  const bool root_;
  const size_t esize_;
  Measurement measurement_;
  const BenchOptions trial_options_;  // auto's trials
  Measurement trial_;
  const std::vector<int> hosts_of_ranks_;
  const std::vector<uint64_t> sizes_;
  ProgressLine progress_;
  std::optional<LinkModel> link_model_;
  const MpiTransport mpi_wire_ = mpi_transport_of_job(hosts_of_ranks_);
  bool warned_mpi_wire_ = false;
  int rows_ = 0, failed_rows_ = 0, noisy_rows_ = 0;
  std::vector<double> ci_widths_;
};

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
  BenchRun(MpiBootstrap& mpi, const BenchOptions& options)
      : mpi_(mpi), options_(options), root_(mpi.rank() == 0), record_(describe_run(options, mpi.library_version())),
        sink_(options.output, commit_wait(options)), report_(stdout, options, mpi.size()) {}

  int run() {
    connect();
    start_report();
    try {
      Sweep sweep(*comm_, mpi_, options_, report_, sink_, record_.run_id, *cpu_since_);
      sweep.run_all();
      const KernelSummary kernel = check_kernel_counts(*comm_);
      if (!root_) return exit_code::kOk;
      return finish(sweep, kernel);
    } catch (const TransportError& e) {
      close_run(std::string("failed: ") + e.what());
      throw;
    }
  }

 private:
  // While the others wait on rank 0 at the next barrier, a commit may not hold rank 0 for long:
  // a third of --timeout (5 s when it is 0), queued for later if another writer has the file.
  static std::chrono::milliseconds commit_wait(const BenchOptions& options) {
    const auto timeout = options.transport.timeout;
    return timeout.count() > 0 ? timeout / 3 : std::chrono::milliseconds(5000);
  }

  void connect() {
    comm_ = Communicator::connect(mpi_, options_.transport);
    hosts_ = comm_->distinct_hosts();
    record_.world_size = mpi_.size();
    for (const auto& h : hosts_) record_.hosts += (record_.hosts.empty() ? "" : ",") + h;
    record_.interface = fmt::format("{} ({})", comm_->interface().name, comm_->interface().address);
  }

  // The plain-pair figure, the '#' header and the /runs row.
  void start_report() {
    // CPU readings start here, so that a lasting load shows from the first size on.
    cpu_since_.emplace(host_placement(*comm_)[static_cast<size_t>(comm_->rank())]);
    const RunConditions conditions = record_.conditions = measure_run_conditions(*comm_);
    // The plain socket pair involves rank 0 (and one rank on another host), while the others
    // wait at the barrier.
    if (options_.link_test) {
      PlainPair plain = measure_plain_pair(*comm_);
      record_.plain_pair_GBps = plain.GBps;
      record_.plain_pair_path = plain.path;
    }
    comm_->barrier();
    if (!root_) return;
    report_.header({fmt::format("{} ({})", kVersion, kGitRevision), mpi_.size(), hosts_, record_.interface,
                    record_.mpi_library, record_.plain_pair_GBps, record_.plain_pair_path, conditions});
    sink_.add([row = to_row(record_)](results::Transaction& t) { t.append(runs_table(), {&row, 1}); });
  }

  // Rank 0: the kernel line, the summary, and the /runs row's ending.
  int finish(const Sweep& sweep, const KernelSummary& kernel) {
    fmt::print("#\n# kernel check : {} of {} connection ends agree with TCP_INFO (bytes sent and received, handshake "
               "and headers included)\n",
               kernel.connections - kernel.mismatches, kernel.connections);
    const int rows = sweep.rows();
    const int failed_rows = sweep.failed_rows() + (kernel.mismatches ? 1 : 0);
    const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - wall_start_;
    report_.noise_warning(rows, sweep.noisy_rows());
    report_.summary(rows, failed_rows, wall.count());
    record_.median_ci_width = sweep.median_ci_width();
    close_run(failed_rows ? fmt::format("failed: {} of {} rows", failed_rows, rows) : "ok");
    if (!sink_.failed()) fmt::print("# results      : run {} appended to {}\n", record_.run_id, options_.output);
    return failed_rows == 0 && !sink_.failed() ? exit_code::kOk : exit_code::kCheckFailed;
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
  MpiBootstrap& mpi_;
  const BenchOptions& options_;
  const bool root_;
  const std::chrono::steady_clock::time_point wall_start_ = std::chrono::steady_clock::now();
  RunRecord record_;
  ResultsSink sink_;
  Report report_;
  std::unique_ptr<Communicator> comm_;
  std::vector<std::string> hosts_;
};

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
    return BenchRun(mpi, *parsed.options).run();
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
