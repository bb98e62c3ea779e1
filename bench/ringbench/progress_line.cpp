#include "progress_line.h"

#include <cstdio>

#include <fmt/format.h>

#include "byte_size.h"

namespace ringbench {

namespace {
constexpr auto kRedraw = std::chrono::milliseconds(250);
// Time per point grows with its size, but a point never costs nothing: weigh each by its bytes
// plus a fixed share, so estimates at small sizes are not zero.
constexpr uint64_t kFixedShareBytes = 64 * 1024;
}  // namespace

void ProgressLine::plan(uint64_t bytes) { total_ += bytes + kFixedShareBytes; }

void ProgressLine::starting(const std::string& what, uint64_t bytes) {
  if (!enabled_) return;
  auto now = Clock::now();
  if (now - start_ < kQuietStart || now - last_draw_ < kRedraw) return;
  last_draw_ = now;
  double elapsed = std::chrono::duration<double>(now - start_).count();
  std::string eta = "?";
  if (done_ > 0 && total_ > done_) eta = fmt::format("{:.0f} s", elapsed * static_cast<double>(total_ - done_) / done_);
  std::string line = fmt::format("\r[ringbench] {}, {} | {:.0f} s elapsed, about {} left\x1b[K", what,
                                 format_byte_size(bytes), elapsed, eta);
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressLine::finished(uint64_t bytes) { done_ += bytes + kFixedShareBytes; }

void ProgressLine::clear() {
  if (!drawn_) return;
  std::fputs("\r\x1b[K", stderr);
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace ringbench
