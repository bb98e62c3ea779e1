#pragma once
// The order in which several algorithms take their turns in one round. A fixed order makes each
// one always follow the same predecessor, whose traffic leaves connections, caches and the
// scheduler in its own state; a difference that state causes then looks like a difference
// between the algorithms, and no interval shows it. A fresh random order each round spreads it
// over all of them (Hunold and Carpen-Amarie, "Reproducible MPI Benchmarking Is Still Not As Easy
// As You Think", IEEE TPDS 2016: randomise the order of the measurements).
//
// Every rank must take the same turns, so the order is a pure function of a seed the ranks share,
// drawn with std::mt19937_64 (whose sequence the standard fixes) and a Fisher-Yates shuffle written
// here (std::shuffle's is the library's own, and ranks on different hosts may run different ones).

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ringbench::stats {

// A permutation of 0..n-1, the same for the same (n, seed) on every machine.
std::vector<size_t> turn_order(size_t n, uint64_t seed);

}  // namespace ringbench::stats
