// The caches the ring all-reduce's rounds are cut from (bench/ringbench/cache_sizes.h), read from a
// sysfs-like directory written here.
#include "cache_sizes.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace ringbench {
namespace {

TEST(CacheSizes, ParsesSysfsSizes) {
  EXPECT_EQ(parse_cache_size("512K"), 512u << 10);
  EXPECT_EQ(parse_cache_size("32768K\n"), 32u << 20);
  EXPECT_EQ(parse_cache_size("2M"), 2u << 20);
  EXPECT_EQ(parse_cache_size("4096"), 4096u);
  EXPECT_EQ(parse_cache_size(""), 0u);
  EXPECT_EQ(parse_cache_size("big"), 0u);
  EXPECT_EQ(parse_cache_size("12Q"), 0u);
}

void write_cache(const std::filesystem::path& dir, const std::string& index, const std::string& level,
                 const std::string& size) {
  std::filesystem::create_directories(dir / index);
  std::ofstream(dir / index / "level") << level << "\n";
  std::ofstream(dir / index / "size") << size << "\n";
}

TEST(CacheSizes, TheCoresLevelTwoAndTheHighestLevel) {
  const auto dir = std::filesystem::path(testing::TempDir()) / "ringbench-cache-sizes";
  std::filesystem::remove_all(dir);
  // The 2-vCPU AMD EPYC VM's cpu0, as sysfs lists it.
  write_cache(dir, "index0", "1", "32K");
  write_cache(dir, "index1", "1", "32K");
  write_cache(dir, "index2", "2", "512K");
  write_cache(dir, "index3", "3", "32768K");
  std::filesystem::create_directories(dir / "uevent-like");  // not an index: ignored
  const CacheSizes sizes = read_cache_sizes(dir);
  EXPECT_EQ(sizes.core_bytes, 512u << 10);
  EXPECT_EQ(sizes.last_level_bytes, 32u << 20);
  std::filesystem::remove_all(dir / "index3");
  EXPECT_EQ(read_cache_sizes(dir).last_level_bytes, 512u << 10) << "without an L3 the L2 is the last level";
  std::filesystem::remove_all(dir);
  const CacheSizes none = read_cache_sizes(dir);
  EXPECT_EQ(none.core_bytes, 0u);
  EXPECT_EQ(none.last_level_bytes, 0u);
}

}  // namespace
}  // namespace ringbench
