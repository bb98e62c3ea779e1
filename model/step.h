#pragma once
// The training-step model: a transformer (workload.h) on a placement (placement.h) on a cluster,
// turned into step time, throughput, MFU/HFU and memory per GPU.
//
// Per step, for one GPU (N GPUs; m = global_batch / (micro_batch x dp x ep) micro-batches per
// pipeline; v virtual stages per GPU, 1 for 1F1B; stage i holds L_i layers, stage_layers()):
//
//   compute  = m x the slowest stage's micro-batch: max_i (L_i x one layer + logits on the last
//              stage), each operation priced from its shape (compute.h: GEMMs by the GEMM model,
//              attention, HBM-bound element-wise kernels); no fraction fitted on a training run
//   tp       = m x L x (4, or 6 with full recomputation) x one TP all-reduce of b s h bytes
//              (or reduce-scatter + all-gather with sequence parallelism): on the critical path;
//              L = the slowest stage's layers
//   cp       = m x L x (2, 3 with full recomputation) x one CP all-gather of K and V
//   ep       = m x L x (4, 6 with full recomputation) x one EP all-to-all of b s k h bytes
//   pp       = 2 x v x m x (send of b s h / tp bytes + TP all-gather of b s h bytes): Megatron's
//              scatter/gather optimisation sends each TP rank's slice and the receiving stage
//              all-gathers it over its TP group before computing (across nodes when tp > island;
//              none with sequence parallelism, whose activations stay split over TP)
//   busy     = compute + tp + cp + ep + pp
//   bubble   = the pipeline's fill and drain, (sum_i t_i - max_i t_i) / v, t_i = stage i's micro-batch
//              (its layers' compute and collectives, logits on the last, its boundary sends):
//              with even stages (pp-1) / (v m) x busy, i.e. (p-1)/(m+p-1) of the step for 1F1B
//   dp       = gradient all-reduce of the largest stage's parameters / tp x grad_reduce_bytes (or
//              reduce-scatter + all-gather when sharded), bucketed: only buckets finishing after
//              the last micro-batch's backward are exposed:
//                exposed = max(one bucket, dp_reduce - backward of one micro-batch) + all-gather
//              (everything exposed when dp_overlap is off, as with Megatron-LM 2021's local DDP)
//   optimizer = Adam over this GPU's optimizer shard, HBM-bound (compute.h), after the reduction
//   step     = busy + bubble + exposed dp + optimizer
//
// Memory, per pipeline stage (the largest is reported): weights, gradients and optimizer state of
// the stage's parameters (embedding on the first stage, output layer on the last), sharded over
// the data-parallel group by ZeRO stage (1: optimizer; 2: + gradients; 3 / FSDP: + weights, with
// two layers gathered at a time), and the activations that stage keeps: 1F1B keeps p - i
// micro-batches in flight on stage i; interleaving keeps 2(p-i-1) + (v-1)N + 1 model chunks
// (Megatron-LM's warm-up with N = p micro-batches per round; Llama 3 sets N freely), at most m v;
// free_stage_inputs releases each chunk's input.
//
// Every collective is costed with all groups of its kind at the same moment (collective_cost.h),
// with sequential phases for hierarchical algorithms (CostModel::Phases). Not modelled: data
// loading, kernel-level overlap of TP or PP communication with compute, the embedding lookup,
// stragglers.

#include <string>
#include <vector>

#include "collective_cost.h"
#include "compute.h"
#include "placement.h"
#include "sweep.h"
#include "workload.h"

