#pragma once
// The interface every collective algorithm implements, and helpers they share.
//
// An algorithm is one function: given a group laid out on the cluster, an op and a message size
// S, it adds the bytes every member sends and receives to `traffic` (which routes them onto the
// links they cross) and returns the group's latency term: the number of sequential steps, each
// weighted by the latency of the slowest hop taken in that step (the alpha in alpha-beta). The
// bandwidth term (the beta) is not computed here: it comes from the links' loads, after every
// group of the batch has added its traffic (see collective_cost.h). Phases of an algorithm that
// wait for each other's results (a scale-up phase, then a network phase) add their times.
//
// Each algorithm file opens with its table: steps, bytes sent per GPU, when it wins.

#include <string>

#include "../collective.h"
#include "../fabric.h"
#include "../group.h"

namespace ringbench::model::algorithms {

struct Steps {
  bool applicable = true;
  double latency_us = 0;
  std::string why_not;  // when !applicable: one phrase, e.g. "needs a power-of-two group"
  // The algorithm runs a scale-up phase and a network phase one after the other (hierarchical,
  // in-switch across islands), so its time is the scale-up bottleneck's plus the network
  // bottleneck's (collective_cost.h).
  bool phased = false;

  static Steps not_applicable(std::string why) { return {false, 0, std::move(why), false}; }
};

Steps ring(const GroupLayout& g, Op op, double bytes, Traffic& t);
Steps tree(const GroupLayout& g, Op op, double bytes, Traffic& t);
Steps halving_doubling(const GroupLayout& g, Op op, double bytes, Traffic& t);
Steps hierarchical(const GroupLayout& g, Op op, double bytes, Traffic& t);
Steps in_switch(const GroupLayout& g, Op op, double bytes, Traffic& t);
Steps direct(const GroupLayout& g, Op op, double bytes, Traffic& t);

// Dispatch by enum.
Steps run(Algorithm algorithm, const GroupLayout& g, Op op, double bytes, Traffic& t);

// Moves `bytes` from island `from` to island `to` of the group the way NCCL's multi-channel
// algorithms do: split evenly over the distinct NICs of `from`'s members, each NIC sending to a
// member of `to` on the same rail when there is one (rail-local), else round robin. Returns the
// largest hop latency used.
double island_to_island(const GroupLayout& g, int from, int to, double bytes, Traffic& t);

// Every member of every island sends and receives `bytes` on its scale-up port.
void each_member_scale_up(const GroupLayout& g, double tx_bytes, double rx_bytes, Traffic& t, double weight = 1.0);

}  // namespace ringbench::model::algorithms
