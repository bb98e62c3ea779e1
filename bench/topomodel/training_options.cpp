#include "training_options.h"

#include <fmt/format.h>

#include "model/error.h"
#include "model/input_limits.h"
#include "sizes.h"

namespace ringbench::topomodel {

void TrainingOptions::add_to(CLI::App& command, bool model_required) {
  auto* m = command.add_option("--model", model, "workload: gpt3-175b, llama2-70b, llama3-405b, mixtral-8x7b, "
                                                  "megatron-162b, or a .json file (see model/workloads/)");
  if (model_required) m->required();
  command.add_option("--global-batch", global_batch, "sequences per step (default 1536)")
      ->check(integer_in(1, model::limits::kMaxGlobalBatch));
  command.add_option("--micro-batch", micro_batch, "sequences per micro-batch")
      ->capture_default_str()
      ->check(integer_in(1, model::limits::kMaxMicroBatch));
  command.add_option("--virtual-stages", virtual_stages, "interleaved schedule: model chunks per GPU (1 = 1F1B)")
      ->capture_default_str()
      ->check(integer_in(1, model::limits::kMaxVirtualStages));
  command.add_option("--recompute", recompute, "activation recomputation: none, selective, full")->capture_default_str();
  command.add_flag("--sequence-parallel", sequence_parallel, "TP as reduce-scatter + all-gather, activations split");
  command.add_flag("--distributed-optimizer", distributed_optimizer, "shard optimizer state over DP (RS + AG)");
  command.add_flag("--free-stage-inputs", free_stage_inputs,
                   "free each pipeline stage's input after its forward (Llama 3; not with full recompute)");
  command.add_flag("--no-dp-overlap", no_dp_overlap, "gradient reduction after the backward pass, fully exposed");
  command.add_option("--zero-stage", zero_stage, "shard over DP: 1 optimizer, 2 + gradients, 3 + weights (FSDP)")
      ->capture_default_str()
      ->check(integer_in(0, 3));
  command.add_option("--stage-layers", stage_layers, "layers of each pipeline stage (pp values summing to the layers)")
      ->check(integer_in(1, model::limits::kMaxLayers));
  command.add_option("--lighter-edge-stages", lighter_edge_stages, "this many layers fewer on the first and last stage")
      ->capture_default_str()
      ->check(integer_in(0, model::limits::kMaxLayers));
  command.add_option("--round-microbatches", round_microbatches,
                     "interleaving: micro-batches per round (Llama 3's N; 0 = pp, Megatron's)")
      ->capture_default_str()
      ->check(integer_in(0, model::limits::kMaxGlobalBatch));
  command.add_option("--main-grad-bytes", main_grad_bytes,
                     "bytes per main gradient, held, accumulated and DP-reduced (default 4, fp32; Megatron-LM "
                     "2021's --fp16 runs: 2)")
      ->check(integer_in(1, static_cast<int>(model::limits::kMaxBytesPerValue)));
}

model::Transformer TrainingOptions::workload() const {
  model::Transformer m = model::resolve_workload(model);
  if (main_grad_bytes > 0) m.grad_reduce_bytes = main_grad_bytes;  // the DP reduction carries them
  return m;
}

model::TrainingConfig TrainingOptions::config() const {
  model::TrainingConfig c;
  // The flags' validators have checked every value given; 0 is only ever "not given", which
  // keeps TrainingConfig's default.
  if (global_batch > 0) c.global_batch = global_batch;
  c.micro_batch = micro_batch;
  c.virtual_stages = virtual_stages;
  c.recompute = model::parse_recompute(recompute);
  c.sequence_parallel = sequence_parallel;
  c.distributed_optimizer = distributed_optimizer;
  c.zero_stage = zero_stage;
  c.stage_layers = stage_layers;
  c.lighter_edge_stages = lighter_edge_stages;
  c.round_microbatches = round_microbatches;
  c.dp_overlap = !no_dp_overlap;
  c.free_stage_inputs = free_stage_inputs;
  if (main_grad_bytes > 0) c.grad_bytes = main_grad_bytes;
  return c;
}

}  // namespace ringbench::topomodel
