#pragma once
// The ring send/receive link test (link_test.h) at message sizes the rows' own link tests do not
// reach, so that topomodel calibrate's copy-rate curve (model/exchange_rate.h) covers every
// message the run's plans send.
//
// Why: a row's link test runs at its chunk, the buffer over N, so a sweep up to S measures the
// exchange up to S / N only. Naive and recursive doubling send the whole buffer in one message,
// rhd half of it. Beyond the curve's last point the model holds the rate flat, but the rate falls
// once a message outgrows the caches: on the 2-core AMD EPYC VM (2026-12-06, N = 4) 8.6 GB/s at
// 1 MiB, 5.9 at 4 MiB, and the 4 MiB naive and recursive-doubling all-reduces were priced 37-40%
// fast at N = 3 and 4 (28-30% at N = 2) on the flat rate.
//
// So a one-host run also times the exchange at 2x, 4x, ... its largest row chunk, and at its
// largest size itself, up to kLadderCapBytes: well past any cache, where the rate has settled and
// flat is right again. The rows' samples and these are one curve.

#include <cstdint>
#include <vector>

namespace ringbench {

class Communicator;

inline constexpr uint64_t kLadderCapBytes = uint64_t{16} << 20;
// Timed exchanges per chunk (their median is the point): a bandwidth settles within ten, and a call
// that moves much data averages over more of it. So a chunk gets kLadderCalls calls, or as many as
// move kLadderBudgetBytes per rank, but at least kLadderMinCalls: at N = 4 a 16 MiB chunk's call
// moves 96 MiB per rank (87 ms on the 2-core AMD EPYC VM), and ten of them took 0.9 s of a default
// run. The count depends on the chunk alone, so every rank makes the same calls.
inline constexpr int kLadderCalls = 10;
inline constexpr int kLadderMinCalls = 3;
inline constexpr uint64_t kLadderBudgetBytes = uint64_t{256} << 20;
int ladder_calls(uint64_t chunk_bytes, int back_to_back);

// The chunks to time for a run whose largest size is `largest_bytes` on `world_size` ranks,
// ascending: doubling from 2 x ceil(largest / N) while below min(largest, cap), then
// min(largest, cap) itself. Empty when the rows' largest chunk already reaches that (or N < 2).
std::vector<uint64_t> ladder_chunks(uint64_t largest_bytes, int world_size);

struct ExchangePoint {
  uint64_t chunk_bytes = 0;
  double chunk_us = 0;  // per chunk: ring_exchange_seconds' median over `calls`, as a row's
  int calls = 0;
  bool reduces = false;  // ExchangeWork::reduce: each received chunk summed into its slot
};

// Times every ladder_chunks() chunk with 2(N-1) chunks back to back, as a row's link test does.
// Collective: every rank calls it; every rank returns the same chunks (its own medians).
std::vector<ExchangePoint> measure_exchange_ladder(Communicator& comm, uint64_t largest_bytes);

// The reduction where it runs (link_test.h's ExchangeWork::reduce), for a run with a reducing
// collective: at each chunk the plain exchange and the reducing one, one after the other, so that
// their difference, the reduction's cost, comes from one moment of the machine. The plans reduce
// messages from a chunk of the smallest size (a ring's) to the whole largest size (naive's), so the
// chunks run from ceil(smallest / N) (at least kReductionLadderFloorBytes) in steps of 4x, a
// rate's change over a step being smooth, to min(largest, kReductionLadderCapBytes). Below the
// floor a reduction costs less than a hop's latency. The cap is lower than the plain ladder's: the
// pairs cost twice the calls, and at 16 MiB chunks they added 2.6-5.2 s to a default run at N = 4
// on the 2-core AMD EPYC VM (2026-12-06), where 4 MiB and 16 MiB chunks had measured alike (the
// reduction's rate then falls back to the probe's or lies close to it). Empty when N < 2.
inline constexpr uint64_t kReductionLadderFloorBytes = uint64_t{16} << 10;
inline constexpr uint64_t kReductionLadderCapBytes = uint64_t{4} << 20;
std::vector<uint64_t> reduction_ladder_chunks(uint64_t smallest_bytes, uint64_t largest_bytes, int world_size);

// Times each reduction_ladder_chunks() chunk plain and reducing, one call of each in turn,
// ladder_calls() each, with 2(N-1) chunks back to back; one point of each (its median). Collective,
// like measure_exchange_ladder.
std::vector<ExchangePoint> measure_reduction_ladder(Communicator& comm, uint64_t smallest_bytes, uint64_t largest_bytes);

}  // namespace ringbench
