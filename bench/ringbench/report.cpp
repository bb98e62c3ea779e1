#include "report.h"

#include <fmt/format.h>

#include "byte_size.h"
#include "statistics/call_statistics.h"

namespace ringbench {

double Report::algbw_GBps(uint64_t bytes, double time_us) {
  return time_us > 0 ? static_cast<double>(bytes) / (time_us * 1e-6) / 1e9 : 0.0;
}

void Report::header(const RunHeader& h) {
  std::string hosts;
  for (const auto& host : h.hosts) hosts += (hosts.empty() ? "" : ",") + host;
  fmt::print(out_, "# ringbench {}: collectives over our own TCP, verified on every rank, every byte counted\n",
             h.version);
  fmt::print(out_, "# ranks        : {} on {} host(s) [{}]\n", h.world_size, h.hosts.size(), hosts);
  fmt::print(out_, "# interface    : {}\n", h.interface);
  fmt::print(out_, "# launcher     : {} (bootstrap only: address exchange)\n", h.mpi_library);
  fmt::print(out_, "# dtype, op    : {} {} (integer sum/prod wrap around)\n", to_string(options_.dtype),
             to_string(options_.op));
  fmt::print(out_, "# inputs       : {}\n",
             !options_.verify ? "verification off (--no-verify)"
             : options_.inputs == InputKind::Exact
                 ? "exact (results compared bit for bit with the reference on every rank)"
                 : "random uniform [-1,1) (max abs error against a double-precision reference)");
  fmt::print(out_, "# load         : {}\n", describe_load(h.conditions));
  if (!h.write_slice.empty()) fmt::print(out_, "# write slice  : {}\n", h.write_slice);
  if (!h.segment.empty()) fmt::print(out_, "# segment      : {}\n", h.segment);
  timing_lines();
  fmt::print(out_, "# barrier skew : {:.1f} us, median of {} barriers: {}\n", h.conditions.barrier_skew_us,
             h.conditions.skew_repetitions,
             h.conditions.skew_from_shared_clock
                 ? "how far apart the ranks leave a barrier; a call's time starts at the last rank's entry, so it "
                   "leaves this out"
                 : "the slowest rank's barrier-to-barrier time (clocks differ across hosts): an upper bound on how "
                   "far apart ranks leave a barrier, and part of every call's time");
  fmt::print(out_, "# units        : latency us; algbw, busbw GB/s (1e9 B/s); busbw = algbw x busbw factor "
                   "(all-reduce 2(N-1)/N); bytes per rank\n");
  fmt::print(out_, "# bytes        : sent = payload bytes per rank per call, counted from send() return values "
                   "(min-max over ranks); bound = the collective's lower bound; bytes = sent equals the algorithm's "
                   "formula on every rank\n");
  fmt::print(out_, "# link bound   : every rank sends one chunk (size/N) right while receiving from the left, 2(N-1) "
                   "times, streamed as the ring all-reduce streams them (no reduction), measured at each size in this run; "
                   "link = bound bytes at that bandwidth; "
                   "eff = link / time\n");
  if (h.plain_pair_GBps > 0)
    fmt::print(out_, "# plain TCP    : one blocking socket pair, 1 MiB writes (not our transport), {}: {:.2f} GB/s\n",
               h.plain_pair_path, h.plain_pair_GBps);
  std::fflush(out_);
}

void Report::timing_lines() {
  fmt::print(out_, "# timing       : {}; every rank stamps its calls with CLOCK_MONOTONIC; a sample's time is the last "
                   "rank's exit minus the last rank's entry (ranks on one host), else the slowest rank's own duration\n",
             timing_method(options_.timing));
  fmt::print(out_, "# statistics   : time = median of the samples (algbw, busbw and eff use it); p05, p95 = their 5th and "
                   "95th percentiles; +-ci = the median's {:.0f}% confidence interval as % of it, from order statistics "
                   "of the medians of blocks of {} (n/a below {} blocks; busy where other processes took over {:.0f}% of "
                   "a host's CPU meanwhile, slowing every call alike); ~ marks an interval wider than +-{:.0f}%\n",
             100 * stats::kConfidence,
             options_.timing == TimingMode::Barrier ? fmt::format("{} calls", stats::kCallsPerBlock)
                                                    : std::string("1 batch"),
             stats::min_blocks_for_interval(), 100 * kForeignCpuShareLimit, 100 * wide_interval_);
  if (options_.iterations)
    fmt::print(out_, "# calls        : exactly {} per size (-i), {} warm-up\n", *options_.iterations, options_.warmup);
  else
    fmt::print(out_, "# calls        : in {} of {} until +-ci <= {:.0f}% or --max-time {} s is spent (at least {}), "
                     "{} warm-up\n",
               options_.timing == TimingMode::Barrier ? "blocks" : "batches", stats::kCallsPerBlock, 100 * wide_interval_, options_.max_seconds_per_size,
               stats::kCallsPerBlock * stats::min_blocks_for_interval(), options_.warmup);
}

void Report::collective_header(Collective collective, const std::string& title, bool algorithm_column) {
  if (!table()) return;
  const bool both = options_.placement == Placement::Both;
  fmt::print(out_, "#\n# {} {}, N={}, busbw factor {}{}{}\n", title, to_string(collective), n_,
             n_ > 1 ? fmt::format("{:.4f}", busbw_factor(collective, n_)) : std::string("N/A"),
             both ? "; out of place, then in place (the in: columns)"
             : options_.placement == Placement::OutOfPlace ? "; out of place"
                                                           : "",
             algorithm_column ? "; the algorithms take turns at each size, block by block" : "");
  std::string names = fmt::format("#{:>11} {:>11} {:>8} {:>5} {:>4} {:>11} {:>6} {:>10} {:>10}", "size", "count",
                                  "type", "op", "root", "time", "+-ci", "p05", "p95");
  std::string units = fmt::format("#{:>11} {:>11} {:>8} {:>5} {:>4} {:>11} {:>6} {:>10} {:>10}", "(B)", "(elements)",
                                  "", "", "", "(us)", "(%)", "(us)", "(us)");
  if (options_.full_listing) {
    names += fmt::format(" {:>10} {:>10} {:>10} {:>10} {:>6} {:>10}", "mean", "stddev", "min", "max", "calls", "stop");
    units += fmt::format(" {:>10} {:>10} {:>10} {:>10} {:>6} {:>10}", "(us)", "(us)", "(us)", "(us)", "", "");
  }
  names += fmt::format(" {:>9} {:>9} {:>21} {:>13} {:>6} {:>11} {:>6} {:>6}", "algbw", "busbw", "sent", "bound",
                       "bytes", "link", "eff", "#wrong");
  units += fmt::format(" {:>9} {:>9} {:>21} {:>13} {:>6} {:>11} {:>6} {:>6}", "(GB/s)", "(GB/s)", "(B/rank)",
                       "(B/rank)", "", "(us)", "", "");
  if (options_.full_listing) {
    names += fmt::format(" {:>9} {:>10} {:>8} {:>8}", "overhead", "max_err", "cpu", "ctx");
    units += fmt::format(" {:>9} {:>10} {:>8} {:>8}", "(B/rank)", "", "(s/GB)", "(/call)");
  }
  if (both) {
    names += fmt::format(" {:>11} {:>6} {:>9} {:>6}", "in:time", "+-ci", "busbw", "#wrong");
    units += fmt::format(" {:>11} {:>6} {:>9} {:>6}", "(us)", "(%)", "(GB/s)", "");
  }
  if (algorithm_column) {
    names = fmt::format("#{:>19} {}", "algorithm", names.substr(1));
    units = fmt::format("#{:>19} {}", "", units.substr(1));
  }
  fmt::print(out_, "{}\n{}\n", names, units);
  std::fflush(out_);
}

std::string timing_method(TimingMode mode) {
  return mode == TimingMode::Barrier
             ? "barrier (osu): a barrier over our TCP before each call, outside the timed region; each call a sample"
             : "back-to-back (nccl-tests, Gloo): a barrier, then a batch of calls back to back; a batch's time / its "
               "calls is one sample";
}

std::string Report::time_fields(const SizeResult& r) const {
  const stats::CallStatistics& t = r.time;
  const auto width = t.relative_half_width();
  const bool wide = width && *width > wide_interval_;
  std::string fields = fmt::format(" {:>10.2f}{} {:>6} {:>10.2f} {:>10.2f}", t.median, wide ? "~" : " ",
                                   r.contended ? std::string("busy")
                                   : width     ? fmt::format("{:.1f}", 100 * *width)
                                               : std::string("n/a"),
                                   t.p05, t.p95);
  if (options_.full_listing)
    fields += fmt::format(" {:>10.2f} {:>10.2f} {:>10.2f} {:>10.2f} {:>6} {:>10}", t.mean, t.stddev, t.min, t.max,
                          r.iterations, r.stop_reason);
  return fields;
}

std::string Report::wrong_field(const SizeResult& r) const {
  return options_.verify ? std::to_string(r.wrong()) : std::string("off");
}

std::string Report::main_fields(const SizeResult& r) const {
  const double avg = r.time.median;
  const double algbw = algbw_GBps(r.bytes, avg);
  const double factor = busbw_factor(r.collective, n_);
  const double link = r.link_bound_us(n_);
  std::string sent = !r.bytes_counted                ? std::string("n/a(mpi)")
                     : r.sent_min() == r.sent_max() ? std::to_string(r.sent_min())
                                                    : fmt::format("{}-{}", r.sent_min(), r.sent_max());
  std::string line = fmt::format(" {:>11} {:>11} {:>8} {:>5} {:>4}", r.bytes, r.count, to_string(options_.dtype),
                                 to_string(options_.op), has_root(r.collective) ? r.root : -1) +
                     time_fields(r);
  line += fmt::format(" {:>9.3f} {:>9} {:>21} {:>13.0f} {:>6} {:>11} {:>6} {:>6}", algbw,
                      n_ > 1 ? fmt::format("{:.3f}", algbw * factor) : std::string("N/A"), sent, r.bound_bytes(n_),
                      !r.bytes_counted ? "n/a" : r.bytes_ok() ? "ok" : "WRONG", link > 0 ? fmt::format("{:.2f}", link) : std::string("N/A"),
                      !r.same_wire ? std::string("n/a")
                      : link > 0   ? fmt::format("{:.0f}%", 100.0 * link / avg)
                                   : std::string("N/A"),
                      wrong_field(r));
  if (options_.full_listing) {
    double max_err = 0;
    for (const auto& s : r.ranks) max_err = std::max(max_err, s.max_abs_error);
    line += fmt::format(" {:>9} {:>10.3g} {:>8.3f} {:>8.1f}", r.overhead_max(), max_err, r.cpu_s_per_GB(n_),
                        r.ctx_switches_per_call());
  }
  return line;
}

std::string Report::in_place_fields(const SizeResult& r) const {
  const auto width = r.time.relative_half_width();
  const double busbw = algbw_GBps(r.bytes, r.time.median) * busbw_factor(r.collective, n_);
  return fmt::format(" {:>10.2f}{} {:>6} {:>9} {:>6}", r.time.median, width && *width > wide_interval_ ? "~" : " ",
                     r.contended ? std::string("busy") : width ? fmt::format("{:.1f}", 100 * *width) : std::string("n/a"),
                     n_ > 1 ? fmt::format("{:.3f}", busbw) : std::string("N/A"), wrong_field(r));
}

void Report::row(const std::vector<SizeResult>& placements, const std::string& algorithm) {
  if (!table() || placements.empty()) return;
  std::string line = (algorithm.empty() ? std::string() : fmt::format(" {:>19}", algorithm)) + main_fields(placements.front());
  if (placements.size() > 1) line += in_place_fields(placements[1]);
  fmt::print(out_, "{}\n", line);
  std::fflush(out_);
}

void Report::failure_details(const SizeResult& r) {
  int rank = -1;
  if (const RankSample* s = r.first_wrong_rank(&rank))
    fmt::print(out_, "# VERIFICATION FAILED at {} B: rank {} element {}: expected {}, got {} ({} wrong elements on that rank)\n",
               r.bytes, rank, s->first_wrong_index, s->expected, s->got, s->wrong);
  else if (!r.verified())
    fmt::print(out_, "# VERIFICATION FAILED at {} B: ranks hold different bytes for a replicated result\n", r.bytes);
  for (size_t i = 0; i < r.ranks.size(); ++i) {
    const auto& s = r.ranks[i];
    if (s.payload_sent != s.expected_payload || s.bytes_mismatches)
      fmt::print(out_, "# BYTE CHECK FAILED at {} B: rank {} sent {} payload bytes per call, the {} formula says {} "
                       "({} of {} calls differed)\n",
                 r.bytes, i, s.payload_sent, r.algorithm, s.expected_payload, s.bytes_mismatches, r.iterations);
  }
  std::fflush(out_);
}

bool Report::interval_is_wide(const SizeResult& result) const {
  const auto width = result.time.relative_half_width();
  return !width || *width > wide_interval_;
}

void Report::noise_warning(int rows, int noisy_rows) {
  if (rows == 0 || 4 * noisy_rows <= rows) return;
  fmt::print(out_, "# warning      : {} of {} sizes have a confidence interval wider than {:.0f}%, or none because other "
                   "processes were using the CPU: this machine is noisy; repeat the run or compare medians across "
                   "runs\n",
             noisy_rows, rows, 100 * wide_interval_);
  std::fflush(out_);
}

void Report::summary(int rows, int failed_rows, double seconds) {
  fmt::print(out_, "#\n# rows: {}, failed: {}, wall time: {:.1f} s\n# result: {}\n", rows, failed_rows, seconds,
             failed_rows == 0 ? "all rows verified, byte counts match the formulas" : "FAILED (see the lines above)");
  std::fflush(out_);
}

}  // namespace ringbench
