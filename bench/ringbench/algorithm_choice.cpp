#include "algorithm_choice.h"

#include <algorithm>

#include "link_test.h"
#include "statistics/order_statistics.h"
#include "statistics/robust_fit.h"
#include "transport/collectives/ring_allreduce.h"
#include "transport/communicator.h"

namespace ringbench {

const std::vector<double>& link_fit_chunk_bytes() {
  static const std::vector<double> sizes = {64, 1 << 10, 16 << 10, 256 << 10, 1 << 20};
  return sizes;
}

LinkModel fit_link_model(Communicator& comm) {
  const int n = comm.size();
  if (n == 1) return {};
  // Each size's figure is the median of repetitions of the streamed ring exchange (one step of a
  // ring all-reduce, 2(N-1) of them back to back, as its calls stream them), so one descheduled
  // repetition cannot move it; then the line through all sizes is fitted by Theil-Sen.
  constexpr int kRepetitions = 7;
  const std::vector<double>& sizes = link_fit_chunk_bytes();
  std::vector<double> seconds;
  for (double bytes : sizes) {
    std::vector<double> repetitions;
    for (int i = 0; i < kRepetitions; ++i)
      repetitions.push_back(ring_exchange_seconds(comm, static_cast<uint64_t>(bytes), 1, 2 * (n - 1)));
    seconds.push_back(stats::median(repetitions));
  }
  // Every rank must pick the same algorithm: agree on the slowest rank's figures.
  CollectiveCall call{DataType::Float64, ReduceOp::Max, std::as_writable_bytes(std::span(seconds)), seconds.size(), 0};
  ring_allreduce().run(comm, call);
  const stats::Line line = stats::theil_sen_fit(sizes, seconds);
  return {std::max(0.0, line.intercept), std::max(0.0, line.slope)};
}

double predicted_seconds(const Algorithm& algorithm, const LinkModel& model, std::span<const int> host_of_rank,
                         size_t count, size_t element_bytes) {
  const int world = static_cast<int>(host_of_rank.size());
  uint64_t busiest = 0;
  for (int r = 0; r < world; ++r)
    busiest = std::max(busiest, algorithm.placed_payload_bytes_sent(r, host_of_rank, count, element_bytes, 0));
  return algorithm.steps(world) * model.alpha_s + static_cast<double>(busiest) * model.beta_s;
}

std::vector<const Algorithm*> shortlist(const std::vector<const Algorithm*>& candidates, const LinkModel& model,
                                        std::span<const int> host_of_rank, size_t count, size_t element_bytes) {
  std::vector<std::pair<double, const Algorithm*>> priced;
  for (const Algorithm* a : candidates) {
    if (a->name() == "naive" && count * element_bytes > kNaiveLargestBytes) continue;
    priced.emplace_back(predicted_seconds(*a, model, host_of_rank, count, element_bytes), a);
  }
  std::sort(priced.begin(), priced.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<const Algorithm*> list;
  for (const auto& [seconds, algorithm] : priced)
    if (list.empty() || seconds <= kShortlistFactor * priced.front().first) list.push_back(algorithm);
  return list;
}

}  // namespace ringbench
