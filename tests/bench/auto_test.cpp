// `auto`: the model's shortlist and the regret it is judged by.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "algorithm_choice.h"
#include "crossover.h"
#include "transport/algorithm.h"

namespace ringbench {
namespace {

SizeResult row_with(double median, double low, double high) {
  SizeResult r;
  r.time.median = median;
  r.time.ci95 = stats::Interval{low, high};
  return r;
}

TEST(AutoRegret, OnlyWhereIntervalsSeparateAndNeverNegative) {
  const SizeResult fastest = row_with(100, 98, 102);
  EXPECT_EQ(regret_text(row_with(120, 118, 122), fastest), "20%");
  EXPECT_EQ(regret_text(row_with(103, 101, 105), fastest), "noise") << "overlapping intervals";
  EXPECT_EQ(regret_text(row_with(90, 89, 91), fastest), "noise") << "a pick faster than the fastest row";
  SizeResult no_interval = row_with(150, 0, 0);
  no_interval.time.ci95.reset();
  EXPECT_EQ(regret_text(no_interval, fastest), "noise") << "too few calls for an interval";
  for (double median : {50.0, 99.0, 100.0, 101.0, 300.0}) {
    const std::string text = regret_text(row_with(median, median * 0.99, median * 1.01), fastest);
    EXPECT_NE(text.front(), '-') << median;
  }
}

std::vector<const Algorithm*> allreduce_algorithms() {
  std::vector<const Algorithm*> list;
  for (const Algorithm* a : all_algorithms())
    if (a->collective() == Collective::AllReduce) list.push_back(a);
  return list;
}

bool listed(const std::vector<const Algorithm*>& list, std::string_view name) {
  return std::any_of(list.begin(), list.end(), [&](const Algorithm* a) { return a->name() == name; });
}

// At N=2 naive and recursive doubling take one step and ring two, for the same bytes, so a
// latency-heavy model prices naive cheapest at every size; above 64 KiB it must not be offered.
TEST(AutoShortlist, NaiveIsNeverOfferedAbove64KiB) {
  const LinkModel latency_heavy{100e-6, 1e-10};
  const std::vector<int> hosts = {0, 0};
  const auto small = shortlist(allreduce_algorithms(), latency_heavy, hosts, 16 << 10, 4);
  EXPECT_TRUE(listed(small, "naive"));
  for (size_t bytes : {size_t{64 << 10} + 4, size_t{1} << 20, size_t{64} << 20}) {
    const auto list = shortlist(allreduce_algorithms(), latency_heavy, hosts, bytes / 4, 4);
    EXPECT_FALSE(listed(list, "naive")) << bytes;
    EXPECT_FALSE(list.empty()) << bytes;
  }
}

// The shortlist keeps the algorithms priced within kShortlistFactor of the cheapest, cheapest
// first, and leaves out one that moves several times the bytes at a bandwidth-bound size.
TEST(AutoShortlist, KeepsTheCloseOnesCheapestFirst) {
  const LinkModel bandwidth_bound{1e-6, 1e-9};
  const std::vector<int> hosts = {0, 0, 0, 0};
  const size_t count = (64u << 20) / 4;
  const auto list = shortlist(allreduce_algorithms(), bandwidth_bound, hosts, count, 4);
  ASSERT_FALSE(list.empty());
  EXPECT_TRUE(listed(list, "ring"));
  EXPECT_FALSE(listed(list, "naive"));
  for (size_t i = 1; i < list.size(); ++i)
    EXPECT_LE(predicted_seconds(*list[i - 1], bandwidth_bound, hosts, count, 4),
              predicted_seconds(*list[i], bandwidth_bound, hosts, count, 4));
  EXPECT_LE(predicted_seconds(*list.back(), bandwidth_bound, hosts, count, 4),
            kShortlistFactor * predicted_seconds(*list.front(), bandwidth_bound, hosts, count, 4));
}

}  // namespace
}  // namespace ringbench
