#pragma once
// The largest inputs the model accepts, stated once. Every numeric input, from a cluster or
// workload file (json_fields.h) or from topomodel's flags (bench/topomodel/sizes.h), is checked
// against these before the model sees it, so no input makes it allocate absurd memory, overflow
// an int or a uint64_t byte count, or compute with nan or inf. docs/model.md lists them.
//
// Why these values: each is far above any machine or model built so far (the largest clusters
// have ~1e5 GPUs, the largest dense models ~2e12 parameters), and each keeps every product the
// model forms in range: GPU counts and indices are int, 4 x hidden and tp x pp x cp x ep are
// formed in int, and byte counts such as a micro-batch's activation (micro_batch x sequence x
// hidden x bytes x top_k, at most kMaxMicroBatch x kMaxSequenceBytes = 6.6e17) stay below
// 2^64 = 1.8e19. At kMaxGpus, `topomodel collective` takes 0.7 s and 112 MB (Xeon, 2026-12);
// a full `sweep` there enumerates so many placements that it ran over 2 minutes (stopped there).

#include <cstdint>

namespace ringbench::model::limits {

// Cluster: GPUs in all (nodes x gpus_per_node), and any one count of GPUs or nodes.
inline constexpr int kMaxGpus = 1 << 20;
// GPUs (and NICs) in one node: locate() forms local GPU x NICs per node in an int (a GB200 NVL72
// rack is 18 nodes of 4; its island, gpus_per_island, may be as large as kMaxGpus).
inline constexpr int kMaxGpusPerNode = 4096;
// Bandwidth per GPU or per NIC: 1 PB/s (GB/s) and 8 Pb/s (Gb/s), ~1000x today's NVLink.
inline constexpr double kMaxGBps = 1e6;
inline constexpr double kMaxGbps = 8e6;
// Latencies and per-call overheads, microseconds: one second.
inline constexpr double kMaxLatencyUs = 1e6;
// Leaf and pod oversubscription ratios (x:1).
inline constexpr double kMaxOversubscription = 1e6;

// Workload (one transformer).
inline constexpr int kMaxLayers = 1 << 16;
inline constexpr int kMaxHidden = 1 << 20;     // also heads, kv_heads (which divide it)
inline constexpr int kMaxFfnHidden = 1 << 24;
inline constexpr int kMaxVocab = 1 << 24;
inline constexpr int kMaxSequence = 1 << 24;   // tokens per sequence
inline constexpr int kMaxExperts = 1 << 16;    // also top_k (<= experts)
inline constexpr double kMaxBytesPerValue = 8;  // bytes_per_activation, grad_reduce_bytes (fp64)
inline constexpr double kMaxParams = 1e15;      // the whole model; 500x the largest trained
// One sequence's activation of one layer with its top_k copies: sequence x hidden x
// bytes_per_activation x top_k (Llama 3 405B: 2.7e8 bytes).
inline constexpr double kMaxSequenceBytes = 1e13;

// Training flags.
inline constexpr int kMaxGlobalBatch = 1 << 24;  // sequences per step
inline constexpr int kMaxMicroBatch = 1 << 16;   // sequences per micro-batch
inline constexpr int kMaxVirtualStages = kMaxLayers;

// Message sizes on the command line (--bytes, --tp-bytes...): 1e18 bytes (1 EB).
inline constexpr double kMaxBytes = 1e18;
// Times in seconds (--restart-s, --checkpoint-s, --interval-min x 60): ~31 years.
inline constexpr double kMaxSeconds = 1e9;
// Sizes in GB and bandwidths in GB/s of storage (--checkpoint-GB, --storage-GBps).
inline constexpr double kMaxStorageGB = 1e9;

}  // namespace ringbench::model::limits
