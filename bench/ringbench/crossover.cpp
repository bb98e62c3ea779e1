#include "crossover.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string>

#include "byte_size.h"

namespace ringbench {

namespace {

// True when `a`'s whole interval lies above `b`'s: a difference the measurements can tell from
// noise. Rows without an interval (too few calls) never separate.
bool slower_beyond_noise(const SizeResult& a, const SizeResult& b) {
  return a.time.ci95 && b.time.ci95 && a.time.ci95->low > b.time.ci95->high;
}

// auto picks among ringbench's own algorithms, so its regret is against the fastest of those:
// the mpi rows are a baseline, often on another wire (shared memory).
const SizeResult& fastest_own(const std::map<std::string, const SizeResult*>& rows,
                              const std::vector<std::string>& names, const SizeResult& fallback) {
  const SizeResult* best = nullptr;
  for (const auto& name : names) {
    auto it = rows.find(name);
    if (it == rows.end() || !it->second->bytes_counted) continue;
    if (!best || it->second->time.median < best->time.median) best = it->second;
  }
  return best ? *best : fallback;
}

// The winner's name, with `~` when the runner-up's interval overlaps it (a tie within noise).
std::string winner_text(const SizeResult& best, const std::map<std::string, const SizeResult*>& rows) {
  for (const auto& [name, row] : rows)
    if (row != &best && name != "auto" && !slower_beyond_noise(*row, best)) return best.algorithm + "~";
  return best.algorithm;
}

}  // namespace

std::string regret_text(const SizeResult& pick, const SizeResult& best) {
  if (!slower_beyond_noise(pick, best)) return "noise";
  return fmt::format("{:.0f}%", 100.0 * std::max(0.0, pick.time.median / best.time.median - 1.0));
}

void print_crossovers(std::FILE* out, Collective collective, int world, const std::vector<SizeResult>& results) {
  // Columns: every measured algorithm in the order it ran; `auto` is summarised separately.
  std::vector<std::string> names;
  std::map<uint64_t, std::map<std::string, const SizeResult*>> by_size;
  for (const auto& r : results) {
    if (r.collective != collective) continue;
    by_size[r.bytes][r.algorithm] = &r;
    if (r.algorithm != "auto" && std::find(names.begin(), names.end(), r.algorithm) == names.end())
      names.push_back(r.algorithm);
  }
  if (by_size.empty() || names.size() < 2) return;
  const bool has_auto = std::any_of(results.begin(), results.end(),
                                    [&](const SizeResult& r) { return r.collective == collective && r.algorithm == "auto"; });

  fmt::print(out, "#\n# crossovers: {} at N={}: median time / fastest median at each size (1.00 = winner; winner~: "
                  "the runner-up's interval overlaps it; regret: auto's pick against the fastest of ringbench's own "
                  "algorithms, where the intervals separate, else noise)\n",
             to_string(collective), world);
  std::string header = fmt::format("# {:>9}", "size");
  for (const auto& name : names) header += fmt::format(" {:>18}", name);
  header += fmt::format(" {:>18}", "winner");
  if (has_auto) header += fmt::format(" {:>18} {:>8}", "auto picked", "regret");
  fmt::print(out, "{}\n", header);

  std::vector<std::pair<uint64_t, std::string>> winners;
  for (const auto& [bytes, rows] : by_size) {
    const SizeResult* best = nullptr;
    for (const auto& name : names) {
      auto it = rows.find(name);
      if (it != rows.end() && (!best || it->second->time.median < best->time.median)) best = it->second;
    }
    if (!best) continue;
    std::string line = fmt::format("# {:>9}", format_byte_size(bytes));
    for (const auto& name : names) {
      auto it = rows.find(name);
      line += it == rows.end() ? fmt::format(" {:>18}", "-")
                               : fmt::format(" {:>18.2f}", it->second->time.median / best->time.median);
    }
    line += fmt::format(" {:>18}", winner_text(*best, rows));
    if (has_auto) {
      auto it = rows.find("auto");
      if (it == rows.end()) {
        line += fmt::format(" {:>18} {:>8}", "-", "-");
      } else {
        // The pick's own measured row when it ran too (same algorithm, same size), else auto's.
        const std::string& pick = it->second->chosen;
        auto own = rows.find(pick);
        const SizeResult& picked = *(own != rows.end() ? own->second : it->second);
        line += fmt::format(" {:>18} {:>8}", pick, regret_text(picked, fastest_own(rows, names, *best)));
      }
    }
    fmt::print(out, "{}\n", line);
    if (winners.empty() || winners.back().second != best->algorithm) winners.emplace_back(bytes, best->algorithm);
  }
  std::string changes;
  for (size_t i = 0; i < winners.size(); ++i) {
    changes += (i ? "; " : "") + winners[i].second + " from " + format_byte_size(winners[i].first);
  }
  fmt::print(out, "# winner by size: {}\n", changes);
}

}  // namespace ringbench
