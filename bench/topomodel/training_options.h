#pragma once
// --model and the training flags shared by `topomodel step` and `topomodel sweep --model`.

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "model/step.h"
#include "model/workload.h"

namespace ringbench::topomodel {

struct TrainingOptions {
  std::string model;  // preset or .json; empty: sweep uses part 1's message workload
  int global_batch = 0;  // 0: not given, TrainingConfig's default (--global-batch rejects 0)
  int micro_batch = 1;
  int virtual_stages = 1;
  std::string recompute = "full";
  bool sequence_parallel = false;
  bool distributed_optimizer = false;
  int zero_stage = 0;                // --zero-stage (0-3; 3 = FSDP-style)
  std::vector<int> stage_layers;     // --stage-layers: layers per pipeline stage
  int lighter_edge_stages = 0;       // --lighter-edge-stages
  int round_microbatches = 0;        // --round-microbatches (0: pp)
  bool no_dp_overlap = false;
  bool free_stage_inputs = false;    // --free-stage-inputs
  int main_grad_bytes = 0;           // --main-grad-bytes (0: not given, fp32 4)

  void add_to(CLI::App& command, bool model_required);
  model::Transformer workload() const;
  model::TrainingConfig config() const;  // InputError naming the flag on bad values
};

}  // namespace ringbench::topomodel
