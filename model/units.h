#pragma once
// Units used throughout the topology model, stated once.
//
//   GB   = 1e9 bytes (not 2^30; ASTRA-sim uses 2^30 and users trip on that). GB/s = 1e9 bytes/s.
//   Gb/s = 1e9 bits/s, the unit NIC line rates are sold in (HDR = 200 Gb/s = 25 GB/s).
//   Bandwidths are per direction unless a name says otherwise; times are microseconds at the
//   API and in every table; byte counts are uint64_t (or double where they are fractional shares).
//   Message-size suffixes on the command line follow the same rule: K, M, G = 1e3, 1e6, 1e9 bytes;
//   Ki, Mi, Gi = 2^10, 2^20, 2^30 bytes.

#include <cstdint>

namespace ringbench::model {

inline constexpr double kBytesPerGB = 1e9;
inline constexpr double kBitsPerByte = 8.0;

// GB/s -> bytes/s.
constexpr double bytes_per_s(double GBps) { return GBps * kBytesPerGB; }
// Gb/s (a NIC's line rate) -> GB/s.
constexpr double GBps_from_Gbps(double Gbps) { return Gbps / kBitsPerByte; }
// bytes and microseconds -> GB/s.
constexpr double GBps(double bytes, double time_us) {
  return time_us > 0 ? bytes / (time_us * 1e-6) / kBytesPerGB : 0.0;
}

}  // namespace ringbench::model
