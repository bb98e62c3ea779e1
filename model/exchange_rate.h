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
};

struct RatePoint {
  uint64_t bytes = 0;
  double GBps = 0;  // 1e9 bytes/s, one core
};

// One point per distinct chunk size, ascending: the median rate over that size's samples.
// hop_latency_us is the same-host link's latency, the one plan_cost adds per step. Samples whose
// time less the hop is not positive and finite are skipped (they cannot tell the copy from the
// hop); InputError when ranks_per_host or cores_per_host is below 1.
std::vector<RatePoint> exchange_copy_rates(std::span<const ExchangeSample> samples, int ranks_per_host,
                                           int cores_per_host, double copy_cap_GBps, double hop_latency_us);

// The rate at `bytes`: linear in log(bytes) between the two nearest points, the end point's rate
// outside them. 0 when `rates` is empty.
double rate_at(std::span<const RatePoint> rates, uint64_t bytes);

}  // namespace ringbench::model
