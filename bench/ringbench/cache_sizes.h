#pragma once
// This host's CPU caches, as the kernel describes them (/sys/devices/system/cpu/cpu0/cache): the
// ring all-reduce's rounds are cut from them (segment_choice.h). Not sysconf(_SC_LEVEL3_CACHE_SIZE):
// on the 2-vCPU AMD EPYC VM glibc reads the whole processor's 256 MiB from cpuid, where the guest's
// cores share one 32 MiB L3 (lscpu and sysfs agree).

#include <cstdint>
#include <filesystem>
#include <string_view>

namespace ringbench {

struct CacheSizes {
  uint64_t core_bytes = 0;        // a core's own level-2 cache; 0: not described
  uint64_t last_level_bytes = 0;  // the highest level's; 0: not described
};

// Read from `cache_dir` (the sysfs directory of one CPU's caches: index0, index1, ... each with
// `level` and `size`); zeros for what is missing or unreadable.
CacheSizes read_cache_sizes(const std::filesystem::path& cache_dir = "/sys/devices/system/cpu/cpu0/cache");

// sysfs's size field ("512K", "32768K", "1M"); 0 when it is not one.
uint64_t parse_cache_size(std::string_view text);

}  // namespace ringbench
