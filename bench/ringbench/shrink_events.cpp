#include "shrink_events.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "byte_size.h"
#include "transport/collectives/ring_allreduce.h"

namespace ringbench {

using results::ColumnType;

const results::Table& events_table() {
  static const results::Table table{
      "/events",
      {
          {"run_id", ColumnType::String, "", "the run (see /runs)"},
          {"time_utc", ColumnType::String, "", "when the survivors resumed the sweep"},
          {"event", ColumnType::String, "", "shrink"},
          {"failed_ranks", ColumnType::String, "", "the ranks declared failed, as launched, comma-separated"},
          {"old_world_size", ColumnType::Int64, "ranks", "N before the shrink"},
          {"new_world_size", ColumnType::Int64, "ranks", "N after it"},
          {"epoch", ColumnType::Int64, "", "the epoch the survivors go on in (the rows' /results epoch)"},
          {"collective", ColumnType::String, "", "the collective the sweep resumed at (where the failure struck)"},
          {"bytes", ColumnType::UInt64, "B", "the size the sweep resumed at"},
          {"agreement_rounds", ColumnType::Int64, "", "agreement rounds until stable (transport/failure_agreement.h)"},
          {"agreement_s", ColumnType::Float64, "s", "from the verdict to the survivors' rebuilt communicator"},
          {"cause", ColumnType::String, "", "the verdict that stopped the failed call"},
      },
      "one row per shrink of --on-failure shrink: the survivors agreed on the failed ranks and went on"};
  return table;
}

namespace {

std::string ranks_text(const std::vector<int>& ranks) {
  std::string text;
  for (int r : ranks) text += (text.empty() ? "" : ",") + std::to_string(r);
  return text;
}

}  // namespace

results::Row to_row(const ShrinkEvent& e) {
  return {e.run_id,
          e.time_utc,
          std::string("shrink"),
          ranks_text(e.failed),
          int64_t{e.old_size},
          int64_t{e.new_size},
          int64_t{e.epoch},
          e.collective,
          uint64_t{e.bytes},
          int64_t{e.rounds},
          e.agreement_s,
          e.cause};
}

void print_event(std::FILE* out, const ShrinkEvent& e) {
  fmt::print(out,
             "#\n# shrink       : rank(s) {} failed ({}); the {} survivors agreed in {} round(s) and {:.2f} s and go on "
             "as N={} (epoch {}) from {} {}; resumed at {} (unix {:.3f})\n",
             ranks_text(e.failed), e.cause, e.new_size, e.rounds, e.agreement_s, e.new_size, e.epoch, e.collective,
             format_byte_size(e.bytes), e.time_utc, e.resumed_unix_s);
  std::fflush(out);
}

std::string share_run_id(Communicator& comm, const std::string& mine) {
  if (comm.size() == 1) return mine;
  comm.begin_collective();
  // A run id is a 36-character UUID (results/run_id.cpp); the frame's length is fixed for every rank.
  std::string id = mine;
  id.resize(36);
  std::vector<SendSpec> sends;
  std::vector<RecvSpec> receives;
  if (comm.rank() == 0)
    for (int r = 1; r < comm.size(); ++r) sends.push_back({r, 0, std::as_bytes(std::span(id))});
  else
    receives.push_back({0, 0, std::as_writable_bytes(std::span(id))});
  comm.exchange(sends, receives, {"run id", "direct", 0, 1});
  return id;
}

SweepPosition agree_resume_point(Communicator& comm, SweepPosition mine) {
  // Two minima: the collective first, then the size among the ranks at that collective.
  auto minimum = [&comm](double value) {
    std::vector<double> v{value};
    CollectiveCall call{DataType::Float64, ReduceOp::Min, std::as_writable_bytes(std::span(v)), 1, 0};
    if (comm.size() > 1) ring_allreduce().run(comm, call);
    return v[0];
  };
  SweepPosition at;
  at.collective = static_cast<size_t>(minimum(static_cast<double>(mine.collective)));
  const double bytes = at.collective == mine.collective ? static_cast<double>(mine.bytes)
                                                          : std::numeric_limits<double>::infinity();
  at.bytes = static_cast<uint64_t>(minimum(bytes));
  return at;
}

}  // namespace ringbench
