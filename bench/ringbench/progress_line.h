#pragma once
// A one-line progress display on stderr for long sweeps (rank 0 only): what is running now, how
// long it has taken, and an estimate of what is left. It appears only after a few seconds, only
// when stderr is a terminal, and never with --quiet, so logs and pipes stay clean.

#include <chrono>
#include <cstdint>
#include <string>

namespace ringbench {

class ProgressLine {
 public:
  // A sweep shorter than this never draws the line.
  static constexpr std::chrono::seconds kQuietStart{3};

  explicit ProgressLine(bool enabled) : enabled_(enabled) {}
  // Announces one point (one algorithm at one size) the sweep will run, before it starts.
  void plan(uint64_t bytes);
  // Call before measuring a point; `bytes` is the point's message size.
  void starting(const std::string& what, uint64_t bytes);
  // Call after it; `bytes` as passed to starting() and plan().
  void finished(uint64_t bytes);
  void clear();

 private:
  using Clock = std::chrono::steady_clock;
  bool enabled_;
  uint64_t total_ = 0, done_ = 0;
  Clock::time_point start_ = Clock::now(), last_draw_{};
  bool drawn_ = false;
};

}  // namespace ringbench
