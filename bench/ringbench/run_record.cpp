#include "run_record.h"

#include <sys/utsname.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <fstream>

#include <fmt/format.h>

#include "report.h"
#include "results/results_file.h"
#include "ringbench_version.h"

extern char** environ;

namespace ringbench {

using results::Column;
using results::ColumnType;

namespace {

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ",") + item;
  return out;
}

template <typename Enum>
std::string joined_names(const std::vector<Enum>& items) {
  std::vector<std::string> names;
  for (Enum item : items) names.emplace_back(to_string(item));
  return joined(names);
}

std::string joined_numbers(const std::vector<uint64_t>& numbers) {
  std::vector<std::string> texts;
  for (uint64_t n : numbers) texts.push_back(std::to_string(n));
  return joined(texts);
}

// One /runs column per option, named after its flag ("opt_" + the long name), with what it held.
struct OptionColumn {
  results::Column column;
  results::Value (*value)(const BenchOptions&);
};

const std::vector<OptionColumn>& option_columns() {
  using O = const BenchOptions&;
  static const std::vector<OptionColumn> columns = {
      {{"opt_collective", ColumnType::String, "", "--collective"}, [](O o) -> results::Value { return joined_names(o.collectives); }},
      {{"opt_algo", ColumnType::String, "", "--algo"}, [](O o) -> results::Value { return joined(o.algorithms); }},
      {{"opt_dtype", ColumnType::String, "", "-d/--dtype"}, [](O o) -> results::Value { return std::string(to_string(o.dtype)); }},
      {{"opt_op", ColumnType::String, "", "--op"}, [](O o) -> results::Value { return std::string(to_string(o.op)); }},
      {{"opt_min_bytes", ColumnType::UInt64, "B", "-m, lower end"}, [](O o) -> results::Value { return o.min_bytes; }},
      {{"opt_max_bytes", ColumnType::UInt64, "B", "-m, upper end"}, [](O o) -> results::Value { return o.max_bytes; }},
      {{"opt_iterations", ColumnType::Int64, "", "-i/--iterations; -1 when calls ran until the interval or --max-time"},
       [](O o) -> results::Value { return int64_t{o.iterations.value_or(-1)}; }},
      {{"opt_warmup", ColumnType::Int64, "", "-x/--warmup"}, [](O o) -> results::Value { return int64_t{o.warmup}; }},
      {{"opt_timing", ColumnType::String, "", "--timing"}, [](O o) -> results::Value { return std::string(to_string(o.timing)); }},
      {{"opt_max_time_s", ColumnType::Float64, "s", "--max-time"}, [](O o) -> results::Value { return o.max_seconds_per_size; }},
      {{"opt_verify", ColumnType::Int64, "bool", "1 unless --no-verify"}, [](O o) -> results::Value { return int64_t{o.verify}; }},
      {{"opt_data", ColumnType::String, "", "--data"}, [](O o) -> results::Value { return std::string(to_string(o.inputs)); }},
      {{"opt_link_test", ColumnType::Int64, "bool", "1 unless --no-link-test"}, [](O o) -> results::Value { return int64_t{o.link_test}; }},
      {{"opt_place", ColumnType::String, "", "--place: in, out or both"}, [](O o) -> results::Value { return std::string(to_string(o.placement)); }},
      {{"opt_full", ColumnType::Int64, "bool", "-f/--full"}, [](O o) -> results::Value { return int64_t{o.full_listing}; }},
      {{"opt_samples", ColumnType::Int64, "bool", "--samples"}, [](O o) -> results::Value { return int64_t{o.samples}; }},
      {{"opt_quiet", ColumnType::Int64, "bool", "-q/--quiet"}, [](O o) -> results::Value { return int64_t{o.quiet}; }},
      {{"opt_output", ColumnType::String, "", "-o/--output"}, [](O o) -> results::Value { return o.output; }},
      {{"opt_iface", ColumnType::String, "", "--iface (or RINGBENCH_SOCKET_IFNAME); empty: chosen automatically"},
       [](O o) -> results::Value { return o.transport.iface_spec; }},
      {{"opt_timeout_s", ColumnType::Float64, "s", "--timeout; 0 waits forever"},
       [](O o) -> results::Value { return std::chrono::duration<double>(o.transport.timeout).count(); }},
      {{"opt_inject", ColumnType::String, "", "--inject, comma-separated"}, [](O o) -> results::Value { return joined(o.injects); }},
      {{"opt_sockbuf_bytes", ColumnType::UInt64, "B", "--sockbuf; 0: the kernel's default"},
       [](O o) -> results::Value { return uint64_t{o.transport.socket_buffer_bytes}; }},
      {{"opt_pipeline_bytes", ColumnType::UInt64, "B", "--pipeline"},
       [](O o) -> results::Value { return uint64_t{o.transport.pipeline_bytes}; }},
      {{"opt_root", ColumnType::Int64, "", "--root"}, [](O o) -> results::Value { return int64_t{o.root}; }},
      {{"opt_factor", ColumnType::Float64, "", "--factor; 0: unset, every power of two"},
       [](O o) -> results::Value { return o.size_factor.value_or(0.0); }},
      {{"opt_sizes", ColumnType::String, "B", "--sizes, comma-separated bytes; empty: -m's sweep"},
       [](O o) -> results::Value { return joined_numbers(o.size_list); }},
      {{"opt_format", ColumnType::String, "", "--format"}, [](O o) -> results::Value { return std::string(to_string(o.format)); }},
  };
  return columns;
}

