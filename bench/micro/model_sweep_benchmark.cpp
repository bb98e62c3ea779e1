// The topology model's placement sweep: every (TP, PP, DP, rank order) of a job with every
// all-reduce algorithm costed for its TP and DP batches. Single-threaded by construction.
//
//   model_sweep_benchmark --benchmark_filter=Sweep

#include <benchmark/benchmark.h>

#include "model/collective_cost.h"
#include "model/presets.h"
#include "model/sweep.h"

namespace {

using namespace ringbench::model;

// GPT-3 175B-like step (96 layers, hidden 12288, sequence 2048, bf16, 16 micro-batches).
MessageWorkload gpt3_like() {
  MessageWorkload w;
  w.tp_bytes = 2048ull * 12288 * 2;
  w.pp_bytes = w.tp_bytes;
  w.gradient_bytes = 175'000'000'000ull * 2;
  w.layers = 96;
  w.microbatches = 16;
  w.max_tp = 64;
  return w;
}

void BM_Sweep(benchmark::State& state, const char* cluster) {
  const int gpus = static_cast<int>(state.range(0));
  const MessageWorkload w = gpt3_like();
  size_t placements = 0;
  for (auto _ : state) {
    CostModel model(with_gpus(preset(cluster), gpus));  // included: a sweep starts from a cluster
    const auto results = sweep(model, w, gpus);
    placements = results.size();
    benchmark::DoNotOptimize(results.data());
  }
  state.counters["placements"] = static_cast<double>(placements);
  state.counters["placements_per_s"] =
      benchmark::Counter(static_cast<double>(placements) * state.iterations(), benchmark::Counter::kIsRate);
}

void BM_AllReduceEveryAlgorithm(benchmark::State& state) {
  const int gpus = static_cast<int>(state.range(0));
  CostModel model(with_gpus(preset("dgx-h100"), gpus));
  Placement p;
  p[Dim::TP] = 8;
  p[Dim::DP] = gpus / 8;
  const Batch batch = model.batch(groups(p, Dim::DP));
  for (auto _ : state) benchmark::DoNotOptimize(model.cost_each(Op::AllReduce, batch, 1'000'000'000).data());
}

BENCHMARK_CAPTURE(BM_Sweep, dgx_h100, "dgx-h100")->Arg(1024)->Arg(16384)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Sweep, dgx_a100, "dgx-a100")->Arg(1024)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Sweep, gb200_nvl72, "gb200-nvl72")->Arg(1152)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AllReduceEveryAlgorithm)->Arg(1024)->Arg(16384)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
