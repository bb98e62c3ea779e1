#pragma once
// `--algo auto`: picks, per size, one of ringbench's own algorithms, with the topology model and
// the specification every other part uses (issues 13 and 15), in two stages.
//  1. The model prices. Before auto's first size, ringbench measures this machine as `topomodel
//     calibrate` reads it: each link class's ping-pong at link_probe_bytes() and one core's reduce
//     and copy rates (machine_probes.h). Each class gets the two-segment fit (latency from the
//     small sizes, bandwidth from the large sizes' slope: model/link_fit.h), the whole a measured
//     machine (model/measured_machine.h), and each candidate's price is model::plan_cost() of the
//     specification's plan (spec/) on it: the steps, peers and bytes the transport runs, with the
//     shared-cores rule for ranks that share a core.
//  2. A race settles a close call. Every candidate priced within RacePolicy::kCloseRatio of the
//     cheapest takes turns with it on the real wire and the lowest median wins (Sweep::auto_pick,
//     statistics/race.h; rank 0 decides and every rank follows); when none is that close, the
//     cheapest is picked unraced.
// Without a model (one rank, or a link test that gives no bandwidth), every allowed candidate
// races. naive, the foil ((N-1) x the data per rank), is a candidate only up to
// kNaiveLargestBytes. The crossover summary then reports the regret: how much slower the pick was
// than the measured winner at each size, where the intervals separate.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "exchange_ladder.h"
#include "model/cluster.h"
#include "model/link_fit.h"
#include "segment_choice.h"
#include "transport/algorithm.h"
#include "transport/data_type.h"

namespace ringbench {

class Communicator;

// The largest size at which naive, the foil, may be picked (issue 13's bound for auto).
inline constexpr uint64_t kNaiveLargestBytes = 64 << 10;

// When auto races and for how long: named here, printed in the header, documented in
// docs/algorithms.md. The race takes turns of kCallsPerTurn calls, so a slow phase of a noisy
// machine hits both alike; from the kMinTurns-th turn on, a candidate whose interval lies wholly
// above the leader's leaves; it ends with one left, after kMaxTurns turns, or once --max-time is
// spent, and the lowest median wins.
struct RacePolicy {
  // A candidate races the model's cheapest when priced within this ratio of it. The model's
  // ranking of two algorithms at one size, (predicted a / predicted b) / (measured a / measured b),
  // was off by a factor of 1.15 at the median, 1.43 at the 90th percentile and 1.82 at worst
  // (scripts/predict-check.sh, quiet 2-core Xeon, 135 pairs: docs/algorithms.md): a call closer
  // than this is the wire's to make.
  static constexpr double kCloseRatio = 1.5;
  // A candidate priced beyond the close ratio races too when ruling it out is cheap: its first
  // kMinTurns turns, at its price, cost at most this share of the size's --max-time. The model's
  // prices are least sure where calls are short (per-step costs of a few us, a machine whose
  // state moves between runs: docs/algorithms.md), and there a race of every candidate costs
  // milliseconds; at large sizes, where one call is tens of ms, the close ratio alone decides.
  static constexpr double kCheapShareOfMaxTime = 0.1;
  // No candidate can leave before its turns give an interval (race.h: each turn is a block), so
  // the race looks at its standings from the turn that can first give one:
  // stats::min_blocks_for_interval(), 6 at 95% (checked by auto_test).
  static constexpr int kMinTurns = 6;
  static constexpr int kMaxTurns = 25;
  static constexpr int kCallsPerTurn = 4;

  // The most a candidate may be priced per call and still be cheap to rule out: its first
  // kMinTurns turns within kCheapShareOfMaxTime of `max_seconds` (0 when there is no budget).
  static constexpr double cheap_to_rule_out_us(double max_seconds) {
    return kCheapShareOfMaxTime * max_seconds * 1e6 / (kMinTurns * kCallsPerTurn);
  }
};

// The machine auto prices on, as rank 0 measured it.
struct AutoMachine {
  std::optional<model::Cluster> machine;   // empty: no model (see why)
  std::vector<model::LinkClassFit> fits;   // per link class, for the header line
  double reduce_GBps = 0, copy_GBps = 0;   // one core's
  std::string why;                         // empty, or why there is no model
};

// Collective: every rank calls it, the link test and probes run on rank 0 and its partners; the
// result is rank 0's (the others get an empty AutoMachine, and follow rank 0's picks).
// `ladder`: the run's exchange ladder (exchange_ladder.h), rank 0's, measured at start-up; its
// chunks join auto's own, so that auto reads the copy rate of the run's large messages off the
// same curve topomodel calibrate fits, instead of holding its 1 MiB rate flat beyond.
AutoMachine measure_auto_machine(Communicator& comm, std::span<const int> host_of_rank, DataType dtype, ReduceOp op,
                                 std::span<const ExchangePoint> ladder = {});

// Each candidate's predicted time in us, aligned with `candidates`: model::plan_cost() of its
// specification's plan on `machine`; +infinity for one auto may not pick at this size (naive above
// kNaiveLargestBytes) or that has no specification.
// Each is priced with the segment it would run with (`segments`).
std::vector<double> price_candidates(const std::vector<const Algorithm*>& candidates, const model::Cluster& machine,
                                     std::span<const int> host_of_rank, size_t count, size_t element_bytes, int root,
                                     uint64_t piece_bytes, const SegmentChoice& segments = {});

// Indices into `candidates` of those auto runs at `bytes`, cheapest first: with prices, the
// cheapest, every other priced within RacePolicy::kCloseRatio of it, and every other whose
// ruling out costs at most RacePolicy::kCheapShareOfMaxTime of `max_seconds` (0: no time budget,
// so the ratio alone); without (empty `predicted_us`), every candidate auto may pick. Never empty
// when some candidate may be picked.
std::vector<size_t> contenders(const std::vector<const Algorithm*>& candidates, std::span<const double> predicted_us,
                               uint64_t bytes, double max_seconds);

}  // namespace ringbench