// Schema 3's build, library and batch-job columns, then one per option: appended to /runs.
results::Table with_metadata_columns(results::Table table) {
  for (const results::Column& column : std::initializer_list<results::Column>{
           {"compiler", ColumnType::String, "", "CMAKE_CXX_COMPILER_ID and _VERSION of the build"},
           {"compiler_flags", ColumnType::String, "", "CMAKE_CXX_FLAGS and those of the build type"},
           {"build_type", ColumnType::String, "", "CMAKE_BUILD_TYPE"},
           {"hdf5_library", ColumnType::String, "", "HDF5 library version that wrote the row"},
           {"slurm_job_id", ColumnType::String, "", "SLURM_JOB_ID; empty outside Slurm"},
           {"slurm_array_job_id", ColumnType::String, "", "SLURM_ARRAY_JOB_ID; empty outside a job array"},
           {"slurm_array_task_id", ColumnType::String, "", "SLURM_ARRAY_TASK_ID; empty outside a job array"},
       })
    table.columns.push_back(column);
  for (const OptionColumn& option : option_columns()) table.columns.push_back(option.column);
  // Schema 4.
  table.columns.push_back({"reduce_GBps", ColumnType::Float64, "GB/s (1e9 B/s)",
                           "one core's dst = dst op src over 256 KiB in the run's dtype and op (rank 0; NaN without the link test)"});
  table.columns.push_back({"copy_GBps", ColumnType::Float64, "GB/s (1e9 B/s)", "one core's memcpy over 256 KiB (rank 0)"});
  return table;
}

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

}  // namespace

