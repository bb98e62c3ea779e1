#pragma once
// `--algo auto`: picks, per size, one of ringbench's own algorithms, in two stages.
//  1. The model shortlists: an alpha-beta model, with alpha (seconds per step) and beta (seconds
//     per byte on one link) fitted by Theil-Sen to medians of this run's own link test at several
//     chunk sizes, prices every candidate:
//       steps(N) x alpha + (payload bytes of its busiest rank) x beta
//     and keeps those within kShortlistFactor of the cheapest.
//  2. A race decides: the shortlisted algorithms take turns at the size, a clear loser leaves,
//     and the lowest median wins (Sweep::auto_pick, statistics/race.h; rank 0 decides and every
//     rank follows).
// Why both: alpha-beta prices steps and bytes, not what this host does with them (a reduction
// that cannot overlap the receive, non-neighbour traffic, ranks sharing cores), so on its own it
// ranked rhd above ring at large sizes where rhd measured up to 47% slower; the trial catches that,
// and the model keeps the trial to the few algorithms that could win.
// naive, the foil ((N-1) x the data per rank), is a candidate only up to kNaiveLargestBytes.
// The crossover summary then reports the regret: how much slower the pick was than the measured
// winner at each size, where the intervals separate.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "transport/algorithm.h"

namespace ringbench {

class Communicator;

// Candidates priced within this factor of the cheapest go to the trial: wide enough that the
// model's blind spots (above) cannot hide the winner, narrow enough to leave out algorithms that
// move several times the bytes.
inline constexpr double kShortlistFactor = 2.0;
// The largest size at which naive, the foil, may be picked (the bound for auto).
inline constexpr uint64_t kNaiveLargestBytes = 64 << 10;

struct LinkModel {
  double alpha_s = 0;  // per step
  double beta_s = 0;   // per byte
};

// The chunk sizes the link model is fitted on.
const std::vector<double>& link_fit_chunk_bytes();

// Measures the ring link at link_fit_chunk_bytes() and fits the line. Collective: every rank calls
// it and gets the same model (the slowest rank's figures, agreed over our ring).
LinkModel fit_link_model(Communicator& comm);

// host_of_rank: each rank's host index (host_placement()), so host-aware algorithms are priced
// for the placement at hand.
double predicted_seconds(const Algorithm& algorithm, const LinkModel& model, std::span<const int> host_of_rank,
                         size_t count, size_t element_bytes);

// The candidates the trial should run, cheapest predicted first (stage 1 above); never empty when
// some candidate other than naive exists.
std::vector<const Algorithm*> shortlist(const std::vector<const Algorithm*>& candidates, const LinkModel& model,
                                        std::span<const int> host_of_rank, size_t count, size_t element_bytes);

}  // namespace ringbench
