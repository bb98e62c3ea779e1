#pragma once
// A race among candidates measured in turns (successive elimination, as in racing algorithms for
// configuration selection: Maron and Moore's Hoeffding races, Birattari's F-Race): after each turn
// every candidate whose median's confidence interval lies wholly above the leader's leaves the
// race, and the race ends when one is left or the turns run out. Measurements go to the
// candidates that could still win, so two close contenders get many calls each while a clear
// loser gets only the first turns.
//
// Pure computation on plain numbers; who runs the turns and agrees on the result is the caller's
// business (auto's trial in bench/ringbench/sweep.cpp).

#include <cstddef>
#include <span>
#include <vector>

namespace ringbench::stats {

// The candidates of `racing` (indices into calls_by_candidate, each one's call times so far, in
// turns of calls_per_turn consecutive calls) that stay in the race: those whose 95% interval of
// the median is not wholly above the interval of the leader (the lowest median). The intervals are
// the rows' (call_statistics.h), with each turn a block: the calls of one turn share the machine's
// state of that moment, so an interval from the calls themselves is too narrow, and a candidate
// that drew one slow moment would leave the race on it (on the 2-core AMD EPYC VM, auto picked
// two-shot and the tree at N = 4, 128 and 256 KiB, where recursive doubling's row was 16% and 23%
// faster). A candidate with too few turns for an interval stays. The leader comes first; the
// others keep their order.
std::vector<size_t> race_survivors(std::span<const std::vector<double>> calls_by_candidate,
                                   std::span<const size_t> racing, size_t calls_per_turn);

// The candidate of `racing` with the lowest median (the first of equals). Requires a non-empty
// `racing` whose candidates all have calls.
size_t race_leader(std::span<const std::vector<double>> calls_by_candidate, std::span<const size_t> racing);

}  // namespace ringbench::stats
