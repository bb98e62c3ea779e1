// Compute from shapes (compute.h) and memory by ZeRO stage, pipeline stage and schedule (step.h),
// on hand-computed cases with the hand-sized test GPU (100 SMs, 100 TFLOP/s, 1000 GB/s, mainloop
// efficiency 0.5, 4 us per kernel).

#include <gtest/gtest.h>

#include "model/compute.h"
#include "model/error.h"
#include "model/gemm.h"
#include "model/published_runs.h"
#include "model/step.h"
#include "tiny_cluster.h"

namespace ringbench::model {
namespace {

using testing::tiny_gpt;

Placement tp(int t, int pp = 1, int dp = 1) {
  Placement p;
  p[Dim::TP] = t;
  p[Dim::PP] = pp;
  p[Dim::DP] = dp;
  return p;
}

TEST(Compute, EveryGemmRunsOnceForwardAndTwiceBackwardWithTheTransposedShapes) {
  const GemmGpu gpu = gemm_gpu("test");
  const Transformer m = tiny_gpt();
  const MicroBatchCompute none = micro_batch_compute(gpu, m, {1, Recompute::None, false}, tp(2));
  // QKV: C (100 x 1500) = A (100 x 1000) B (1000 x 1500); dA (100, 1000, 1500); dB (1000, 1500, 100).
  const double forward = estimate_gemm(gpu, 100, 1500, 1000).time_us;
  const double backward = estimate_gemm(gpu, 100, 1000, 1500).time_us + estimate_gemm(gpu, 1000, 1500, 100).time_us;
  EXPECT_NEAR(none.layer.qkv_us, forward + backward, 1e-9);
  // Full recomputation runs each forward GEMM once more.
  const MicroBatchCompute full = micro_batch_compute(gpu, m, {1, Recompute::Full, false}, tp(2));
  EXPECT_NEAR(full.layer.qkv_us, 2 * forward + backward, 1e-9);
  // Selective recomputation repeats only the attention core: flash forward = 1 of (2 + 2.5).
  const MicroBatchCompute selective = micro_batch_compute(gpu, m, {1, Recompute::Selective, false}, tp(2));
  EXPECT_NEAR(selective.layer.qkv_us, none.layer.qkv_us, 1e-12);
  EXPECT_NEAR(selective.layer.attention_us / none.layer.attention_us, 4.5 / 3.5, 1e-12);
}

TEST(Compute, ElementwiseKernelsAreBytesOverHbmPlusAKernelFloorEach) {
  const MicroBatchCompute c = micro_batch_compute(gemm_gpu("test"), tiny_gpt(), {1, Recompute::None, false}, tp(2));
  // 100 tokens: h-wide 100 x (1000 x 10 x 2 + 2 x 1000 mask bytes) = 2.2e6 bytes; GeLU reads and
  // writes f/tp = 2000 x 2 bytes per token: 8e5. 3e6 bytes at 1000 GB/s = 3 us + 5 kernels x 4 us
  // forward; backward twice the bytes: 6 + 20 us.
  EXPECT_NEAR(c.layer.elementwise_us, 23 + 26, 1e-9);
  // Gradient accumulation: (12 h^2 + 13 h) / tp parameters x 10 bytes / 1000 GB/s + 4 kernels.
  EXPECT_NEAR(c.layer.grad_accumulation_us, (12e6 + 13e3) / 2 * 10 / 1e12 * 1e6 + 16, 1e-9);
  // fp16 main gradients (Megatron-LM 2021's sc21 runs): 2 + 2 x 2 = 6 bytes per parameter.
  const MicroBatchCompute fp16 =
      micro_batch_compute(gemm_gpu("test"), tiny_gpt(), {1, Recompute::None, false, 2}, tp(2));
  EXPECT_NEAR(fp16.layer.grad_accumulation_us, (12e6 + 13e3) / 2 * 6 / 1e12 * 1e6 + 16, 1e-9);
  // Sequence parallelism splits the h-wide ones over tp: 1.1e6 + 8e5 bytes.
  const MicroBatchCompute sp = micro_batch_compute(gemm_gpu("test"), tiny_gpt(), {1, Recompute::None, true}, tp(2));
  EXPECT_NEAR(sp.layer.elementwise_us, 1.9 + 20 + 3.8 + 20, 1e-9);
}

TEST(Compute, FlashAttentionInOneWaveCostsItsLongestQueryBlock) {
  const GemmGpu gpu = gemm_gpu("test");
  // 5 heads x 1 query block of 128 <= 100 SMs: one key/value block step of 4 x 128 x 128 x 100
  // FLOPs at 100e12 / 100 SMs x 0.5 = 13.1072 us, + 4 us.
  EXPECT_NEAR(attention_time_us(gpu, 5, 100, 100, true), 13.1072 + 4, 1e-9);
  // Non-causal with 2 query blocks: every block steps over both key/value blocks.
  EXPECT_NEAR(attention_time_us(gpu, 5, 256, 100, false), 2 * 13.1072 + 4, 1e-9);
  // Causal: the second query block does 2 steps, the first 1: still one wave, 2 steps.
  EXPECT_NEAR(attention_time_us(gpu, 5, 256, 100, true), 2 * 13.1072 + 4, 1e-9);
  // 200 heads of one block: two waves.
  EXPECT_NEAR(attention_time_us(gpu, 200, 100, 100, true), 2 * 13.1072 + 4, 1e-9);
}

TEST(Compute, OptimizerStepIsAdamBytesOverHbm) {
  EXPECT_NEAR(optimizer_time_us(gemm_gpu("test"), 1e9), 1e9 * 34 / 1e12 * 1e6 + 4, 1e-9);
}

TEST(Memory, UnevenStagesFromALighterFirstAndLastOrAnExplicitList) {
  const Transformer m = workload_preset("llama3-405b");
  TrainingConfig c;
  c.lighter_edge_stages = 1;
  const std::vector<int> layers = stage_layers(m, c, 16);
  ASSERT_EQ(layers.size(), 16u);
  EXPECT_EQ(layers.front(), 7);
  EXPECT_EQ(layers.back(), 7);
  for (size_t i = 1; i + 1 < layers.size(); ++i) EXPECT_EQ(layers[i], 8);
  c.global_batch = 2048;
  std::string why;
  EXPECT_TRUE(divisible(m, c, tp(8, 16, 64), why)) << why;
  c.lighter_edge_stages = 0;  // 126 layers do not divide over 16 even stages
  EXPECT_FALSE(divisible(m, c, tp(8, 16, 64), why));
  c.stage_layers = {62, 64};
  EXPECT_TRUE(divisible(m, c, tp(8, 2, 512), why)) << why;
  c.stage_layers = {62, 63};
  EXPECT_FALSE(divisible(m, c, tp(8, 2, 512), why));
  EXPECT_NE(why.find("stage layers"), std::string::npos) << why;
}

TEST(Memory, ZeroStagesShardOptimizerThenGradientsThenWeightsOverDataParallel) {
  const Transformer m = workload_preset("gpt3-175b");
  TrainingConfig c;
  const Placement p = tp(8, 8, 16);
  const GpuSpec a100 = gpu_spec("A100");
  MemoryUse u[4];
  for (int z = 0; z < 4; ++z) {
    c.zero_stage = z;
    u[z] = memory_use(m, c, p, a100);
  }
  // The first stage: 12 layers / tp + the embedding (vocab x h / tp) + learned positions (s x h).
  const double params = 12 * m.layer_params() / 8 + 51200.0 * 12288 / 8 + 2048.0 * 12288;
  EXPECT_EQ(u[0].stage, 0);
  EXPECT_NEAR(u[0].optimizer_GB, params * 12 / 1e9, 1e-9);
  EXPECT_NEAR(u[1].optimizer_GB, params * 12 / 16 / 1e9, 1e-9);
  EXPECT_NEAR(u[1].grads_GB, params * 4 / 1e9, 1e-9);
  EXPECT_NEAR(u[2].grads_GB, params * 4 / 16 / 1e9, 1e-9);
  EXPECT_NEAR(u[2].weights_GB, params * 2 / 1e9, 1e-9);
  EXPECT_NEAR(u[3].weights_GB, (params * 2 / 16 + 2 * m.layer_params() / 8 * 2) / 1e9, 1e-9);
  for (int z = 1; z < 4; ++z) EXPECT_LT(u[z].total_GB, u[z - 1].total_GB);
  c.zero_stage = 0;
  c.distributed_optimizer = true;  // the old flag is stage 1
  EXPECT_NEAR(memory_use(m, c, p, a100).total_GB, u[1].total_GB, 1e-9);
}

TEST(Memory, OneFOneBKeepsPMicroBatchesOnTheFirstStageAndInterleavingMore) {
  const Transformer m = workload_preset("gpt3-175b");
  TrainingConfig c;  // full recomputation, batch 1536
  const MemoryUse plain = memory_use(m, c, tp(8, 8, 16), gpu_spec("A100"));
  EXPECT_EQ(plain.stage, 0);
  EXPECT_DOUBLE_EQ(plain.in_flight_layers, 8 * 12);  // p = 8 micro-batches of 12 layers
  c.virtual_stages = 2;  // Megatron's warm-up: 2 (p-1) + (v-1) p + 1 = 23 chunks of 6 layers
  EXPECT_DOUBLE_EQ(memory_use(m, c, tp(8, 8, 16), gpu_spec("A100")).in_flight_layers, 23 * 6);
}

// Llama 3 405B as published (Sec. 3.3: TP8 PP16, 126 layers as 7, 14 x 8, 7, no recomputation,
// sequence parallel, FSDP = ZeRO-2 in memory, 8 virtual stages): stage 1 keeps 2 (16-2) + 7 x 16
// + 1 = 141 one-layer chunks, each 8192 tokens x (4h x 2 + (2h + 2 kv + 3f) x 2) / 8 bytes.
TEST(Memory, Llama3PublishedConfigurationIsExpressibleAndItsActivationsAreCountedPerStage) {
  const Transformer m = workload_preset("llama3-405b");
  TrainingConfig c;
  c.global_batch = 2048;
  c.virtual_stages = 8;
  c.recompute = Recompute::None;
  c.sequence_parallel = true;
  c.zero_stage = 2;
  c.lighter_edge_stages = 1;
  std::string why;
  ASSERT_TRUE(divisible(m, c, tp(8, 16, 64), why)) << why;
  const MemoryUse u = memory_use(m, c, tp(8, 16, 64), gpu_spec("H100"));
  const double per_layer = 8192.0 * (4 * 16384 * 2 + (2 * 16384 + 2 * 1024 + 3 * 53248) * 2) / 8;
  EXPECT_EQ(u.stage, 1);
  EXPECT_DOUBLE_EQ(u.in_flight_layers, 141);
  EXPECT_NEAR(u.activations_GB, 141 * per_layer / 1e9, 1e-9);
  // Llama 3's schedule sets N, the micro-batches per round, freely (Sec. 3.3.2); Megatron's is N = pp.
  // Usable is 92% of the H100's 81,559 MiB (85.5 GB). N = 15: 2 (16-2) + 7 x 15 + 1 = 134 chunks,
  // the largest N that fits; N = 16 (Megatron's) needs 82.3 GB, inside the device but over 92%.
  TrainingConfig n = c;
  n.round_microbatches = 14;
  const MemoryUse u14 = memory_use(m, n, tp(8, 16, 64), gpu_spec("H100"));
  EXPECT_DOUBLE_EQ(u14.in_flight_layers, 127);
  EXPECT_TRUE(u14.fits()) << u14.total_GB;
  n.round_microbatches = 16;
  EXPECT_DOUBLE_EQ(memory_use(m, n, tp(8, 16, 64), gpu_spec("H100")).total_GB, u.total_GB);
  EXPECT_FALSE(u.fits()) << u.total_GB;
  EXPECT_LT(u.total_GB, gpu_spec("H100").memory_GB);
  // 16,384 GPUs: 16 micro-batches per pipeline cap the warm-up at m v = 128 chunks, and it fits.
  const MemoryUse u16k = memory_use(m, c, tp(8, 16, 128), gpu_spec("H100"));
  EXPECT_DOUBLE_EQ(u16k.in_flight_layers, 128);
  EXPECT_TRUE(u16k.fits()) << u16k.total_GB;
  // Llama 3 frees each stage's input once its forward has used it (Sec. 3.3.2): 141 chunk inputs
  // of 8192 tokens x h x 2 bytes / tp 8 fewer, and the published configuration fits.
  TrainingConfig freed = c;
  freed.free_stage_inputs = true;
  const MemoryUse f = memory_use(m, freed, tp(8, 16, 64), gpu_spec("H100"));
  EXPECT_NEAR(f.activations_GB, u.activations_GB - 141 * 8192.0 * 16384 * 2 / 8 / 1e9, 1e-9);
  EXPECT_TRUE(f.fits()) << f.total_GB;
  // Under full recomputation the stage input is the checkpoint: nothing is freed.
  freed.recompute = c.recompute = Recompute::Full;
  EXPECT_DOUBLE_EQ(memory_use(m, freed, tp(8, 16, 64), gpu_spec("H100")).total_GB,
                   memory_use(m, c, tp(8, 16, 64), gpu_spec("H100")).total_GB);
  std::printf("Llama 3 405B, 8192 H100: %.1f GB (weights %.1f, grads %.1f, optimizer %.1f, activations %.1f) of %.1f; "
              "stage inputs freed: %.1f GB (activations %.1f)\n",
              u.total_GB, u.weights_GB, u.grads_GB, u.optimizer_GB, u.activations_GB, u.usable_GB, f.total_GB,
              f.activations_GB);
}

// Negative check (derivable): GPT-3 175B at tp8 pp8 without recomputation, sequence parallelism or
// flash attention keeps 8 micro-batches x 12 layers x (34 + 5 a s / h / ... ) s b h bytes: about 55
// GB of activations on top of 51 GB of state, more than an 80 GB A100. Megatron-LM recomputed for
// this reason (Narayanan et al. 2021, eq. 3; Korthikanti et al. 2022, Sec. 1).
TEST(Memory, Gpt3WithoutRecomputationDoesNotFitAnA100) {
  const Transformer m = workload_preset("gpt3-175b");
  TrainingConfig c;
  c.recompute = Recompute::None;
  c.grad_bytes = 2;  // fp16 main gradients, as Megatron-LM's sc21 runs (examples/sc21/CONFIG.sh)
  c.free_stage_inputs = true;  // freeing the stage inputs does not rescue it either
  const MemoryUse u = memory_use(m, c, tp(8, 8, 16), gpu_spec("A100"));
  EXPECT_FALSE(u.fits()) << u.total_GB;
  EXPECT_GT(u.total_GB, 80.0);
  c.recompute = Recompute::Full;
  EXPECT_TRUE(memory_use(m, c, tp(8, 8, 16), gpu_spec("A100")).fits());
  // validate carries the same check.
  const NegativeMemoryCheck n = negative_memory_check();
  EXPECT_TRUE(n.pass()) << n.memory.total_GB;
  EXPECT_NEAR(n.memory.total_GB, u.total_GB, 1e-9);
}

// GPU memory is the driver's total, not the marketing "80 GB" read as 80e9 bytes: nvidia-smi shows
// 81,920 MiB on an A100 80 GB and 81,559 MiB on an H100 80 GB HBM3 (modal-labs/modal-client#2797).
TEST(Memory, CapacityIsTheDriversTotalInMiB) {
  EXPECT_NEAR(gpu_spec("A100").memory_GB, 81920 * 1048576.0 / 1e9, 1e-9);
  EXPECT_NEAR(gpu_spec("H100").memory_GB, 81559 * 1048576.0 / 1e9, 1e-9);
  EXPECT_GT(gpu_spec("H100").memory_GB, 85.0);  // about 85.5 GB: 7% more than 80e9 bytes
  const TrainingConfig c;
  const MemoryUse u = memory_use(workload_preset("gpt3-175b"), c, tp(8, 8, 16), gpu_spec("H100"));
  EXPECT_NEAR(u.usable_GB, gpu_spec("H100").memory_GB * c.usable_memory_fraction, 1e-9);
}

}  // namespace
}  // namespace ringbench::model
