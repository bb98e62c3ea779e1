#pragma once
// `--algo auto`: picks, per size, the algorithm an alpha-beta model says is fastest, with alpha
// (seconds per step) and beta (seconds per byte on one link) fitted to this run's own link test,
// not to a table from elsewhere. Cost of an algorithm at a size:
//   steps(N) x alpha + (payload bytes of its busiest rank) x beta
// The crossover summary then reports the regret: how much slower the pick was than the measured
// winner at each size.

#include <cstddef>
#include <span>
#include <vector>

#include "transport/algorithm.h"

namespace ringbench {

class Communicator;

struct LinkModel {
  double alpha_s = 0;  // per step
  double beta_s = 0;   // per byte
};

// Measures the ring link at two chunk sizes (64 B and 1 MiB) and fits the line. Collective: every
// rank calls it and gets the same model (the slowest rank's figures, agreed over our ring).
LinkModel fit_link_model(Communicator& comm);

// host_of_rank: each rank's host index (host_placement()), so host-aware algorithms are priced
// for the placement at hand.
double predicted_seconds(const Algorithm& algorithm, const LinkModel& model, std::span<const int> host_of_rank,
                         size_t count, size_t element_bytes);

// The candidate with the lowest predicted time; candidates must be non-empty.
const Algorithm* choose_algorithm(const std::vector<const Algorithm*>& candidates, const LinkModel& model,
                                  std::span<const int> host_of_rank, size_t count, size_t element_bytes);

}  // namespace ringbench
