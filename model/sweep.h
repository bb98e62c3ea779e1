#pragma once
// The placement sweep: for a cluster, a GPU count and what a training step communicates, every
// valid (TP, PP, DP, rank order) with its per-step collective times, best first.
//
// Per step, with every group of a kind communicating at the same moment (collective_cost.h):
//   TP  all-reduce of tp_bytes,      tp_per_step times on the critical path
//   DP  gradient all-reduce of dp_bytes, dp_per_step times (not overlapped in part 1)
//   PP  send/recv of pp_bytes across every stage boundary, pp_per_step times
//   CP  all-gather of cp_bytes, EP all-to-all of ep_bytes, when those dimensions are used
//   step_comm_us = sum of count x time, with the fastest algorithm for each batch ("auto").
//
// Workload is the seam for issue 7: part 1's MessageWorkload takes message sizes from the
// command line; a transformer workload derives them (and memory fit) from the model instead.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "collective_cost.h"
#include "placement.h"

namespace ringbench::model {

struct StepTraffic {
  uint64_t tp_bytes = 0;
  double tp_per_step = 0;
  uint64_t dp_bytes = 0;
  double dp_per_step = 0;
  uint64_t pp_bytes = 0;
  double pp_per_step = 0;
  uint64_t cp_bytes = 0;
  double cp_per_step = 0;
  uint64_t ep_bytes = 0;
  double ep_per_step = 0;
  // Issue 7's transformer workload (step.h) sets these; part 1's MessageWorkload leaves them off.
  bool tp_sequence_parallel = false;  // each TP all-reduce is a reduce-scatter + all-gather of tp_bytes
  bool dp_sharded = false;            // DP is a reduce-scatter of gradients + all-gather of parameters
  uint64_t dp_bucket_bytes = 0;       // > 0: also cost one bucket's DP reduction (overlap model)
  // > 0: Megatron's scatter/gather p2p. Each TP rank sends pp_bytes (its 1/tp slice) and the
  // receiving stage all-gathers the slices over its TP group (gather_split_1d_tensor) before it
  // can compute: one TP all-gather of pp_gather_bytes per receive, on the critical path.
  uint64_t pp_gather_bytes = 0;
};

class Workload {
 public:
  virtual ~Workload() = default;
  // Whether the placement is allowed at all; if not, `why` says which constraint it breaks.
  virtual bool fits(const Placement& p, std::string& why) const = 0;
  virtual StepTraffic traffic(const Placement& p) const = 0;
};

// Part 1's workload: fixed message sizes, Megatron-style counts.
//   TP: 4 all-reduces per layer per micro-batch (2 forward, 2 backward), layers/pp layers per GPU.
//   DP: one all-reduce of gradient_bytes / (tp x pp) per step.
//   PP: per boundary, one activation forward and one gradient backward per micro-batch.
struct MessageWorkload : Workload {
  uint64_t tp_bytes = 0;        // one TP all-reduce (micro-batch x sequence x hidden x bytes)
  uint64_t gradient_bytes = 0;  // the whole model's gradients (params x bytes per gradient)
  uint64_t pp_bytes = 0;        // one activation between stages
  uint64_t cp_bytes = 0;        // one CP all-gather (per layer per micro-batch)
  uint64_t ep_bytes = 0;        // one EP all-to-all (2 per layer per micro-batch, each way)
  int layers = 1;
  int microbatches = 1;
  int max_tp = 0;  // 0: no limit (e.g. set it to the number of attention heads)

  bool fits(const Placement& p, std::string& why) const override;
  StepTraffic traffic(const Placement& p) const override;
};

struct PlacementResult {
  Placement placement;
  StepTraffic traffic;
  // The fastest algorithm for each batch, and every algorithm (in algorithms_for order).
  CollectiveCost tp, dp, pp, cp, ep;
  // With tp_sequence_parallel, tp.time_us is reduce-scatter + all-gather (tp.algorithm the
  // reduce-scatter's); with dp_sharded, dp is the gradient reduce-scatter and dp_gather the
  // parameter all-gather; dp_bucket is one bucket's reduction (all-reduce or reduce-scatter).
  CollectiveCost dp_gather, dp_bucket;
  CollectiveCost pp_gather;  // the TP all-gather after each scatter/gather receive (pp_gather_bytes)
  std::vector<CollectiveCost> tp_each, dp_each;
  int tp_islands = 1;        // islands one TP group spans
  double step_comm_us = 0;   // with the fastest algorithm per batch
};

// Step communication time if every all-reduce had to use `algorithm` (nullopt if it cannot run
// one of them, e.g. nvls on a cluster without in-switch reduction).
std::optional<double> step_comm_us_with(const PlacementResult& r, Algorithm algorithm);

struct SweepOptions {
  int cp = 1, ep = 1;            // fixed factors (0 would be invalid)
  std::vector<std::string> orders;  // empty: every distinct order of the dimensions in use
};

// Every placement of `gpus` GPUs that the workload allows, best (smallest step_comm_us) first.
// InputError if `gpus` exceeds the cluster or no placement fits.
std::vector<PlacementResult> sweep(CostModel& model, const Workload& workload, int gpus,
                                   const SweepOptions& options = {});

// One placement, costed the same way.
PlacementResult evaluate(CostModel& model, const Workload& workload, const Placement& placement);

}  // namespace ringbench::model
