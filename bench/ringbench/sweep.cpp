#include "sweep.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <numeric>

#include <fmt/format.h>

#include "byte_size.h"
#include "choice_log.h"
#include "crossover.h"
#include "machine_probes.h"
#include "mpi_collectives.h"
#include "run_record.h"
#include "size_sweep.h"
#include "statistics/order_statistics.h"
#include "statistics/race.h"
#include "statistics/turn_order.h"
#include "transport/collectives/ring_allreduce.h"

namespace ringbench {

Sweep::Sweep(Communicator& comm, MpiBootstrap& mpi, const BenchOptions& options, Report& report, ResultsSink& sink,
             const std::string& run_id, const CpuMeter& cpu_since, const SegmentChoice& segments)
    : comm_(comm), mpi_(mpi), options_(options), report_(report), sink_(sink), run_id_(run_id),
      root_(comm.rank() == 0), esize_(element_size(options.dtype)),
      // Every rank derives the same seed from the job's first card, so inputs agree across ranks.
      seed_(comm.peers()[0].secret_proposal), measurement_(comm, options, seed_, cpu_since),
      trial_options_(auto_trial_options(options)), trial_(comm, trial_options_, seed_),
      hosts_of_ranks_(host_placement(comm)), segments_(segments), sizes_(run_sizes(options)),
      // Under mpirun a rank's stderr is always a pipe, but its stdout is a pty exactly when
      // mpirun's is a terminal: either one says a person is watching.
      progress_(root_ && !options.quiet && (::isatty(STDERR_FILENO) || ::isatty(STDOUT_FILENO))),
      mpi_wire_(mpi_transport_of_job(hosts_of_ranks_)), row_stream_(stdout, options, run_id, comm.size()) {
  measurement_.set_segments(segments_);
  trial_.set_segments(segments_);
}

void Sweep::run_all() {
  plan_progress();
  const bool mpi_wanted = std::any_of(options_.algorithms.begin(), options_.algorithms.end(),
                                      [](const std::string& a) { return a == "mpi" || a == "all"; });
  if (root_ && !resume_ && mpi_wanted && mpi_.uses_mpi() && options_.on_failure == OnFailure::Shrink)
    fmt::print(report_.human(), "#\n# note         : --on-failure shrink leaves the mpi rows out: a rank failing while "
               "the others are inside an MPI collective would hang them there\n");
  for (size_t i = 0; i < options_.collectives.size(); ++i) {
    if (resume_ && i < resume_->collective) continue;
    position_ = {i, 0};
    run_collective(options_.collectives[i]);
  }
}

std::string Sweep::collective_name(size_t index) const {
  return index < options_.collectives.size() ? std::string(to_string(options_.collectives[index])) : "the end";
}

void Sweep::resume_after(const Sweep& earlier, SweepPosition from) {
  resume_ = from;
  rows_ = earlier.rows_, failed_rows_ = earlier.failed_rows_, noisy_rows_ = earlier.noisy_rows_;
  ci_widths_ = earlier.ci_widths_;
  bandwidth_ = earlier.bandwidth_;
}

double Sweep::median_ci_width() const { return ci_widths_.empty() ? std::nan("") : stats::median(ci_widths_); }

// The `mpi` rows need MPI itself; under the file bootstrap (fault tests) they are left out. So
// they are with --on-failure shrink: a rank that fails while the others are inside an MPI
// collective hangs them there for good (MPI has no timeout, and ringbench's cannot reach inside
// it: 2 of 6 trials under mpirun hung so), and after a shrink MPI's communicator still holds the
// failed ranks.
bool Sweep::runnable(const Algorithm& algorithm) const {
  return algorithm.bytes_counted() || (mpi_.uses_mpi() && options_.on_failure == OnFailure::Abort);
}

// The collective's default: its first algorithm (ring where there is one).
bool Sweep::wanted(Collective collective, std::string_view name) const {
  const auto is_default = [&] {
    for (const Algorithm* a : all_algorithms())
      if (a->collective() == collective) return a->name() == name;
    return false;
  };
  for (const auto& w : options_.algorithms)
    if (w == "all" || w == name || (w == "default" && is_default())) return true;
  return false;
}

// auto's candidates: ringbench's own algorithms of the collective.
std::vector<const Algorithm*> Sweep::own_algorithms(Collective collective) const {
  std::vector<const Algorithm*> ours;
  for (const Algorithm* algorithm : harness_algorithms())
    if (algorithm->collective() == collective && algorithm->bytes_counted()) ours.push_back(algorithm);
  return ours;
}

// In the order they print: the wanted algorithms in harness order, then auto.
std::vector<Sweep::Series> Sweep::series_of(Collective collective) const {
  std::vector<Series> series;
  for (const Algorithm* algorithm : harness_algorithms())
    if (algorithm->collective() == collective && runnable(*algorithm) && wanted(collective, algorithm->name()))
      series.push_back({collective, algorithm});
  if (wanted(collective, "auto") && !own_algorithms(collective).empty()) series.push_back({collective, nullptr});
  return series;
}

// All-to-all skips sizes below one element per peer.
std::vector<uint64_t> Sweep::measured_sizes(Collective collective) const {
  std::vector<uint64_t> sizes;
  for (uint64_t bytes : sizes_)
    if (call_count(collective, bytes, esize_, comm_.size()) > 0) sizes.push_back(bytes);
  return sizes;
}

std::string Sweep::series_name(const Series& series) const {
  if (series.is_auto()) return "auto";
  if (series.is_mpi()) return fmt::format("mpi ({})", mpi_wire_.name);
  return std::string(series.algorithm->name());
}

void Sweep::plan_progress() {
  for (Collective collective : options_.collectives) {
    const size_t series_count = series_of(collective).size();
    for (size_t i = 0; i < series_count; ++i)
      for (uint64_t bytes : measured_sizes(collective)) progress_.plan(bytes);
  }
}

void Sweep::run_collective(Collective collective) {
  const std::vector<Series> series = series_of(collective);
  if (series.empty()) return;
  // Several algorithms take turns at each size, so their rows come size by size, each led by
  // its algorithm; one algorithm keeps osu's section of its own.
  const bool several = series.size() > 1;
  for (const Series& s : series)
    if (s.is_auto()) measure_auto_machine_once();  // its line before the table
  if (root_) report_.collective_header(collective, section_title(series), several);
  std::vector<std::vector<Placements>> rows(series.size());
  for (uint64_t bytes : measured_sizes(collective)) {
    if (resume_ && position_.collective == resume_->collective && bytes < resume_->bytes) continue;
    position_.bytes = bytes;
    std::vector<Placements> results = measure_size(series, collective, bytes);
    if (!root_) continue;
    for (size_t i = 0; i < series.size(); ++i) {
      print_row(results[i], several ? row_label(series[i], results[i].front()) : std::string());
      rows[i].push_back(std::move(results[i]));
    }
  }
  if (!root_) return;
  std::vector<SizeResult> all_rows;
  for (size_t i = 0; i < series.size(); ++i) {
    if (series[i].is_auto()) print_picks(rows[i]);
    for (const Placements& placements : rows[i]) all_rows.push_back(placements.front());
  }
  print_crossovers(report_.human(), collective, comm_.size(), all_rows);
}

std::string Sweep::section_title(const std::vector<Series>& series) const {
  if (series.size() == 1) return series_name(series.front());
  std::string names;
  for (const Series& s : series) names += (names.empty() ? "" : ", ") + series_name(s);
  return names;
}

// auto's rows name its pick: "auto(ring)".
std::string Sweep::row_label(const Series& series, const SizeResult& result) const {
  if (series.is_auto()) return fmt::format("auto({})", result.chosen);
  return series.is_mpi() ? "mpi" : series_name(series);
}

// Each series in the placements asked for: out of place first, as nccl-tests prints them.
std::vector<Contestant> Sweep::contestants_of(const Algorithm& algorithm) const {
  switch (options_.placement) {
    case Placement::InPlace: return {{&algorithm, false}};
    case Placement::OutOfPlace: return {{&algorithm, true}};
    case Placement::Both: return {{&algorithm, true}, {&algorithm, false}};
  }
  return {};
}

std::vector<Sweep::Placements> Sweep::measure_size(const std::vector<Series>& series, Collective collective,
                                                   uint64_t bytes) {
  std::vector<Contestant> contestants;
  for (const Series& s : series) {
    if (s.is_auto()) measure_auto_machine_once();
    if (s.is_mpi() && root_) warn_once_if_mpi_on_another_wire();
    for (const Contestant& c : contestants_of(s.is_auto() ? auto_pick(collective, bytes) : *s.algorithm))
      contestants.push_back(c);
  }
  for (size_t k = 0; k < contestants.size(); ++k)  // once per algorithm, not per placement
    if (k == 0 || contestants[k].algorithm != contestants[k - 1].algorithm)
      log_size_plan(comm_, *contestants[k].algorithm, bytes, esize_, options_.root);
  progress_.starting(series.size() == 1 ? fmt::format("{} {}", series_name(series.front()), to_string(collective))
                                        : fmt::format("{} algorithms of {}", series.size(), to_string(collective)),
                     bytes);
  std::vector<SizeResult> results = measurement_.measure_together(contestants, bytes);
  const size_t per_series = results.size() / series.size();
  std::vector<Placements> by_series(series.size());
  for (size_t k = 0; k < results.size(); ++k) {
    const Series& s = series[k / per_series];
    SizeResult& result = results[k];
    result.epoch = comm_.epoch();
    if (s.is_auto()) result.algorithm = "auto";  // `chosen` names the pick
    if (s.is_mpi()) {
      result.transport = fmt::format("mpi: {} ({})", mpi_wire_.name, mpi_wire_.because);
      result.same_wire = mpi_wire_.same_wire_as_ours;
    }
    if (root_) keep_row(result);
    by_series[k / per_series].push_back(std::move(result));
  }
  for (size_t i = 0; i < series.size(); ++i) progress_.finished(bytes);
  return by_series;
}

void Sweep::print_picks(const std::vector<Placements>& auto_rows) {
  std::string picks;
  for (const Placements& row : auto_rows)
    picks += fmt::format("{}{} {}", picks.empty() ? "" : ", ", format_byte_size(row.front().bytes), row.front().chosen);
  if (!picks.empty()) fmt::print(report_.human(), "# auto picked : {}\n", picks);
}

// Comparing the mpi rows' time with our TCP link test is only fair on the same wire: say so once
// when Open MPI's parameters put them on another one (shared memory, RDMA).
void Sweep::warn_once_if_mpi_on_another_wire() {
  if (mpi_wire_.same_wire_as_ours || warned_mpi_wire_) return;
  warned_mpi_wire_ = true;
  fmt::print(report_.human(), "#\n# warning      : the mpi rows ran over {} ({}), not over TCP like ringbench's rows, so their eff "
             "is n/a; mpirun --mca pml ob1 --mca btl tcp,self puts them on the same wire\n",
             mpi_wire_.name, mpi_wire_.because);
}

// auto's measured machine, the first time a collective runs auto (collective: every rank).
void Sweep::measure_auto_machine_once() {
  if (auto_machine_) return;
  auto_machine_ = measure_auto_machine(comm_, hosts_of_ranks_, options_.dtype, options_.op, exchange_ladder_);
  if (root_) print_auto_machine();
}

// "# auto model : same host 12.3 us + 1.234 GB/s, ..." and how the picks are made.
void Sweep::print_auto_machine() const {
  const AutoMachine& m = *auto_machine_;
  std::string links;
  for (const auto& f : m.fits)
    links += fmt::format("{}{} {:.1f} us + {:.3f} GB/s", links.empty() ? "" : ", ", f.link_class, f.fit.link.latency_us,
                         f.fit.link.bandwidth_GBps);
  const auto& sizes = link_probe_bytes();
  std::string exchanges;
  if (m.machine && !m.machine->host_cpu.exchange_copy_rates.empty()) {
    exchanges = "; a core copies, while every rank exchanges,";
    for (const auto& p : m.machine->host_cpu.exchange_copy_rates)
      exchanges += fmt::format(" {:.2f} GB/s at {}", p.GBps, format_byte_size(p.bytes));
  }
  if (m.machine)
    fmt::print(report_.human(), "#\n# auto model   : {} (two-segment fit of this run's link test, {}-{}){}, one core reduces "
               "{:.2f} GB/s and copies {:.2f} GB/s; the model prices each candidate's plan; those priced within "
               "{:.0f}% of the cheapest, or whose first {} turns fit {:.0f}% of --max-time, race it in turns of {} "
               "calls for {}-{} turns or --max-time, and the lowest median is picked\n",
               links, format_byte_size(sizes.front()), format_byte_size(sizes.back()), exchanges, m.reduce_GBps, m.copy_GBps,
               (RacePolicy::kCloseRatio - 1) * 100, RacePolicy::kMinTurns, RacePolicy::kCheapShareOfMaxTime * 100,
               RacePolicy::kCallsPerTurn, RacePolicy::kMinTurns, RacePolicy::kMaxTurns);
  else
    fmt::print(report_.human(), "#\n# auto model   : none ({}); every candidate races in turns of {} calls for {}-{} "
               "turns or --max-time, and the lowest median is picked\n",
               m.why, RacePolicy::kCallsPerTurn, RacePolicy::kMinTurns, RacePolicy::kMaxTurns);
}

// Trial options: one turn's calls, barrier-timed, unverified (the picked algorithm's own row is
// verified), no link test, no per-call samples.
BenchOptions Sweep::auto_trial_options(const BenchOptions& options) {
  BenchOptions trial = options;
  trial.iterations = RacePolicy::kCallsPerTurn;
  trial.warmup = 1;
  trial.verify = trial.link_test = trial.samples = false;
  trial.timing = TimingMode::Barrier;
  if (trial.placement == Placement::Both) trial.placement = Placement::InPlace;
  return trial;
}

// Rank 0 prices the candidates with the model and names the contenders; every rank follows. Two
// contenders race on rank 0's clock (RacePolicy), and every rank follows rank 0's standings.
const Algorithm& Sweep::auto_pick(Collective collective, uint64_t bytes) {
  const std::vector<const Algorithm*> candidates = own_algorithms(collective);
  std::vector<double> predicted_us;
  std::vector<size_t> proposed;
  if (root_) {
    if (auto_machine_->machine)
      predicted_us = price_candidates(candidates, *auto_machine_->machine, hosts_of_ranks_, bytes / esize_, esize_,
                                      options_.root, comm_.pipeline_piece(esize_), segments_);
    proposed = contenders(candidates, predicted_us, bytes, options_.max_seconds_per_size);
  }
  const std::string_view without_prices = root_ ? std::string_view(auto_machine_->why) : "rank 0 prices";
  const std::vector<size_t> raced = agree_on_standings(proposed, candidates.size());
  std::vector<std::vector<double>> calls_us(candidates.size());  // rank 0: every race call, by candidate
  const size_t picked = raced.size() < 2 ? (raced.empty() ? 0 : raced.front()) : race(candidates, raced, bytes, calls_us);
  log_auto_pick(comm_, bytes, esize_, candidates, predicted_us, without_prices, raced, calls_us, picked);
  return *candidates[picked];
}

// The contenders take turns (RacePolicy) until one is left; returns the winner's index.
size_t Sweep::race(const std::vector<const Algorithm*>& candidates, std::vector<size_t> racing, uint64_t bytes,
                   std::vector<std::vector<double>>& calls_us) {
  const auto started = std::chrono::steady_clock::now();
  for (int turn = 1; racing.size() > 1; ++turn) {
    // In a fresh order each turn, as the rows take theirs (Measurement::measure_together).
    for (size_t k : stats::turn_order(racing.size(), seed_ + 1000003 * bytes + static_cast<uint64_t>(turn))) {
      const size_t i = racing[k];
      const SizeResult trial = trial_.measure(*candidates[i], bytes);
      calls_us[i].insert(calls_us[i].end(), trial.call_us.begin(), trial.call_us.end());
    }
    if (turn < RacePolicy::kMinTurns) continue;
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - started;
    const bool last_turn = turn == RacePolicy::kMaxTurns ||
                           (options_.max_seconds_per_size > 0 && elapsed.count() >= options_.max_seconds_per_size);
    std::vector<size_t> standings;
    if (root_) {
      standings = stats::race_survivors(calls_us, racing, RacePolicy::kCallsPerTurn);
      if (last_turn) standings.resize(1);  // the leader
    }
    racing = agree_on_standings(standings, candidates.size());
  }
  return racing.front();
}

std::vector<size_t> Sweep::agree_on_standings(const std::vector<size_t>& standings, size_t candidates) {
  // Position k holds the k-th candidate's index + 1 on rank 0 and 0 elsewhere; max is rank 0's.
  std::vector<double> positions(candidates, 0.0);
  if (root_)
    for (size_t k = 0; k < standings.size(); ++k) positions[k] = static_cast<double>(standings[k] + 1);
  CollectiveCall call{DataType::Float64, ReduceOp::Max, std::as_writable_bytes(std::span(positions)), candidates, 0};
  if (comm_.size() > 1) ring_allreduce().run(comm_, call);
  std::vector<size_t> agreed;
  for (double p : positions)
    if (p > 0) agreed.push_back(static_cast<size_t>(p) - 1);
  return agreed;
}

void Sweep::keep_row(const SizeResult& result) {
  ++rows_;
  row_stream_.write(result);
  bandwidth_.add(result, comm_.size());
  if (result.contended ||
      (result.stop_reason == stats::stop_reason_name(stats::StopReason::time) && report_.interval_is_wide(result)))
    ++noisy_rows_;
  if (const auto width = result.time.relative_half_width()) ci_widths_.push_back(*width);
  if (!result.bytes_ok() || (options_.verify && !result.verified())) ++failed_rows_;
  sink_.add([row = to_row(run_id_, result, options_, comm_.size())](results::Transaction& t) {
    t.append(results_table(), {&row, 1});
  });
  if (options_.samples)
    sink_.add([rows = sample_rows(run_id_, rows_ - 1, result)](results::Transaction& t) {
      t.append(samples_table(), rows);
    });
}

void Sweep::print_row(const Placements& placements, const std::string& label) {
  progress_.clear();
  report_.row(placements, label);
  for (const SizeResult& result : placements)
    if (!result.bytes_ok() || (options_.verify && !result.verified())) report_.failure_details(result);
}

}  // namespace ringbench