const results::Table& runs_table() {
  static const results::Table table = with_metadata_columns(results::Table{
      "/runs",
      {
          {"run_id", ColumnType::String, "", "globally unique id of the run (UUID v4)"},
          {"start_utc", ColumnType::String, "ISO 8601 UTC", "when the run started"},
          {"end_utc", ColumnType::String, "ISO 8601 UTC", "when the run ended; empty while running"},
          {"ringbench_version", ColumnType::String, "", "ringbench version"},
          {"git_revision", ColumnType::String, "", "git describe of the build"},
          {"mpi_library", ColumnType::String, "", "MPI library (bootstrap and mpi rows only)"},
          {"mca_parameters", ColumnType::String, "", "Open MPI MCA parameters in force (OMPI_MCA_* environment)"},
          {"world_size", ColumnType::Int64, "ranks", "number of ranks"},
          {"hosts", ColumnType::String, "", "comma-separated host names, one per distinct host"},
          {"cpu_model", ColumnType::String, "", "rank 0's CPU model"},
          {"kernel", ColumnType::String, "", "rank 0's kernel release"},
          {"socket_buffers", ColumnType::String, "", "--sockbuf request and the kernel's rmem/wmem limits"},
          {"timing_method", ColumnType::String, "", "how calls were timed"},
          {"command_line", ColumnType::String, "", "rank 0's command line"},
          {"interface", ColumnType::String, "", "network interface the ranks used"},
          {"plain_pair_GBps", ColumnType::Float64, "GB/s (1e9 B/s)", "plain blocking TCP pair, 1 MiB writes"},
          {"plain_pair_path", ColumnType::String, "", "where the plain pair ran: loopback on HOST, or HOST -> HOST (ip)"},
          {"exit_status", ColumnType::String, "", "running, ok, failed: <reason>"},
          // Schema 2.
          {"load_average", ColumnType::Float64, "", "rank 0's 1-minute load average at start"},
          {"ranks_per_core", ColumnType::Float64, "", "ranks sharing rank 0's cores (its host's, and other network namespaces' on its kernel) / those cores"},
          {"barrier_skew_us", ColumnType::Float64, "us", "how far apart ranks leave a barrier (median; see docs)"},
          {"median_ci_width", ColumnType::Float64, "fraction",
           "median over the run's rows of the 95% interval's half-width / median; NaN if no row had one"},
          // Schema 3 (additive: older tables are widened, their rows get an empty value).
          {"interface_reason", ColumnType::String, "",
           "why the transport chose `interface`: IPoIB preferred, first non-virtual interface, --iface SPEC, ..."},
      },
      "one row per ringbench run"});
  return table;
}

// /results's columns from schema 5 on, appended after the older ones (never reordered).
static std::vector<Column> results_columns_since_schema_5() {
  return {
      // Schema 5: rows measured after a shrink (--on-failure shrink, /events) say so.
      {"epoch", ColumnType::Int64, "", "shrinks before this row: 0 as launched, K after the K-th (see /events)"},
      // Schema 6: the transport parameters the row ran with (rank 0's); missing for mpi rows.
      {"pipeline_bytes", ColumnType::UInt64, "B", "received bytes handed to a reduction at a time (--pipeline)"},
      {"write_slice_bytes", ColumnType::UInt64, "B",
       "most bytes one send() took (--slice, or measured at start-up, else the default for the host's ranks per core)"},
      {"spin_us", ColumnType::Float64, "us", "how long a stalled rank spun before sleeping in poll() (--spin)"},
      {"streams", ColumnType::Int64, "", "TCP connections to each peer (--streams)"},
      // Schema 7.
      {"threads", ColumnType::Int64, "", "threads that drove the streams, the rank's own included (--threads)"},
      // Schema 8.
      {"segment_bytes", ColumnType::UInt64, "B",
       "pipelining segment of tree and pipelined-chain rows (--segment, or chosen per size from the link test); "
       "0 for other rows, and for rows written before schema 8 (which ran with 64 KiB)"},
  };
}

