#pragma once
// The rate one core's kernel copies socket bytes at while every rank of the host sends and
// receives at once, by message size, measured by ringbench's ring send/receive link test
// (bench/ringbench/link_test.h: one per row, at the row's chunk size).
//
// Why not the ping-pong pair: in a ping-pong one message is in flight, and the copy into the
// sender's socket and the copy out at the receiver run largely one after the other, on two cores
// that swap cache lines. A collective has every rank copying both ways at once. On the 2-core AMD
// EPYC VM (2026-12-02) a 1 MiB all-gather at N = 2 moved 512 KiB each way per rank in 159 us (6.6
// GB/s of copying per core) while the pair's 1 MiB one-way time said 3.4 GB/s; and the rate falls
// by half again once a message no longer fits in the caches (4 MiB), which a straight line through
// the pair's sizes cannot hold. So where a run measured the exchange, its rate at each size is the
// copy rate, read off at a step's message size (log-linear between the measured sizes, flat
// beyond them).
//
// From one exchange of `chunk` bytes in `chunk_us` (the median timed call of 2(N-1) back-to-back
// chunks, per chunk): each rank copies the chunk into its socket and one out of another, 2 x chunk; a host
// of R ranks on C cores does R of those on min(R, C) cores, so
//
//     rate = 2 x chunk x max(1, R / C) / (chunk_us - hop_latency_us)
//
// which is exactly the rate at which plan_cost.h's shared-cores rule prices that exchange at
// chunk_us. The hop latency comes off because each chunk of the exchange waits for the one before
// it to arrive, so chunk_us holds one hop, and plan_cost's dataflow charges every step its hop
// latency on top of the copying: left in, a ring step would pay its hop twice (at N = 2, 64 KiB,
// 2 x 32 KiB chunks of 26 us each, a 9 us hop made the prediction 34% slow). Capped by the memcpy
// probe (the kernel never copies faster). Pure arithmetic.

#include <cstdint>
#include <span>
#include <vector>

namespace ringbench::model {

struct ExchangeSample {
  uint64_t chunk_bytes = 0;
  double chunk_us = 0;
  bool reduces = false;  // the reducing link test: each received chunk summed into its slot
};

struct RatePoint {
  uint64_t bytes = 0;
  double GBps = 0;  // 1e9 bytes/s, one core
};

// One point per distinct chunk size, ascending: the median rate over that size's samples.
// hop_latency_us is the same-host link's latency, the one plan_cost adds per step. Samples whose
// time less the hop is not positive and finite are skipped (they cannot tell the copy from the
// hop), and so are reducing ones; InputError when ranks_per_host or cores_per_host is below 1.
std::vector<RatePoint> exchange_copy_rates(std::span<const ExchangeSample> samples, int ranks_per_host,
                                           int cores_per_host, double copy_cap_GBps, double hop_latency_us);

// The rate one core reduces at while every rank of the host exchanges and reduces at once, by
// chunk size, from the reducing link test (bench/ringbench/link_test.h, ExchangeWork::reduce). A
// reducing sample is paired with the last plain sample of the same chunk before it (the ladder
// times the two one after the other); the reducing one also sums one chunk into its slot per
// chunk moved, chunk x max(1, R / C) bytes on each core, so
//
//     rate = chunk x max(1, R / C) / (reducing_us - plain_us)
//
// which is exactly the rate at which plan_cost.h prices the reducing exchange at reducing_us once
// the plain one is priced at plain_us. Capped by the one-core probe (reduce_cap_GBps, a reduction
// alone on a core with its operands in cache, never slower than one that shares the core), which
// is also the rate where the difference is not positive: the two times were then inside each
// other's noise (without a cap, such a pair is skipped). One point per chunk size, ascending (the median over that size's pairs); empty
// without reducing samples. InputError as exchange_copy_rates.
std::vector<RatePoint> exchange_reduce_rates(std::span<const ExchangeSample> samples, int ranks_per_host,
                                             int cores_per_host, double reduce_cap_GBps);

// The rate at `bytes`: linear in log(bytes) between the two nearest points, the end point's rate
// outside them. 0 when `rates` is empty.
double rate_at(std::span<const RatePoint> rates, uint64_t bytes);

}  // namespace ringbench::model
