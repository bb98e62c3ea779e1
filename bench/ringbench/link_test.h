#pragma once
// The link bound, measured in the same run as the collectives it bounds.
//
// Ring send/receive: every rank sends `bytes` to its right neighbour while receiving `bytes` from
// its left, through the same transport and progress loop as the collectives; its bandwidth at a
// collective's chunk size is what one ring link delivers when every link is busy at once, which
// is exactly the condition of a ring collective. A collective's link-bound time is its
// lower-bound bytes divided by that bandwidth.
//
// Plain socket pair: one blocking TCP connection over loopback with 1 MiB writes, not our
// transport, so that a slow transport cannot flatter itself by measuring its own links.

#include <cstdint>

namespace ringbench {

class Communicator;

// Mean seconds of one ring send/receive of `bytes` (one chunk). Each of `iterations` timed calls is
// a barrier (outside the timed region, like the collectives) then `back_to_back` chunks streamed
// around the ring exactly as a ring all-reduce moves them (Communicator::ring_stream: each piece
// forwarded as soon as it arrives), only without the reduction. So the per-chunk figure carries
// the same start-up skew and pipelining a ring collective gets. Collective: every rank calls it.
double ring_exchange_seconds(Communicator& comm, uint64_t bytes, int iterations, int back_to_back);

// Bytes per second of a blocking loopback TCP pair moving `total_bytes` in 1 MiB writes.
double plain_socket_pair_bandwidth(uint64_t total_bytes);

}  // namespace ringbench