const results::Table& results_table() {
  static const results::Table table = [] {
    results::Table t{
      "/results",
      {
          {"run_id", ColumnType::String, "", "the run (see /runs)"},
          {"collective", ColumnType::String, "", "allreduce, allgather, ..."},
          {"algorithm", ColumnType::String, "", "ring, tree, ..., mpi (the MPI library's own), auto"},
          {"chosen_algorithm", ColumnType::String, "", "what ran: the algorithm itself, or auto's pick at this size"},
          {"transport", ColumnType::String, "", "ringbench TCP, or the MPI library's transport for mpi rows"},
          {"in_place", ColumnType::Int64, "bool", "1 in place; 0 out of place (input copied to output in the call)"},
          {"world_size", ColumnType::Int64, "ranks", "number of ranks"},
          {"dtype", ColumnType::String, "", "float32, float64, int32, int64"},
          {"op", ColumnType::String, "", "sum, prod, min, max"},
          {"bytes", ColumnType::UInt64, "B", "message size (the whole buffer, nccl-tests convention)"},
          {"count", ColumnType::UInt64, "elements", "elements in the buffer"},
          {"iterations", ColumnType::Int64, "", "timed calls"},
          {"warmup", ColumnType::Int64, "", "untimed warm-up calls"},
          {"t_avg_us", ColumnType::Float64, "us", "mean over ranks of each rank's mean call time"},
          {"t_min_us", ColumnType::Float64, "us", "fastest rank's mean call time"},
          {"t_max_us", ColumnType::Float64, "us", "slowest rank's mean call time"},
          {"algbw_GBps", ColumnType::Float64, "GB/s (1e9 B/s)", "bytes / t_median (schema 1: t_avg)"},
          {"busbw_GBps", ColumnType::Float64, "GB/s (1e9 B/s)", "algbw x busbw factor; NaN when N = 1"},
          {"sent_min_bytes", ColumnType::UInt64, "B", "fewest payload bytes a rank sent per call (counted)"},
          {"sent_max_bytes", ColumnType::UInt64, "B", "most payload bytes a rank sent per call (counted)"},
          {"overhead_bytes", ColumnType::UInt64, "B", "most protocol bytes (frame headers) a rank sent per call"},
          {"formula_ok", ColumnType::Int64, "bool",
           "1 if every rank's counted payload equals the algorithm's formula; -1 where not counted (mpi rows)"},
          {"bound_bytes", ColumnType::Float64, "B", "the collective's lower bound per rank"},
          {"link_bound_us", ColumnType::Float64, "us", "bound bytes at the ring link bandwidth measured in this run"},
          {"efficiency", ColumnType::Float64, "fraction",
           "link_bound_us / t_median_us (schema 1: t_avg_us); NaN for mpi rows on another wire"},
          {"verified", ColumnType::Int64, "bool", "1 if every rank's result matched the reference"},
          {"wrong_count", ColumnType::UInt64, "elements", "wrong elements over all ranks (plus ranks disagreeing)"},
          {"max_abs_error", ColumnType::Float64, "", "largest error against the double reference (random inputs)"},
          // Schema 2: the calls' statistics (docs/measuring.md); algbw, busbw and efficiency use
          // t_median_us from here on (t_avg_us before).
          {"t_median_us", ColumnType::Float64, "us", "median of the samples' collective call times"},
          {"t_p05_us", ColumnType::Float64, "us", "5th percentile of the samples"},
          {"t_p95_us", ColumnType::Float64, "us", "95th percentile of the samples"},
          {"t_ci95_low_us", ColumnType::Float64, "us", "95% confidence interval of the median, low end; NaN if n/a"},
          {"t_ci95_high_us", ColumnType::Float64, "us", "95% confidence interval of the median, high end; NaN if n/a"},
          {"calls", ColumnType::Int64, "", "timed calls"},
          {"stop_reason", ColumnType::String, "", "why timing stopped: ci, time or iterations"},
          {"foreign_cpu_share", ColumnType::Float64, "fraction",
           "share of a host's CPU other processes took during the calls (lower bound); over 0.1 the interval is "
           "withheld"},
          {"cpu_s_per_GB", ColumnType::Float64, "s/GB",
           "CPU seconds (user + system, every thread) summed over the ranks, per GB of lower-bound bytes summed over "
           "the ranks; NaN when N = 1"},
          {"ctx_switches_per_call", ColumnType::Float64, "", "context switches (voluntary + involuntary) summed over "
                                                             "the ranks, per call"},
      },
      "one row per (run, collective, algorithm, size)"};
    for (auto& column : results_columns_since_schema_5()) t.columns.push_back(std::move(column));
    return t;
  }();
  return table;
}

const results::Table& samples_table() {
  static const results::Table table{
      "/samples",
      {
          {"run_id", ColumnType::String, "", "the run (see /runs)"},
          {"row", ColumnType::Int64, "", "the /results row within the run: 0 for its first, in order"},
          {"sample", ColumnType::Int64, "", "0, 1, ... in the order measured (a call; back to back, a batch)"},
          {"rank", ColumnType::Int64, "", "-1 for the collective's time (as the row's statistics use it), else the rank"},
          {"time_us", ColumnType::Float64, "us", "the sample's time per call"},
      },
      "every timed sample of every row (ringbench --samples), the collective's and each rank's own"};
  return table;
}

std::vector<results::Row> sample_rows(const std::string& run_id, int row, const SizeResult& s) {
  std::vector<results::Row> rows;
  auto add = [&](int64_t rank, const std::vector<double>& times) {
    for (size_t k = 0; k < times.size(); ++k)
      rows.push_back({run_id, int64_t{row}, static_cast<int64_t>(k), rank, times[k]});
  };
  add(-1, s.call_us);
  for (size_t rank = 0; rank < s.rank_call_us.size(); ++rank) add(static_cast<int64_t>(rank), s.rank_call_us[rank]);
  return rows;
}

