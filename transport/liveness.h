#pragma once
// Liveness: how a rank tells a failed peer from a slow one, and names the rank that failed rather
// than the neighbour it happens to wait on. The mechanics live in the one progress loop
// (progress.cpp); the timing rules live here.
//
// - Heartbeats. While a rank waits in the progress loop it sends a header-only Heartbeat frame to
//   every peer it has sent nothing to for heartbeat_interval() (never inside a data frame). So every
//   live, waiting rank is heard by every other rank over the full mesh, whatever it waits for.
// - Silence. A peer from which nothing (data or heartbeat) has arrived for --timeout while this
//   rank waits has failed: frozen (SIGSTOP), stuck, or behind a link that drops packets. When the
//   peer was in the middle of sending us a frame its silence is weak evidence (it may itself be
//   starved by the failed rank, and cannot heartbeat inside a frame): we then wait
//   close_grace() longer for another rank's Abort that names the real culprit.
// - Closed. A peer that closes or resets its connection without a Bye died. Survivors that abort
//   also close, so a closure is confirmed only after close_grace(): an Abort arriving meanwhile
//   (relayed by any survivor) names the rank that failed first.
// - Abort. The rank that decides sends an Abort notice (failed rank, detector, cause) to every peer
//   it can reach; each receiver relays it once and fails with the same diagnosis.
// - No progress with every peer alive (all heartbeating) is a live deadlock: after --timeout the
//   rank fails naming the peer it waits on.

#include <algorithm>
#include <chrono>

namespace ringbench::liveness {

using std::chrono::milliseconds;

// A fifth of the timeout, between 100 ms and 1 s; 1 s when waiting forever (the watchdog uses it).
inline milliseconds heartbeat_interval(milliseconds timeout) {
  if (timeout.count() <= 0) return milliseconds(1000);
  return std::clamp(timeout / 5, milliseconds(100), milliseconds(1000));
}

// How long a closure or weak silence waits for a better diagnosis from another rank.
inline milliseconds close_grace(milliseconds timeout) {
  if (timeout.count() <= 0) return milliseconds(1500);
  return std::min(milliseconds(1500), std::max(milliseconds(300), timeout / 2));
}

// A peer heard within this long is alive for the live-deadlock rule.
inline milliseconds recently(milliseconds timeout) { return 3 * heartbeat_interval(timeout); }

}  // namespace ringbench::liveness
