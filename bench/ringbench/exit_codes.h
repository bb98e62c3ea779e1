#pragma once
// ringbench's exit status: scripts and Slurm dependencies rely on it. docs/failures.md lists it,
// generated from the comments below by scripts/docs_generate.py, so every constant keeps one.

namespace ringbench::exit_code {
inline constexpr int kOk = 0;            // every row verified and every byte count matched
inline constexpr int kCheckFailed = 1;   // a result or a byte count did not match
inline constexpr int kBadInput = 2;      // a flag, the launch or the results file cannot work
inline constexpr int kPeerFailed = 3;    // a peer closed, reset or broke the protocol
inline constexpr int kTimedOut = 4;      // no progress for --timeout seconds
}  // namespace ringbench::exit_code
