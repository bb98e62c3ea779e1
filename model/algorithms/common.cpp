#include <algorithm>

#include "algorithm.h"

namespace ringbench::model::algorithms {

double island_to_island(const GroupLayout& g, int from, int to, double bytes, Traffic& t) {
  const Cluster& c = t.cluster();
  // Distinct NICs of `from`: members are ascending, so equal NICs are adjacent.
  int nic_count = 0;
  int previous_nic = -1;
  for (int j = 0; j < g.island_size(from); ++j) {
    const int nic = locate(c, g.member(from, j)).nic;
    if (nic != previous_nic) ++nic_count;
    previous_nic = nic;
  }
  const double share = bytes / nic_count;
  double latency = 0;
  previous_nic = -1;
  int channel = 0;
  for (int j = 0; j < g.island_size(from); ++j) {
    const int src = g.member(from, j);
    const Location ls = locate(c, src);
    if (ls.nic == previous_nic) continue;
    previous_nic = ls.nic;
    int dst = -1;
    for (int m = 0; m < g.island_size(to) && dst < 0; ++m) {
      if (locate(c, g.member(to, m)).rail == ls.rail) dst = g.member(to, m);
    }
    if (dst < 0) dst = g.member(to, channel % g.island_size(to));
    ++channel;
    t.network(src, dst, share);
    latency = std::max(latency, t.hop_latency_us(src, dst));
  }
  return latency;
}

void each_member_scale_up(const GroupLayout& g, double tx_bytes, double rx_bytes, Traffic& t, double weight) {
  for (int gpu : g.gpus) {
    t.scale_up_tx(gpu, tx_bytes, weight);
    t.scale_up_rx(gpu, rx_bytes, weight);
  }
}

Steps run(Algorithm algorithm, const GroupLayout& g, Op op, double bytes, Traffic& t) {
  switch (algorithm) {
    case Algorithm::Ring: return ring(g, op, bytes, t);
    case Algorithm::Tree: return tree(g, op, bytes, t);
    case Algorithm::HalvingDoubling: return halving_doubling(g, op, bytes, t);
    case Algorithm::Hierarchical: return hierarchical(g, op, bytes, t);
    case Algorithm::InSwitch: return in_switch(g, op, bytes, t);
    case Algorithm::Direct: return direct(g, op, bytes, t);
  }
  return Steps::not_applicable("unknown algorithm");
}

}  // namespace ringbench::model::algorithms
