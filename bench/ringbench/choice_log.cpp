#include "choice_log.h"

#include <fmt/format.h>

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

void log_auto_pick(const Communicator& comm, uint64_t bytes, const LinkModel& model, std::span<const int> host_of_rank,
                   size_t element_bytes, const std::vector<const Algorithm*>& shortlisted,
                   const std::vector<std::vector<double>>& trial_calls_us, size_t picked) {
  if (!coll_info_on() || shortlisted.empty()) return;
  const size_t count = bytes / element_bytes;
  std::string priced, trials;
  for (size_t i = 0; i < shortlisted.size(); ++i) {
    const double us = predicted_seconds(*shortlisted[i], model, host_of_rank, count, element_bytes) * 1e6;
    priced += fmt::format("{}{} {:.1f} us", priced.empty() ? "" : ", ", shortlisted[i]->name(), us);
    if (i < trial_calls_us.size() && !trial_calls_us[i].empty())
      trials += fmt::format("{}{} {:.1f} us over {} calls", trials.empty() ? "" : ", ", shortlisted[i]->name(),
                            stats::median(trial_calls_us[i]), trial_calls_us[i].size());
  }
  if (trials.empty())
    trials = shortlisted.size() == 1 ? "no trial (one candidate)" : "trial medians on rank 0 only";
  else
    trials = "trial medians " + trials;
  debug::info(debug::Subsys::Coll, comm.rank(),
              "auto at {}: the link model (alpha {:.1f} us per step, beta {:.3f} GB/s) shortlisted {} (within {}x "
              "of the cheapest); {}; picked {}",
              size_text(shortlisted.front()->collective(), bytes, element_bytes), model.alpha_s * 1e6,
              model.beta_s > 0 ? 1e-9 / model.beta_s : 0.0, priced, kShortlistFactor, trials,
              shortlisted[picked]->name());
}

}  // namespace ringbench