namespace ringbench::model {

struct TrainingConfig {
  int global_batch = 1536;   // sequences per step
  int micro_batch = 1;       // sequences per micro-batch
  int virtual_stages = 1;    // interleaved schedule: model chunks per GPU (1 = plain 1F1B)
  Recompute recompute = Recompute::Full;
  bool sequence_parallel = false;
  bool distributed_optimizer = false;  // ZeRO-1 style: optimizer state sharded over DP
  // ZeRO stage over the data-parallel group: 0 none, 1 optimizer state (= distributed_optimizer),
  // 2 + gradients, 3 + weights (FSDP-style full sharding). sharding_stage() combines the two.
  int zero_stage = 0;
  // Uneven pipeline stages: an explicit list of layers per stage (pp entries summing to the
  // layers), or this many layers fewer on the first and on the last stage than on the others
  // (Llama 3: one each, so 126 layers over 16 stages are 7, 14 x 8, 7). Empty / 0: even.
  std::vector<int> stage_layers;
  int lighter_edge_stages = 0;
  // Interleaved schedule: micro-batches per round through the model chunks (Llama 3's "N", Sec.
  // 3.3.2, "set flexibly" between depth- and breadth-first). 0: pp, Megatron-LM's schedule, which
  // also needs m to be a multiple of pp.
  int round_microbatches = 0;
  // Free each pipeline stage's input once its forward has used it (Llama 3, Sec. 3.3.2: tensors of a
  // stage's input and output that no later computation uses are deallocated; Megatron-LM's
  // deallocate_output_tensor frees the sent copy): one b s h (/ tp with sequence parallelism)
  // fewer per model chunk in flight. Nothing is freed under full recomputation.
  bool free_stage_inputs = false;
  bool dp_overlap = true;               // bucketed gradient reduction overlapped with backward
  double bucket_params = 40e6;          // Megatron-LM's default DDP bucket (40M parameters)
  // Bytes per parameter held (Megatron-LM mixed precision: bf16 weights 2, fp32 main grads 4,
  // fp32 master weights + Adam m and v 12; the distributed optimizer shards the 12 over DP).
  // grad_bytes is also what each micro-batch's gradient accumulation reads and writes (compute.h);
  // Megatron-LM 2021's sc21 runs kept fp16 main grads (2: --fp16 without
  // --accumulate-allreduce-grads-in-fp32) and reduced them in fp16 (Transformer::grad_reduce_bytes).
  double weight_bytes = 2, grad_bytes = 4, optimizer_bytes = 12;
  double usable_memory_fraction = 0.92;  // of HBM, after CUDA context and allocator fragmentation
};

int sharding_stage(const TrainingConfig& c);

struct MemoryUse {
  double weights_GB = 0, grads_GB = 0, optimizer_GB = 0, activations_GB = 0, total_GB = 0;
  double usable_GB = 0;
  int stage = 0;                  // the pipeline stage that needs the most (reported)
  int layers = 0;                 // its layers
  double in_flight_layers = 0;    // layer x micro-batch activations it keeps
  bool fits() const { return total_GB <= usable_GB; }
};

struct StepResult {
  Placement placement;
  TrainingConfig config;
  PlacementResult comm;      // the collectives, as the sweep costs them
  int microbatches = 0;      // m
  double compute_us = 0, tp_us = 0, cp_us = 0, ep_us = 0, pp_us = 0, bubble_us = 0;
  OpTimes compute_ops;       // compute_us by operation class (the slowest stage's layers) ...
  double logits_us = 0;      // ... plus its logits (when it is the last stage)
  int critical_layers = 0;   // the slowest stage's layers
  double optimizer_us = 0;
  double dp_total_us = 0;    // the whole DP reduction (+ gather)
  double dp_exposed_us = 0;
  double step_us = 0;
  double tokens_per_s = 0;
  double model_tflops_per_gpu = 0;     // MFU convention
  double hardware_tflops_per_gpu = 0;  // HFU convention (counts recomputation)
  double mfu = 0, hfu = 0;             // of the GPU's peak
  MemoryUse memory;
};

// Layers of each pipeline stage (uneven with stage_layers or lighter_edge_stages). Assumes
// divisible() holds.
std::vector<int> stage_layers(const Transformer& m, const TrainingConfig& c, int pp);

// Checks that the placement can run the workload at all (heads and layers divisible, batch
// divisible); on failure `why` names the constraint.
bool divisible(const Transformer& m, const TrainingConfig& c, const Placement& p, std::string& why);

MemoryUse memory_use(const Transformer& m, const TrainingConfig& c, const Placement& p, const GpuSpec& gpu);

// The workload the sweep machinery costs: traffic from the transformer; fits() checks divisibility
// and memory and records every rejection.
class TransformerWorkload : public Workload {
 public:
  TransformerWorkload(Transformer m, TrainingConfig c, GpuSpec gpu, bool check_memory = true);
  bool fits(const Placement& p, std::string& why) const override;
  StepTraffic traffic(const Placement& p) const override;

  struct Rejection {
    Placement placement;
    int micro_batch;
    std::string why;
  };
  const std::vector<Rejection>& rejections() const { return rejected_; }

 private:
  Transformer model_;
  TrainingConfig config_;
  GpuSpec gpu_;
  bool check_memory_;
  mutable std::vector<Rejection> rejected_;
};

// One placement's step. The cost model is switched to sequential phases for the call.
// InputError if the placement does not divide the workload (memory is reported, not enforced).
StepResult step(CostModel& model, const Transformer& m, const TrainingConfig& c, const Placement& p);

// The step time of an already-costed placement (no collective costing).
StepResult step_from(const PlacementResult& comm, const Transformer& m, const TrainingConfig& c, const GpuSpec& gpu);
// One micro-batch's compute on the GPU `gpu` names (compute.h).
MicroBatchCompute micro_batch_compute(const Transformer& m, const TrainingConfig& c, const Placement& p,
                                      const GpuSpec& gpu);
// The same with the micro-batch's compute already priced (the sweep prices each (tp, cp, ep) once).
StepResult step_from(const PlacementResult& comm, const Transformer& m, const TrainingConfig& c, const GpuSpec& gpu,
                     const MicroBatchCompute& compute);

struct StepSweep {
  std::vector<StepResult> results;  // fastest step first
  std::vector<TransformerWorkload::Rejection> rejected;
};

// Every (tp, pp, dp, order) x micro-batch in `micro_batches` that divides and fits in memory,
// ranked by step time. InputError if none fits.
StepSweep step_sweep(CostModel& model, const Transformer& m, const TrainingConfig& c, int gpus,
                     const std::vector<int>& micro_batches, const SweepOptions& options = {});

}  // namespace ringbench::model
