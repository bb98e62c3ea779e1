#pragma once
// The bucketed, overlapped data-parallel step that `ringbench --workload ddp` measures (issue 17),
// as a timeline:
//
//   backward   L layers in reverse order, each taking c; layer j (1-based, in backward order) ends
//              at j c, and the gradients it produced are then final
//   buckets    the gradient bytes, in reverse layer order, cut into buckets of B bytes (the last
//              one holds the rest): bucket k holds bytes [k B, min((k+1) B, G)), so a bucket may
//              end inside a layer, and a layer smaller than B shares its bucket with the next
//   ready_k    = the end of the layer that holds bucket k's last byte
//   start_k    = max(ready_k, end_{k-1}): one progress engine runs the all-reduces in issue order
//   end_k      = start_k + all-reduce time of bucket k's bytes (the CostModel's, so each bucket
//              pays the per-call launch overhead and latency steps: tiny buckets add up)
//   step       = max(L c, end of the last bucket)
//
// and the figures ringbench's /workloads table reports, with the same meanings:
//
//   compute_us        L c, the backward pass alone
//   comm_alone_us     the sum of the buckets' all-reduce times, communication with nothing to hide it
//   exposed_comm_us   step - compute: communication the backward pass did not hide
//   overlap_fraction  1 - exposed / comm_alone: the share of communication hidden
//
// Buckets too small pay the per-call cost once per bucket; buckets too large start late, and the
// last one (ready only when the backward pass ends) is exposed whole. Between the two lies the
// best bucket, which bucket_sweep marks.
//
// Pure computation; safe from any thread as long as each thread uses its own CostModel.

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "collective.h"
#include "cluster.h"
#include "collective_cost.h"

namespace ringbench::model {

// The DDP-style synthetic workload: the defaults are issue 17's (128 MiB of float32 gradients
// over 32 equal layers), the same as ringbench --workload ddp's.
struct DdpWorkload {
  uint64_t grad_bytes = uint64_t{128} << 20;
  int layers = 32;
  uint64_t bucket_bytes = 0;  // set per step (bucket_sweep sets each size in turn)
  // Backward compute per layer. Empty: balanced, each layer takes the all-reduce time of its own
  // gradients, as ringbench's default does.
  std::optional<double> compute_us_per_layer;
};

// Buckets the timeline holds at most (a bucket of 1 byte over 1 EB would never end).
inline constexpr uint64_t kMaxBuckets = uint64_t{1} << 20;

struct BucketTimes {
  uint64_t bytes = 0;
  int ready_layer = 0;  // layers done (backward order) when its gradients are all final
  double ready_us = 0, start_us = 0, end_us = 0, comm_us = 0;
};

struct BucketedStep {
  uint64_t grad_bytes = 0;
  int layers = 0;
  uint64_t bucket_bytes = 0;
  double compute_us_per_layer = 0;
  uint64_t buckets = 0;
  double compute_us = 0;
  double comm_alone_us = 0;
  double step_us = 0;
  double exposed_comm_us = 0;
  double overlap_fraction = 0;
  std::vector<BucketTimes> timeline;  // one entry per bucket, in issue order
};

// The all-reduce time of one bucket of `bytes`, in us.
using AllReduceTime = std::function<double(uint64_t bytes)>;

// The timeline above for `compute_us_per_layer` per layer (InputError on zero layers or bytes, a
// negative compute time, or more than kMaxBuckets buckets, naming --grad-bytes, --layers,
// --bucket-bytes or --compute-ms). Calls `allreduce_us` once per distinct bucket size.
BucketedStep bucketed_step(uint64_t grad_bytes, int layers, uint64_t bucket_bytes, double compute_us_per_layer,
                           const AllReduceTime& allreduce_us);

// The DDP workload with any pricing of one bucket's all-reduce; balanced (w without compute) means
// each layer takes allreduce_us of its own gradients. InputError as bucketed_step's.
BucketedStep ddp_step(const AllReduceTime& allreduce_us, const DdpWorkload& w);

// One float32 bucket's all-reduce on a measured machine (a cluster with host_cpu, as `topomodel
// calibrate` writes), priced as `topomodel predict` prices ringbench's rows: the specification's
// plan under plan_cost.h's one rule, shared cores included, the world's ranks placed on the
// machine's hosts in blocks. `algorithm` is ringbench's name (the model's "halving-doubling" is
// ringbench's "rhd"), or "auto" for the fastest of them; InputError naming --algo otherwise.
// grad_bytes: the gradient buffer every bucket is a slice of (PlanCall::resident_bytes).
AllReduceTime measured_machine_allreduce(const Cluster& machine, std::string_view algorithm, int world_size,
                                         uint64_t grad_bytes);

// The DDP workload on `batch` (every group all-reduces its own gradients at once; one data-parallel
// group of the whole job, usually) with `algorithm`, or the fastest one per bucket size when
// `algorithm` is empty (auto). InputError when the algorithm cannot run on the batch.
BucketedStep ddp_step(CostModel& model, const Batch& batch, std::optional<Algorithm> algorithm, const DdpWorkload& w);

// ddp_step for each bucket size, in the order given; the index of the fastest step (first on a tie).
struct BucketSweep {
  std::vector<BucketedStep> steps;
  size_t best = 0;
};
BucketSweep bucket_sweep(CostModel& model, const Batch& batch, std::optional<Algorithm> algorithm, DdpWorkload w,
                         const std::vector<uint64_t>& bucket_sizes);
// The same with any pricing of one bucket's all-reduce (a measured machine's: plan_cost.h).
BucketSweep bucket_sweep(const AllReduceTime& allreduce_us, DdpWorkload w, const std::vector<uint64_t>& bucket_sizes);

}  // namespace ringbench::model
