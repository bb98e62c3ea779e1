#pragma once
// The specification of every collective algorithm ringbench runs: its collective, its name, when
// it wins, its step count and its plan (schedule.h). One file per algorithm, named
// ALGORITHM_COLLECTIVE.cpp (ring_allreduce.cpp, binomial_broadcast.cpp, ...), opens with its
// table (steps, bytes sent per rank, when it wins) and holds the plan.
//
// Who uses it: the transport runs the plans (transport/collectives/, same file names); the byte
// check, the documented algorithm table and `--algo auto` take bytes and steps from them; the
// model's closed forms (model/algorithms/) are tested against them (tests/spec).

#include <cstdint>
#include <string_view>
#include <vector>

#include "schedule.h"

namespace ringbench::spec {

struct AlgorithmSpec {
  std::string_view collective;    // as ringbench's --collective spells it: "allreduce", ...
  std::string_view name;          // as --algo spells it: "ring", "binomial-tree", ...
  std::string_view when_it_wins;  // one line for the documented table
  // Steps (rounds of exchange) of one call at this world size, for a one-segment message on one
  // host: the longest schedule over the ranks.
  uint32_t (*steps)(int world_size);
  Schedule (*plan)(const PlanInput& input);
  // Pipelined plans only (segments.h; PlanInput::segment_bytes cuts them): the steps that fill the
  // pipeline, i.e. a call of s segments takes s + fill_steps(N) steps. nullptr: not pipelined.
  uint32_t (*fill_steps)(int world_size) = nullptr;
};

// True when `spec`'s plan is cut into segments (PlanInput::segment_bytes).
inline bool is_pipelined(const AlgorithmSpec& spec) { return spec.fill_steps != nullptr; }

// The segment a pipelined algorithm's call of `message_bytes` runs fastest with on a link of
// `latency_us` and `bandwidth_GBps` (segments.h's formula, with fill_steps + 1); 0 (the plan's default)
// for one that is not pipelined.
uint64_t chosen_segment_bytes(const AlgorithmSpec& spec, int world_size, uint64_t message_bytes, double latency_us,
                              double bandwidth_GBps);

// Payload bytes `input.rank` sends in one call: the one byte formula of every algorithm.
inline uint64_t payload_bytes_sent(const AlgorithmSpec& spec, const PlanInput& input) {
  return spec.plan(input).elements_sent() * input.element_bytes;
}

const AlgorithmSpec& ring_allreduce();
const AlgorithmSpec& naive_allreduce();
const AlgorithmSpec& tree_allreduce();
const AlgorithmSpec& rhd_allreduce();
const AlgorithmSpec& recursive_doubling_allreduce();
const AlgorithmSpec& two_shot_allreduce();
const AlgorithmSpec& hierarchical_allreduce();
const AlgorithmSpec& ring_allgather();
const AlgorithmSpec& recursive_doubling_allgather();
const AlgorithmSpec& ring_reducescatter();
const AlgorithmSpec& rhd_reducescatter();
const AlgorithmSpec& chain_broadcast();
const AlgorithmSpec& binomial_broadcast();
const AlgorithmSpec& ring_reduce();
const AlgorithmSpec& binomial_reduce();
const AlgorithmSpec& pairwise_alltoall();

// Every algorithm, in the order reports list them: by collective, the bandwidth-optimal ring
// first, then the alternatives it is compared with.
const std::vector<const AlgorithmSpec*>& all_algorithm_specs();
// nullptr when there is no such algorithm for that collective.
const AlgorithmSpec* find_algorithm_spec(std::string_view collective, std::string_view name);

}  // namespace ringbench::spec
