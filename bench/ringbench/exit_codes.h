#pragma once
// ringbench's exit status, documented in the README: scripts and Slurm dependencies rely on it.

namespace ringbench::exit_code {
inline constexpr int kOk = 0;
inline constexpr int kCheckFailed = 1;   // a result or a byte count did not match
inline constexpr int kBadInput = 2;      // a flag, the launch or the results file cannot work
inline constexpr int kPeerFailed = 3;    // a peer closed, reset or broke the protocol
inline constexpr int kTimedOut = 4;      // no progress for --timeout seconds
}  // namespace ringbench::exit_code
