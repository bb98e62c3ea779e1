#pragma once
// How one connection's byte stream is striped over its K TCP sockets ("streams", issue 18 §3):
// byte k of the stream travels on socket (k / kStripeBytes) % K, so the stripes go round robin and
// each socket carries every K-th stripe, in order. Both ends compute the same mapping from the
// byte count alone, so nothing about it goes on the wire, and frames (headers included) may
// straddle stripes. Each socket moves its own stripes of what is offered, whatever the others do
// (Connection::write_some); stripe_offset() below turns its count back into a stream offset.
//
// Why fixed stripes and not a split of each message: control frames (heartbeats, aborts) share
// the stream between messages, and a fixed mapping needs no per-message agreement.

#include <cstddef>
#include <cstdint>

namespace ringbench {

// 64 KiB: a few stripes of a 1 MiB message per socket, so K sockets share small messages too, and
// fewer than one stripe's worth of sendmsg calls split at stripe boundaries (write slices are
// 128-512 KiB). Part of the protocol: both ends must agree (wire.h's version covers it).
inline constexpr uint64_t kStripeBytes = 64 * 1024;

// The socket, 0..streams-1, that carries byte `offset` of the stream.
constexpr int stripe_stream(uint64_t offset, int streams, uint64_t stripe = kStripeBytes) {
  return static_cast<int>((offset / stripe) % static_cast<uint64_t>(streams));
}

// Bytes from `offset` to the end of its stripe (1..stripe): how much may go to one socket at once.
constexpr uint64_t stripe_left(uint64_t offset, uint64_t stripe = kStripeBytes) { return stripe - offset % stripe; }

// Where socket `socket`'s next byte goes in the stream once it has carried `socket_bytes`: its
// stripes are numbers socket, socket + streams, ... So the stream's first byte not yet moved is
// the least of these over the sockets, whichever order the sockets moved their shares in.
constexpr uint64_t stripe_offset(uint64_t socket_bytes, int socket, int streams, uint64_t stripe = kStripeBytes) {
  const uint64_t round = socket_bytes / stripe;
  return (round * static_cast<uint64_t>(streams) + static_cast<uint64_t>(socket)) * stripe + socket_bytes % stripe;
}

}  // namespace ringbench
