#pragma once
// What send() and recv() actually returned, per peer. Payload is collective data; overhead is
// everything else we put on the wire (handshake, frame headers), so payload can be checked
// against an algorithm's formula exactly and overhead reported beside it.

#include <cstdint>

namespace ringbench {

struct ByteCounters {
  uint64_t payload_sent = 0;
  uint64_t payload_received = 0;
  uint64_t overhead_sent = 0;
  uint64_t overhead_received = 0;

  uint64_t total_sent() const { return payload_sent + overhead_sent; }
  uint64_t total_received() const { return payload_received + overhead_received; }

  ByteCounters& operator+=(const ByteCounters& o) {
    payload_sent += o.payload_sent;
    payload_received += o.payload_received;
    overhead_sent += o.overhead_sent;
    overhead_received += o.overhead_received;
    return *this;
  }
  friend ByteCounters operator-(ByteCounters a, const ByteCounters& b) {
    a.payload_sent -= b.payload_sent;
    a.payload_received -= b.payload_received;
    a.overhead_sent -= b.overhead_sent;
    a.overhead_received -= b.overhead_received;
    return a;
  }
};

}  // namespace ringbench