results::Row to_row(const RunRecord& r) {
  results::Row row{r.run_id,       r.start_utc,      r.end_utc, r.version,   r.git_revision, r.mpi_library,
          r.mca_parameters, int64_t{r.world_size}, r.hosts, r.cpu_model, r.kernel,   r.socket_buffers,
          r.timing_method, r.command_line,   r.interface, r.plain_pair_GBps, r.plain_pair_path, r.exit_status,
          r.conditions.load_average.value_or(std::nan("")), r.conditions.ranks_per_core(),
          r.conditions.barrier_skew_us, r.median_ci_width, r.interface_reason};
  for (const std::string& text : {r.compiler, r.compiler_flags, r.build_type, r.hdf5_library, r.slurm_job_id,
                                  r.slurm_array_job_id, r.slurm_array_task_id})
    row.emplace_back(text);
  row.insert(row.end(), r.options.begin(), r.options.end());
  row.emplace_back(r.reduce_GBps);
  row.emplace_back(r.copy_GBps);
  return row;
}

const results::Table& links_table() {
  static const results::Table table{
      "/links",
      {
          {"run_id", ColumnType::String, "", "the run (see /runs)"},
          {"link_class", ColumnType::String, "", "same host, or across hosts"},
          {"rank_a", ColumnType::Int64, "", "one end (rank 0)"},
          {"rank_b", ColumnType::Int64, "", "the other end: rank 0's first partner of the class"},
          {"bytes", ColumnType::UInt64, "bytes", "message size"},
          {"one_way_us", ColumnType::Float64, "us", "half the median round trip of a ping-pong through our transport"},
          {"round_trips", ColumnType::Int64, "", "timed round trips, after 3 untimed"},
      },
      "point-to-point time of each link class of a run at several sizes (schema 4; with the link test)"};
  return table;
}

std::vector<results::Row> link_rows(const std::string& run_id, const std::vector<LinkPoint>& points) {
  std::vector<results::Row> rows;
  for (const LinkPoint& p : points)
    rows.push_back({run_id, p.link_class, int64_t{p.rank_a}, int64_t{p.rank_b}, uint64_t{p.bytes}, p.one_way_us,
                    int64_t{p.round_trips}});
  return rows;
}

const results::Table& exchanges_table() {
  static const results::Table table{
      "/exchanges",
      {
          {"run_id", ColumnType::String, "", "the run (see /runs)"},
          {"chunk_bytes", ColumnType::UInt64, "bytes", "chunk each rank sends its right neighbour while receiving one"},
          {"chunk_us", ColumnType::Float64, "us", "per chunk: the median timed call of 2(N-1) chunks back to back, over 2(N-1)"},
          {"calls", ColumnType::Int64, "", "timed calls"},
          {"reduces", ColumnType::Int64, "",
           "1: each received chunk was summed into its slot (the reducing link test, schema 10); 0 or missing: sent on"},
      },
      "the ring send/receive link test at chunks beyond the rows' own, up to the largest size (schema 9; one host, "
      "with the link test), and plain and reducing side by side where the run reduces (schema 10)"};
  return table;
}

std::vector<results::Row> exchange_rows(const std::string& run_id, const std::vector<ExchangePoint>& points) {
  std::vector<results::Row> rows;
  for (const ExchangePoint& p : points)
    rows.push_back({run_id, uint64_t{p.chunk_bytes}, p.chunk_us, int64_t{p.calls}, int64_t{p.reduces ? 1 : 0}});
  return rows;
}

