#pragma once
// The sweep of one run: every wanted algorithm of every collective at every size, plus `auto`,
// which picks one of ringbench's own algorithms per size. Every rank runs it; only rank 0 reports
// rows, writes them and counts them.
//
// Size by size: at each size the collective's algorithms (and auto's pick) take turns block by
// block (Measurement::measure_together), so their medians compare like for like on a noisy
// machine. Each row is written to the results file and printed as soon as it is measured: a
// collective with one algorithm in osu's section of its own, one with several size by size, each
// row led by its algorithm.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "algorithm_choice.h"
#include "bench_options.h"
#include "cpu_contention.h"
#include "measurement.h"
#include "mpi_bootstrap.h"
#include "mpi_transport.h"
#include "progress_line.h"
#include "segment_choice.h"
#include "report.h"
#include "results_sink.h"
#include "row_stream.h"
#include "shrink_events.h"
#include "transport/communicator.h"

namespace ringbench {

class Sweep {
 public:
  Sweep(Communicator& comm, MpiBootstrap& mpi, const BenchOptions& options, Report& report, ResultsSink& sink,
        const std::string& run_id, const CpuMeter& cpu_since, const SegmentChoice& segments);

  void run_all();
  // The start-up exchange ladder (exchange_ladder.h; this rank's), for auto's copy-rate curve.
  // Not for a sweep of the survivors after a failure: it was measured at the old world size.
  void set_exchange_ladder(std::vector<ExchangePoint> ladder) { exchange_ladder_ = std::move(ladder); }

  // --on-failure shrink: where the sweep is (the collective and size being measured), and, in a
  // sweep built for the survivors, going on from `from` with `earlier`'s counts and rows carried
  // over. `mpi` rows are left out from then on: MPI's communicator still holds the failed ranks.
  SweepPosition position() const { return position_; }
  std::string collective_name(size_t index) const;
  void resume_after(const Sweep& earlier, SweepPosition from);

  int rows() const { return rows_; }
  const BusBandwidthAverage& bus_bandwidth() const { return bandwidth_; }
  int failed_rows() const { return failed_rows_; }
  int noisy_rows() const { return noisy_rows_; }
  // The median over the rows that had an interval of its half-width / median (NaN: none had).
  double median_ci_width() const;

 private:
  // One series of rows of a collective: one algorithm at every size, or `auto`.
  struct Series {
    Collective collective;
    const Algorithm* algorithm = nullptr;  // nullptr: auto
    bool is_auto() const { return algorithm == nullptr; }
    bool is_mpi() const { return algorithm != nullptr && !algorithm->bytes_counted(); }
  };

  bool runnable(const Algorithm& algorithm) const;
  bool wanted(Collective collective, std::string_view name) const;
  std::vector<const Algorithm*> own_algorithms(Collective collective) const;
  std::vector<Series> series_of(Collective collective) const;
  std::vector<uint64_t> measured_sizes(Collective collective) const;
  std::string series_name(const Series& series) const;
  void plan_progress();

  // One series' rows at one size: one per placement (--place both: out of place, then in place).
  using Placements = std::vector<SizeResult>;

  void run_collective(Collective collective);
  std::vector<Contestant> contestants_of(const Algorithm& algorithm) const;
  // Every series at one size, taking turns; rank 0 keeps each row (results file, counters).
  std::vector<Placements> measure_size(const std::vector<Series>& series, Collective collective, uint64_t bytes);
  std::string section_title(const std::vector<Series>& series) const;
  std::string row_label(const Series& series, const SizeResult& result) const;
  void print_picks(const std::vector<Placements>& auto_rows);

  void warn_once_if_mpi_on_another_wire();
  void measure_auto_machine_once();
  void print_auto_machine() const;
  static BenchOptions auto_trial_options(const BenchOptions& options);
  const Algorithm& auto_pick(Collective collective, uint64_t bytes);
  size_t race(const std::vector<const Algorithm*>& candidates, std::vector<size_t> racing, uint64_t bytes,
              std::vector<std::vector<double>>& calls_us);
  // Rank 0's standings after a turn, the leader first, agreed by every rank (`standings` is
  // ignored elsewhere): no rank may leave or stay in the race alone.
  std::vector<size_t> agree_on_standings(const std::vector<size_t>& standings, size_t candidates);

  // Counters, the results file and --format's rows, as soon as measured.
  void keep_row(const SizeResult& result);
  // The table, with a failure explained beneath it; `label` leads a row of several algorithms.
  void print_row(const Placements& placements, const std::string& label);

  Communicator& comm_;
  MpiBootstrap& mpi_;
  const BenchOptions& options_;
  Report& report_;
  ResultsSink& sink_;
  const std::string run_id_;
  const bool root_;
  const size_t esize_;
  const uint64_t seed_;  // the job's, from rank 0's card: inputs and turn orders agree across ranks
  Measurement measurement_;
  const BenchOptions trial_options_;  // auto's trials
  Measurement trial_;
  const std::vector<int> hosts_of_ranks_;
  const SegmentChoice segments_;  // the pipelined plans' segments, for rows and auto's prices alike
  const std::vector<uint64_t> sizes_;
  ProgressLine progress_;
  std::vector<ExchangePoint> exchange_ladder_;
  std::optional<AutoMachine> auto_machine_;  // rank 0's fits; set on every rank once measured
  const MpiTransport mpi_wire_;
  bool warned_mpi_wire_ = false;
  int rows_ = 0, failed_rows_ = 0, noisy_rows_ = 0;
  std::vector<double> ci_widths_;
  RowStream row_stream_;
  BusBandwidthAverage bandwidth_;
  SweepPosition position_;
  std::optional<SweepPosition> resume_;  // set by resume_after()
};

}  // namespace ringbench
