#pragma once
// The link bound, measured in the same run as the collectives it bounds.
//
// Ring send/receive: every rank sends `bytes` to its right neighbour while receiving `bytes` from
// its left, through the same transport and progress loop as the collectives; its bandwidth at a
// collective's chunk size is what one ring link delivers when every link is busy at once, which
// is exactly the condition of a ring collective. A collective's link-bound time is its
// lower-bound bytes divided by that bandwidth.
//
// Plain socket pair: one blocking TCP connection with 1 MiB writes, not our transport, so that a
// slow transport cannot flatter itself by measuring its own links.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "transport/communicator.h"

namespace ringbench {

// Seconds of one ring send/receive of `bytes` (one chunk): this rank's median timed call over
// `back_to_back`. Each of `iterations` timed calls is a barrier (outside the timed region, like
// the collectives) then `back_to_back` chunks streamed around the ring exactly as a ring
// all-reduce moves them (Communicator::ring_stream: each piece forwarded as soon as it arrives),
// only without the reduction. So the per-chunk figure carries the same start-up skew and
// pipelining a ring collective gets. The median, as the collectives' own headline time: a mean
// took in the host's stalls (up to 100 ms on the 2-core VM, measuring.md), and at 32 KiB one
// such stall put the link test above the all-reduce it bounds. Collective: every rank calls it.
// `workspace`, if it holds at least two chunks, is used (and overwritten) instead of allocating
// N chunk slots: the harness passes its collective buffer, so the test adds no memory of its own.
//
// ExchangeWork::reduce adds the one thing a ring reduce-scatter does beyond this: each received
// chunk lands in the ring all-reduce's staging ring and is summed (float32) into its slot piece by
// piece as it arrives, and the next frame forwards the sum. Its time less the plain exchange's at
// the same chunk is what the reduction costs where it runs, every rank copying and reducing on
// shared cores: the model prices reduced bytes at that rate (model/exchange_rate.h), not at the
// one-core probe's, which reads both operands from cache on an otherwise idle core. The bytes
// must be a multiple of 4 (whole float32s).
enum class ExchangeWork { copy, reduce };
double ring_exchange_seconds(Communicator& comm, uint64_t bytes, int iterations, int back_to_back,
                             std::span<std::byte> workspace = {}, ExchangeWork work = ExchangeWork::copy);

// The same ring send/receive, set up once and timed in instalments: a row times a few exchanges
// before each of its blocks of calls (Measurement), so that its link bound is measured in the same
// moments as the calls it bounds. On the 2-core VM one size's calls moved from 7.2 to 4.5 ms
// within a row (4 MiB, N = 4, 2026-12-06: the scheduler's placement of 4 ranks on 2 cores
// changing), so a link test timed once after the row could land in another state than the row.
// Collective: every rank makes the same calls. `workspace` must outlive it and may be
// overwritten between instalments (its contents are never read).
class RingExchange {
 public:
  RingExchange(Communicator& comm, uint64_t bytes, int back_to_back, std::span<std::byte> workspace = {},
               ExchangeWork work = ExchangeWork::copy);
  // `iterations` more timed exchanges, each a barrier (untimed) then the back-to-back chunks.
  void time(int iterations);
  int timed() const { return static_cast<int>(seconds_.size()); }
  // This rank's median timed exchange per chunk, over every instalment; 0 before any.
  double median_chunk_seconds() const;

 private:
  Communicator& comm_;
  int back_to_back_ = 0;
  std::vector<std::byte> own_;  // the slots, where the workspace holds fewer than two chunks
  std::vector<SendSpec> sends_;
  std::vector<RecvSpec> receives_;
  std::vector<double> seconds_;  // per timed exchange, all chunks
};

// One plain blocking TCP connection with 1 MiB writes (at most 256 MiB or 1 s), timed until the
// reader has drained the last byte. Between rank 0 and the first rank on another host when there
// is one (over the chosen interface), else over loopback inside rank 0. Collective: every rank
// calls it; the figure and the path ("vm -> h2 (10.200.0.2)") are rank 0's.
struct PlainPair {
  double GBps = 0;
  std::string path;
};
PlainPair measure_plain_pair(Communicator& comm);

}  // namespace ringbench
