#pragma once
// One link class of a measured machine (same host, or across hosts), fitted on its ping-pong
// figures (ringbench's /links): the time of one message of `bytes` is
//
//     latency_us + pieces x message_overhead_us + bytes / bandwidth
//
// where pieces = ceil(bytes / piece_bytes), at least 1: the transport moves a message in pieces of
// its pipeline size, and each piece costs a wake-up and a system call on both ends. The one copy
// of this formula is message_time_us(); plan_cost.cpp prices every transfer of a plan with it.
//
// The fit is least squares on relative residuals (the sizes span 64 B to MiB, and a 1 us error at
// 64 B matters as much as 1 ms at 4 MiB), made robust twice. First, every size slower than twice a
// larger size's time is dropped: it was descheduled (a loaded host), since a smaller message is
// never slower. Then, one at a time, the point whose residual stands out (beyond 5% and 4 robust
// standard deviations), as long as six or more points are in use: one of ringbench's six sizes at
// most. A parameter the data drive below zero is fixed at zero and the rest refitted. Pure
// arithmetic; no I/O.
//
// fit_link_two_segment() is the fit `--algo auto` prices its candidates with (issue 13): the
// latency from the small sizes alone, the bandwidth from the slope of the large sizes alone, and
// no per-piece overhead (at large sizes the pieces grow with the bytes, so the slope holds them).
// A fitted latency is then never above the small calls' median time, however the middle sizes fall.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace ringbench::model {

struct LinkSample {
  uint64_t bytes = 0;
  double one_way_us = 0;
};

struct LinkParameters {
  double latency_us = 0;
  double bandwidth_GBps = 0;  // 1e9 bytes/s
  double message_overhead_us = 0;
};

// Pieces one message of `bytes` moves in (at least 1; piece_bytes 0 means one piece).
uint64_t message_pieces(uint64_t bytes, uint64_t piece_bytes);
// The time of one message on a link with these parameters: the formula above.
double message_time_us(const LinkParameters& link, uint64_t bytes, uint64_t piece_bytes);

struct LinkFit {
  LinkParameters link;
  std::vector<double> fitted_us;  // per sample, in the samples' order
  std::vector<double> residual;   // fitted / measured - 1, per sample
  std::vector<bool> used;         // false: rejected as an outlier
};

// Throws InputError naming `link_class` with fewer than 2 samples of distinct sizes, a sample
// that is not a positive finite time, or data that give no positive bandwidth.
LinkFit fit_link(std::span<const LinkSample> samples, uint64_t piece_bytes, const std::string& link_class);

// The two segments of fit_link_two_segment(): sizes up to kSmallSegmentBytes give the latency,
// sizes from kLargeSegmentBytes the bandwidth (ringbench's link test: 64 B and 1 KiB; 256 KiB,
// 1 MiB and 4 MiB). With fewer than two large sizes, the two largest sizes give the slope; with
// no small size, the smallest gives the latency.
inline constexpr uint64_t kSmallSegmentBytes = 4 << 10;
inline constexpr uint64_t kLargeSegmentBytes = 128 << 10;

// bandwidth = the least-squares slope over the large sizes; latency = the median over the small
// sizes of (time - bytes / bandwidth), at least 0. Descheduled sizes are dropped first, as in
// fit_link(); message_overhead_us is 0. Throws InputError naming `link_class` as fit_link() does.
LinkFit fit_link_two_segment(std::span<const LinkSample> samples, const std::string& link_class);

// One link class's figures ("same host", "across hosts") and its two-segment fit.
struct LinkClassSamples {
  std::string link_class;
  std::vector<LinkSample> samples;
};
struct LinkClassFit {
  std::string link_class;
  std::vector<LinkSample> samples;
  LinkFit fit;
};
// Every class, in the order given, by fit_link_two_segment().
std::vector<LinkClassFit> fit_link_classes(std::span<const LinkClassSamples> classes);

}  // namespace ringbench::model