results::Row to_row(const std::string& run_id, const SizeResult& s, const BenchOptions& options, int n) {
  const double avg = s.time.median;
  const double algbw = avg > 0 ? static_cast<double>(s.bytes) / (avg * 1e-6) / 1e9 : 0.0;
  const auto& ci = s.time.ci95;
  const double factor = busbw_factor(s.collective, n);
  const double link = s.link_bound_us(n);
  double max_err = 0;
  for (const auto& rank : s.ranks) max_err = std::max(max_err, rank.max_abs_error);
  return {run_id,
          std::string(to_string(s.collective)),
          s.algorithm,
          s.chosen,
          s.transport,
          int64_t{s.in_place ? 1 : 0},
          int64_t{n},
          std::string(to_string(options.dtype)),
          std::string(to_string(options.op)),
          uint64_t{s.bytes},
          uint64_t{s.count},
          int64_t{s.iterations},
          int64_t{s.warmup},
          s.t_avg_us(),
          s.t_min_us(),
          s.t_max_us(),
          algbw,
          n > 1 ? algbw * factor : std::nan(""),
          s.sent_min(),
          s.sent_max(),
          s.overhead_max(),
          int64_t{!s.bytes_counted ? -1 : s.bytes_ok() ? 1 : 0},
          s.bound_bytes(n),
          link,
          link > 0 && avg > 0 && s.same_wire ? link / avg : std::nan(""),
          int64_t{options.verify ? (s.verified() ? 1 : 0) : -1},
          s.wrong(),
          max_err,
          s.time.median,
          s.time.p05,
          s.time.p95,
          ci ? ci->low : std::nan(""),
          ci ? ci->high : std::nan(""),
          int64_t{s.iterations},
          s.stop_reason,
          s.foreign_cpu_share,
          s.cpu_s_per_GB(n),
          s.ctx_switches_per_call(),
          int64_t{s.epoch},
          uint64_t{s.tuning.pipeline_bytes},
          uint64_t{s.tuning.write_slice_bytes},
          s.tuning.spin_us,
          int64_t{s.tuning.streams},
          int64_t{s.tuning.threads},
          uint64_t{s.tuning.segment_bytes}};
}

std::string utc_now() {
  auto now = std::chrono::system_clock::now();
  std::time_t t = std::chrono::system_clock::to_time_t(now);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

namespace {

std::string first_line_of(const char* path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown";
}

}  // namespace

RunRecord describe_run(const BenchOptions& options, const std::string& mpi_library) {
  RunRecord run;
  run.run_id = results::new_run_id();
  run.start_utc = utc_now();
  run.version = kVersion;
  run.git_revision = kGitRevision;
  run.mpi_library = mpi_library;
  // What the user set (--mca or OMPI_MCA_*), not the launcher's own plumbing that mpirun passes down.
  for (char** e = environ; *e != nullptr; ++e) {
    std::string_view entry(*e);
    if (entry.rfind("OMPI_MCA_", 0) != 0) continue;
    entry.remove_prefix(9);
    bool plumbing = false;
    for (const char* internal : {"orte_", "ess", "pmix", "shmem_", "initial_wdir"})
      plumbing |= entry.rfind(internal, 0) == 0;
    if (!plumbing) run.mca_parameters += (run.mca_parameters.empty() ? "" : " ") + std::string(entry);
  }
  utsname u{};
  if (uname(&u) == 0) run.kernel = std::string(u.sysname) + " " + u.release;
  run.cpu_model = cpu_model();
  run.socket_buffers = fmt::format("request {} B; rmem_max {}; wmem_max {}; tcp_rmem {}; tcp_wmem {}",
                                   options.transport.socket_buffer_bytes, first_line_of("/proc/sys/net/core/rmem_max"),
                                   first_line_of("/proc/sys/net/core/wmem_max"),
                                   first_line_of("/proc/sys/net/ipv4/tcp_rmem"),
                                   first_line_of("/proc/sys/net/ipv4/tcp_wmem"));
  run.timing_method = timing_method(options.timing);
  run.command_line = options.command_line;
  run.compiler = RINGBENCH_COMPILER;
  run.compiler_flags = RINGBENCH_CXX_FLAGS;
  run.build_type = RINGBENCH_BUILD_TYPE;
  run.hdf5_library = results::hdf5_library_version();
  run.slurm_job_id = environment("SLURM_JOB_ID");
  run.slurm_array_job_id = environment("SLURM_ARRAY_JOB_ID");
  run.slurm_array_task_id = environment("SLURM_ARRAY_TASK_ID");
  for (const OptionColumn& option : option_columns()) run.options.push_back(option.value(options));
  return run;
}

}  // namespace ringbench
