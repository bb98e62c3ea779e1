// transport/copy_distance.h: every area it places lies inside its slack and half a page from the
// address it was placed for, whatever the two addresses malloc would have given.

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "transport/copy_distance.h"

namespace ringbench {
namespace {

TEST(CopyDistance, HalfAPageFromItsOtherWithinOnePageOfSlack) {
  std::vector<std::byte> storage(4 * kCopyPageBytes);
  std::vector<std::byte> others(2 * kCopyPageBytes);
  for (size_t free_at = 0; free_at < kCopyPageBytes; free_at += 8)
    for (size_t other_at : {size_t{0}, size_t{8}, size_t{16}, size_t{24}, size_t{2048}, size_t{4064}, size_t{4088}}) {
      std::byte* free = storage.data() + free_at;
      const std::byte* other = others.data() + other_at;
      std::byte* placed = half_page_from(free, other);
      ASSERT_GE(placed, free) << free_at << " " << other_at;
      ASSERT_LT(placed, free + kCopyPageBytes) << free_at << " " << other_at;
      const auto distance = reinterpret_cast<uintptr_t>(placed) - reinterpret_cast<uintptr_t>(other);
      ASSERT_EQ(distance % kCopyPageBytes, kCopyPageBytes / 2) << free_at << " " << other_at;
    }
  EXPECT_EQ(with_copy_slack(1000), 1000 + kCopyPageBytes);
}

}  // namespace
}  // namespace ringbench
