#include "algorithm_choice.h"

#include <algorithm>

#include "link_test.h"
#include "transport/collectives/ring_allreduce.h"
#include "transport/communicator.h"

namespace ringbench {

LinkModel fit_link_model(Communicator& comm) {
  const int n = comm.size();
  if (n == 1) return {};
  constexpr double kSmall = 64, kLarge = 1 << 20;
  double times[2] = {ring_exchange_seconds(comm, static_cast<uint64_t>(kSmall), 20, 2 * (n - 1)),
                     ring_exchange_seconds(comm, static_cast<uint64_t>(kLarge), 5, 2 * (n - 1))};
  // Every rank must pick the same algorithm: agree on the slowest rank's figures.
  CollectiveCall call{DataType::Float64, ReduceOp::Max, std::as_writable_bytes(std::span(times)), 2, 0};
  ring_allreduce().run(comm, call);
  LinkModel model;
  model.beta_s = std::max(0.0, (times[1] - times[0]) / (kLarge - kSmall));
  model.alpha_s = std::max(0.0, times[0] - model.beta_s * kSmall);
  return model;
}

double predicted_seconds(const Algorithm& algorithm, const LinkModel& model, std::span<const int> host_of_rank,
                         size_t count, size_t element_bytes) {
  const int world = static_cast<int>(host_of_rank.size());
  uint64_t busiest = 0;
  for (int r = 0; r < world; ++r)
    busiest = std::max(busiest, algorithm.placed_payload_bytes_sent(r, host_of_rank, count, element_bytes, 0));
  return algorithm.steps(world) * model.alpha_s + static_cast<double>(busiest) * model.beta_s;
}

const Algorithm* choose_algorithm(const std::vector<const Algorithm*>& candidates, const LinkModel& model,
                                  std::span<const int> host_of_rank, size_t count, size_t element_bytes) {
  return *std::min_element(candidates.begin(), candidates.end(), [&](const Algorithm* a, const Algorithm* b) {
    return predicted_seconds(*a, model, host_of_rank, count, element_bytes) <
           predicted_seconds(*b, model, host_of_rank, count, element_bytes);
  });
}

}  // namespace ringbench
