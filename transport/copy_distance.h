#pragma once
// How far apart a copy's source and destination lie, modulo a page, where ringbench picks it:
// the landing areas in scratch that received ranges are copied or reduced from, and the bench's
// input and output buffers of an out-of-place call.
//
// That distance decides how fast the copy runs. On AMD Zen 3 (CPU family 25, the "AMD EPYC" VMs)
// glibc's memcpy of 16 KiB to 512 KiB runs on `rep movsb`, which is 10-25x slower when the
// destination lies 1 to 31 bytes past the source modulo a 4 KiB page: a 128 KiB copy took 47-91
// us there against 3-10 us at every other distance (measured 2026-12-07; glibc bug 30994,
// microsoft/STL#5658). Two allocations lie at whatever distance malloc gave them, so a row could
// run 1.5-2.4x slow for its whole length and not in the next run (docs/performance.md). Half a
// page apart, copies in either direction stay out of that window and the two stay mutually
// 64-byte aligned, for a page of slack per area.

#include <cstddef>
#include <cstdint>

namespace ringbench {

inline constexpr size_t kCopyPageBytes = 4096;

// Bytes an area of `bytes` needs for half_page_from to place it within them.
constexpr size_t with_copy_slack(size_t bytes) { return bytes + kCopyPageBytes; }

// The first address at or after `free` that lies half a page from `other` modulo a page.
inline std::byte* half_page_from(std::byte* free, const std::byte* other) {
  constexpr uintptr_t page = kCopyPageBytes;
  const uintptr_t wanted = (reinterpret_cast<uintptr_t>(other) + page / 2) % page;
  const uintptr_t have = reinterpret_cast<uintptr_t>(free) % page;
  return free + (wanted + page - have) % page;
}

}  // namespace ringbench
