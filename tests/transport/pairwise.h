#pragma once
// A tiny deterministic pairwise (all-pairs) generator: rows of parameter-value indices such that
// every pair of values of any two parameters occurs in at least one row. Greedy (AETG-style):
// each row starts from the first uncovered pair and fills the other parameters with the value
// that covers the most still-uncovered pairs, lowest index on ties. Deterministic, so test names
// are stable; far smaller than the cross-product (about max_i(v_i) x second-largest v_j rows).

#include <cstddef>
#include <set>
#include <tuple>
#include <vector>

namespace ringbench::testing {

inline std::vector<std::vector<int>> pairwise_rows(const std::vector<int>& values_per_parameter) {
  const int k = static_cast<int>(values_per_parameter.size());
  std::set<std::tuple<int, int, int, int>> uncovered;  // (param i, value a, param j > i, value b)
  for (int i = 0; i < k; ++i)
    for (int j = i + 1; j < k; ++j)
      for (int a = 0; a < values_per_parameter[i]; ++a)
        for (int b = 0; b < values_per_parameter[j]; ++b) uncovered.insert({i, a, j, b});
  auto covers = [&](int i, int a, int j, int b) {
    return i < j ? uncovered.count({i, a, j, b}) > 0 : uncovered.count({j, b, i, a}) > 0;
  };

  std::vector<std::vector<int>> rows;
  if (k == 1)
    for (int a = 0; a < values_per_parameter[0]; ++a) rows.push_back({a});
  while (!uncovered.empty()) {
    auto [i0, a0, j0, b0] = *uncovered.begin();
    std::vector<int> row(k, -1);
    row[i0] = a0;
    row[j0] = b0;
    for (int p = 0; p < k; ++p) {
      if (row[p] >= 0) continue;
      int best = 0, best_gain = -1;
      for (int v = 0; v < values_per_parameter[p]; ++v) {
        int gain = 0;
        for (int q = 0; q < k; ++q)
          if (row[q] >= 0 && covers(p, v, q, row[q])) ++gain;
        if (gain > best_gain) best = v, best_gain = gain;
      }
      row[p] = best;
    }
    for (int i = 0; i < k; ++i)
      for (int j = i + 1; j < k; ++j) uncovered.erase({i, row[i], j, row[j]});
    rows.push_back(row);
  }
  return rows;
}

}  // namespace ringbench::testing
