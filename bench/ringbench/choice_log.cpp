#include "choice_log.h"

#include <fmt/format.h>

#include <cmath>

#include "byte_size.h"
#include "statistics/order_statistics.h"
#include "transport/debug_log.h"

namespace ringbench {

namespace {

bool coll_info_on() { return debug::enabled(debug::Level::Info, debug::Subsys::Coll); }

// "allreduce 1M (262144 x 4 B)"
std::string size_text(Collective collective, uint64_t bytes, size_t element_bytes) {
  return fmt::format("{} {} ({} x {} B)", to_string(collective), format_byte_size(bytes), bytes / element_bytes,
                     element_bytes);
}

}  // namespace

void log_size_plan(const Communicator& comm, const Algorithm& algorithm, uint64_t bytes, size_t element_bytes,
                   int root) {
  if (!coll_info_on()) return;
  const std::string what = size_text(algorithm.collective(), bytes, element_bytes);
  if (!algorithm.bytes_counted()) {
    debug::info(debug::Subsys::Coll, comm.rank(), "{} runs {}: the MPI library's own collective, not our transport",
                what, algorithm.name());
    return;
  }
  const size_t count = bytes / element_bytes;
  debug::info(debug::Subsys::Coll, comm.rank(),
              "{} runs {}: {} step(s), this rank sends {} B, receives in pipeline pieces of {} (--pipeline)", what,
              algorithm.name(), algorithm.steps(comm.size()),
              algorithm.payload_bytes_sent(comm.rank(), comm.size(), count, element_bytes, root),
              format_byte_size(comm.pipeline_piece(element_bytes)));
}

namespace {

std::string prices_text(const std::vector<const Algorithm*>& candidates, std::span<const double> predicted_us,
                        std::string_view without_prices) {
  if (predicted_us.empty()) return fmt::format("no model prices ({})", without_prices);
  std::string text;
  for (size_t i = 0; i < candidates.size() && i < predicted_us.size(); ++i)
    if (std::isfinite(predicted_us[i]))
      text += fmt::format("{}{} {:.1f} us", text.empty() ? "" : ", ", candidates[i]->name(), predicted_us[i]);
  return "the model priced " + text;
}

std::string race_text(const std::vector<const Algorithm*>& candidates, bool priced, std::string_view without_prices,
                      const std::vector<size_t>& raced, const std::vector<std::vector<double>>& calls_us) {
  if (raced.size() < 2)
    return priced ? "no race (the next is priced beyond the close ratio and the cheap-race budget)"
                  : "no race (one candidate)";
  std::string names, medians;
  for (size_t i : raced) {
    names += fmt::format("{}{}", names.empty() ? "" : ", ", candidates[i]->name());
    if (i < calls_us.size() && !calls_us[i].empty())
      medians += fmt::format("{}{} {:.1f} us over {} calls", medians.empty() ? "" : ", ", candidates[i]->name(),
                             stats::median(calls_us[i]), calls_us[i].size());
  }
  return fmt::format("raced {} ({}): {}", names,
                     priced ? fmt::format("priced within {:.0f}% or cheap to rule out",
                                          (RacePolicy::kCloseRatio - 1) * 100)
                            : std::string(without_prices),
                     medians.empty() ? "medians on rank 0 only" : "medians " + medians);
}

}  // namespace

void log_auto_pick(const Communicator& comm, uint64_t bytes, size_t element_bytes,
                   const std::vector<const Algorithm*>& candidates, std::span<const double> predicted_us,
                   std::string_view without_prices, const std::vector<size_t>& raced,
                   const std::vector<std::vector<double>>& calls_us, size_t picked) {
  if (!coll_info_on() || candidates.empty() || picked >= candidates.size()) return;
  debug::info(debug::Subsys::Coll, comm.rank(), "auto at {}: {}; {}; picked {}",
              size_text(candidates.front()->collective(), bytes, element_bytes),
              prices_text(candidates, predicted_us, without_prices),
              race_text(candidates, !predicted_us.empty(), without_prices, raced, calls_us), candidates[picked]->name());
}

}  // namespace ringbench
