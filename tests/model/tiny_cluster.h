#pragma once
// A hand-sized cluster for tests whose expected values are computed by hand: 2 GPUs per node and
// per island, NVLink 100 GB/s, NICs 400 Gb/s = 50 GB/s, every efficiency 1 and, unless a test
// sets them, no latency at all, so a time is bytes / bandwidth.

#include "model/cluster.h"
#include "model/workload.h"

namespace ringbench::model::testing {

inline Cluster tiny_cluster(int nodes = 2, int nics_per_node = 2) {
  Cluster c;
  c.name = "tiny";
  c.gpu = "test";
  c.nodes = nodes;
  c.gpus_per_node = 2;
  c.scale_up = {ScaleUpKind::NVLink, 2, 100.0, 0.0, false};
  c.nics = {nics_per_node, 400.0, 0.0};
  c.network = {true, 32, 1.0, 0, 1.0, 0.0};
  c.efficiency = {1.0, 1.0, 1.0};
  c.launch_overhead_us = 0.0;
  return c;
}

// 4 layers, hidden 1000, 10 heads, seq 100, vocab 1000, GPT-style (biases, learned positions,
// tied embeddings, dropout), flash attention: small enough to price by hand.
inline Transformer tiny_gpt() {
  Transformer m = workload_preset("gpt3-175b");
  m.name = "tiny";
  m.layers = 4;
  m.hidden = 1000;
  m.heads = 10;
  m.sequence = 100;
  m.vocab = 1000;
  m.flash_attention = true;
  return m;
}

}  // namespace ringbench::model::testing
