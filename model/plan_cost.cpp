#include "plan_cost.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <span>

#include "error.h"

namespace ringbench::model {
namespace {

constexpr size_t kSameHost = 0, kAcrossHosts = 1, kClasses = 2;

// One rank's traffic in one step, per link class.
struct RankStep {
  std::array<uint64_t, kClasses> bytes_sent{}, bytes_received{}, pieces_sent{}, pieces_received{};
  uint64_t bytes_reduced = 0;
  uint64_t largest_message = 0;  // the most bytes of one send or one receive, whatever the peer
  std::vector<std::pair<int, double>> senders;  // each receive's peer and its class's latency
  bool busy = false;
};

RankStep rank_step(const spec::Step& step, int rank, const PlanCall& call, const std::array<LinkParameters, kClasses>& links) {
  RankStep s;
  const auto class_of = [&](int peer) {
    const auto& hosts = call.host_of_rank;
    return hosts[static_cast<size_t>(peer)] == hosts[static_cast<size_t>(rank)] ? kSameHost : kAcrossHosts;
  };
  for (const auto& send : step.sends) {
    const size_t c = class_of(send.peer);
    const uint64_t bytes = send.range.count * call.element_bytes;
    s.bytes_sent[c] += bytes;
    s.pieces_sent[c] += message_pieces(bytes, call.piece_bytes);
    s.largest_message = std::max(s.largest_message, bytes);
  }
  for (const auto& recv : step.recvs) {
    const size_t c = class_of(recv.peer);
    const uint64_t bytes = recv.range.count * call.element_bytes;
    s.bytes_received[c] += bytes;
    s.pieces_received[c] += message_pieces(bytes, call.piece_bytes);
    s.largest_message = std::max(s.largest_message, bytes);
    if (spec::reduces(recv.arrival)) s.bytes_reduced += bytes;
    s.senders.emplace_back(recv.peer, links[c].latency_us);
  }
  s.busy = !step.empty();
  return s;
}

double per_core_us(uint64_t bytes, double GBps) { return GBps > 0 ? static_cast<double>(bytes) / (GBps * 1e3) : 0; }

// wire_r of plan_cost.h's rule. host_across_bytes: what each NIC of the rank's host carries in
// this step, the rank's own across-hosts bytes and its host-mates' together.
double wire_us(const RankStep& s, const std::array<LinkParameters, kClasses>& links, uint64_t host_across_bytes) {
  double us = 0;
  for (size_t c = 0; c < kClasses; ++c) {
    if (s.pieces_sent[c] + s.pieces_received[c] == 0) continue;
    us += links[c].message_overhead_us * static_cast<double>(std::max(s.pieces_sent[c], s.pieces_received[c]));
    uint64_t bytes = std::max(s.bytes_sent[c], s.bytes_received[c]);
    if (c == kAcrossHosts) bytes = std::max(bytes, host_across_bytes);
    us += per_core_us(bytes, links[c].bandwidth_GBps);
  }
  return us;
}

// Per host, the across-hosts bytes each of its NICs carries in one step: its ranks' bytes sent,
// or received if more (a link carries both directions at once), spread over nics_per_host. The
// link test measured one flow alone on the link; ranks of one host that cross at once share it.
std::vector<uint64_t> host_across_bytes(const std::vector<RankStep>& ranks, const std::vector<int>& host_of_rank,
                                        int nics_per_host) {
  const size_t hosts = static_cast<size_t>(*std::max_element(host_of_rank.begin(), host_of_rank.end())) + 1;
  std::vector<uint64_t> sent(hosts, 0), received(hosts, 0), per_nic(hosts, 0);
  for (size_t r = 0; r < ranks.size(); ++r) {
    sent[static_cast<size_t>(host_of_rank[r])] += ranks[r].bytes_sent[kAcrossHosts];
    received[static_cast<size_t>(host_of_rank[r])] += ranks[r].bytes_received[kAcrossHosts];
  }
  for (size_t h = 0; h < hosts; ++h)
    per_nic[h] = std::max(sent[h], received[h]) / static_cast<uint64_t>(std::max(1, nics_per_host));
  return per_nic;
}

// work_r of plan_cost.h's rule.
double cpu_work_us(const RankStep& s, double kernel_GBps, double reduce_GBps) {
  uint64_t copied = 0;
  for (size_t c = 0; c < kClasses; ++c) copied += s.bytes_sent[c] + s.bytes_received[c];
  return per_core_us(copied, kernel_GBps) + per_core_us(s.bytes_reduced, reduce_GBps);
}

// piece_work_r of plan_cost.h's rule: each piece's wake-up and system calls, at the end that sends
// it and at the end that receives it.
double piece_work_us(const RankStep& s, const std::array<LinkParameters, kClasses>& links) {
  double us = 0;
  for (size_t c = 0; c < kClasses; ++c)
    us += links[c].message_overhead_us * static_cast<double>(s.pieces_sent[c] + s.pieces_received[c]);
  return us;
}

// The copy rate and links one rank's step is priced with. Where the machine measured its copy rate
// while every rank exchanged (exchange_rate.h), that rate at the step's largest message prices the
// copies and the same-host link both, with no per-piece overhead: the exchange moved its pieces
// too, so their cost is in its rate. Else the machine's constants. Likewise the reduction: at the
// reducing exchange's rate at that message where the machine measured one, else the probe's.
struct StepRates {
  double kernel_GBps = 0;
  std::array<LinkParameters, kClasses> links;
  double reduce_GBps = 0;
};

// The buffer a call's steps are slices of (plan_cost.h): the call's own, or the larger one its data
// lies in. A step that moves less than one whole chunk of it is a slice: a pipelined plan's
// segment, a bucket of the gradients. The element is the chunk layout's rounding, so a chunk one
// element short of buffer / N is a whole chunk, not a slice.
struct ResidentBuffer {
  uint64_t chunk = 0;  // buffer / N, the link test row's chunk for a buffer this large
  uint64_t element_bytes = 1;
  bool holds_a_slice(uint64_t message) const { return message + element_bytes <= chunk; }
};

// A curve's rate at the step's largest message; for a slice of a larger buffer, no faster than at
// a whole chunk of it (the slice streams through memory the caches do not hold).
double measured_rate(std::span<const RatePoint> curve, const RankStep& s, const ResidentBuffer& resident) {
  const uint64_t message = s.largest_message;
  double rate = rate_at(curve, message);
  if (resident.holds_a_slice(message)) rate = std::min(rate, rate_at(curve, resident.chunk));
  return rate;
}

StepRates step_rates(const Cluster& machine, const std::array<LinkParameters, kClasses>& links, double kernel_GBps,
                     const RankStep& s, const ResidentBuffer& resident) {
  const HostCpu& cpu = machine.host_cpu;
  StepRates rates{kernel_GBps, links, cpu.reduce_GBps};
  if (!s.busy) return rates;
  if (!cpu.exchange_reduce_rates.empty() && s.bytes_reduced > 0)
    rates.reduce_GBps = measured_rate(cpu.exchange_reduce_rates, s, resident);
  if (cpu.exchange_copy_rates.empty()) return rates;
  rates.kernel_GBps = measured_rate(cpu.exchange_copy_rates, s, resident);
  rates.links[kSameHost].bandwidth_GBps = rates.kernel_GBps;
  rates.links[kSameHost].message_overhead_us = 0;
  return rates;
}

// One host's ranks' work in one step: the largest (a rank runs on one core at most) and the sum,
// over the cores left to them. With more ranks than the host has cores no core is ever idle, so
// the pieces' CPU time at both ends queues for the same cores as the copies: it joins the sum. The
// host's own cores decide, not those other processes left: under load the link test's fitted
// overhead already holds the wait for a core.
struct HostWork {
  double largest = 0, sum = 0, piece_sum = 0;
  int ranks = 0;
  double us(double cores, int host_cores) const {
    if (cores <= 0) return 0;
    const double shared = sum + (ranks > host_cores ? piece_sum : 0);
    return std::max(largest / std::min(1.0, cores), shared / cores);
  }
};

void check_call(const Cluster& machine, const PlanCall& call) {
  if (call.algorithm == nullptr) throw InputError("plan cost: no algorithm given");
  if (call.host_of_rank.empty()) throw InputError("plan cost: a call needs at least one rank");
  for (int h : call.host_of_rank)
    if (h < 0) throw InputError(fmt::format("plan cost: host index {} is negative", h));
  if (machine.host_cpu.cores < 0)
    throw InputError(fmt::format("host_cpu.cores must be >= 0, got {}", machine.host_cpu.cores));
  if (!(call.entry_skew_us >= 0))
    throw InputError(fmt::format("plan cost: entry skew must be >= 0 us, got {}", call.entry_skew_us));
  if (!(call.foreign_cpu_share >= 0 && call.foreign_cpu_share < 1))
    throw InputError(fmt::format("plan cost: foreign CPU share must be in [0, 1), got {}", call.foreign_cpu_share));
}

std::vector<spec::Schedule> all_plans(const PlanCall& call) {
  std::vector<spec::Schedule> plans;
  const int n = static_cast<int>(call.host_of_rank.size());
  for (int r = 0; r < n; ++r) {
    spec::PlanInput input{r, n, call.count, call.element_bytes, call.root, call.host_of_rank, call.segment_bytes};
    plans.push_back(call.algorithm->plan(input));
  }
  return plans;
}

}  // namespace

LinkParameters link_class(const Cluster& machine, bool same_host) {
  const HostCpu& cpu = machine.host_cpu;
  if (same_host)
    return {machine.scale_up.latency_us, machine.scale_up.bw_GBps * machine.efficiency.scale_up,
            cpu.same_host_message_overhead_us};
  return {machine.nics.latency_us, machine.nics.bw_Gbps / 8 * machine.efficiency.nic, cpu.across_hosts_message_overhead_us};
}

double kernel_copy_GBps(const Cluster& machine) {
  if (machine.host_cpu.cores <= 0) return 0;
  return std::min(machine.host_cpu.copy_GBps, link_class(machine, true).bandwidth_GBps);
}

namespace {

// One step of every rank: each busy rank starts once it is free and its senders' data has had
// their latency to arrive, then takes the step's duration (the larger of its wire time and its
// host's CPU time). `ready` holds when each rank finished its previous steps; updated in place.
void advance_step(const std::vector<RankStep>& ranks, const std::vector<int>& host_of_rank, double cores, int host_cores,
                  std::span<const double> wire, std::span<const double> work, std::span<const double> piece_work,
                  std::vector<double>& ready, PlanCost& cost) {
  std::vector<HostWork> hosts(ready.size());
  for (size_t r = 0; r < ranks.size(); ++r) {
    HostWork& host = hosts[static_cast<size_t>(host_of_rank[r])];
    host.largest = std::max(host.largest, work[r]);
    host.sum += work[r];
    host.piece_sum += piece_work[r];
    ++host.ranks;
  }
  const std::vector<double> before = ready;
  double slowest_wire = 0, slowest_cpu = 0;
  for (size_t r = 0; r < ranks.size(); ++r) {
    if (!ranks[r].busy) continue;
    double start = before[r];
    for (const auto& [peer, latency] : ranks[r].senders) start = std::max(start, before[static_cast<size_t>(peer)] + latency);
    const double cpu = hosts[static_cast<size_t>(host_of_rank[r])].us(cores, host_cores);
    ready[r] = start + std::max(wire[r], cpu);
    slowest_wire = std::max(slowest_wire, wire[r]);
    slowest_cpu = std::max(slowest_cpu, cpu);
  }
  (slowest_cpu > slowest_wire ? cost.cpu_us : cost.wire_us) += std::max(slowest_wire, slowest_cpu);
}

}  // namespace

namespace {

// Every step's traffic and durations, which do not depend on when each rank starts.
struct PricedStep {
  std::vector<RankStep> ranks;
  std::vector<double> wire, work, piece_work;
};

std::vector<PricedStep> priced_steps(const Cluster& machine, const PlanCall& call) {
  const std::array<LinkParameters, kClasses> links = {link_class(machine, true), link_class(machine, false)};
  const std::vector<spec::Schedule> plans = all_plans(call);
  size_t steps = 0;
  for (const auto& p : plans) steps = std::max(steps, p.steps.size());
  const double kernel_GBps = kernel_copy_GBps(machine);
  const size_t n = plans.size();
  const uint64_t own_bytes = call.count * call.element_bytes;
  const ResidentBuffer resident{std::max(call.resident_bytes, own_bytes) / n, std::max<uint64_t>(1, call.element_bytes)};
  std::vector<PricedStep> priced;
  for (size_t t = 0; t < steps; ++t) {
    PricedStep step{std::vector<RankStep>(n), std::vector<double>(n), std::vector<double>(n), std::vector<double>(n)};
    bool busy = false;
    for (size_t r = 0; r < n; ++r) {
      if (t < plans[r].steps.size()) step.ranks[r] = rank_step(plans[r].steps[t], static_cast<int>(r), call, links);
      busy = busy || step.ranks[r].busy;
    }
    if (!busy) continue;
    const std::vector<uint64_t> across = host_across_bytes(step.ranks, call.host_of_rank, machine.nics.per_node);
    for (size_t r = 0; r < n; ++r) {
      const StepRates rates = step_rates(machine, links, kernel_GBps, step.ranks[r], resident);
      step.wire[r] = wire_us(step.ranks[r], rates.links, across[static_cast<size_t>(call.host_of_rank[r])]);
      step.work[r] = cpu_work_us(step.ranks[r], rates.kernel_GBps, rates.reduce_GBps);
      step.piece_work[r] = piece_work_us(step.ranks[r], rates.links);
    }
    priced.push_back(std::move(step));
  }
  return priced;
}

// The dataflow from each rank's entry (`ready`, us) to the last rank's finish, counted from the
// last entry.
PlanCost run_dataflow(const Cluster& machine, const PlanCall& call, const std::vector<PricedStep>& steps,
                      std::vector<double> ready) {
  const double cores = machine.host_cpu.cores * (1 - call.foreign_cpu_share);
  const double last_entry = *std::max_element(ready.begin(), ready.end());
  PlanCost cost;
  for (const auto& step : steps) {
    ++cost.steps;
    advance_step(step.ranks, call.host_of_rank, cores, machine.host_cpu.cores, step.wire, step.work, step.piece_work,
                 ready, cost);
  }
  cost.time_us = machine.launch_overhead_us + *std::max_element(ready.begin(), ready.end()) - last_entry;
  cost.latency_us = cost.time_us - machine.launch_overhead_us - cost.wire_us - cost.cpu_us;
  return cost;
}

// The median over which rank enters last (plan_cost.h, "Entry skew"); of an even number, the mean
// of the middle two.
PlanCost median_over_last_rank(const Cluster& machine, const PlanCall& call, const std::vector<PricedStep>& steps) {
  const size_t n = call.host_of_rank.size();
  std::vector<PlanCost> costs;
  for (size_t last = 0; last < n; ++last) {
    std::vector<double> ready(n, 0.0);
    ready[last] = call.entry_skew_us;
    costs.push_back(run_dataflow(machine, call, steps, std::move(ready)));
  }
  std::sort(costs.begin(), costs.end(), [](const PlanCost& a, const PlanCost& b) { return a.time_us < b.time_us; });
  const PlanCost &low = costs[(n - 1) / 2], &high = costs[n / 2];
  return {(low.time_us + high.time_us) / 2, (low.wire_us + high.wire_us) / 2, (low.cpu_us + high.cpu_us) / 2,
          (low.latency_us + high.latency_us) / 2, low.steps};
}

}  // namespace

PlanCost plan_cost(const Cluster& machine, const PlanCall& call) {
  check_call(machine, call);
  const std::vector<PricedStep> steps = priced_steps(machine, call);
  if (call.entry_skew_us > 0 && call.host_of_rank.size() > 1) return median_over_last_rank(machine, call, steps);
  return run_dataflow(machine, call, steps, std::vector<double>(call.host_of_rank.size(), 0.0));
}

std::vector<int> block_placement(int world_size, int hosts) {
  std::vector<int> placement;
  for (int r = 0; r < world_size; ++r)
    placement.push_back(static_cast<int>(static_cast<int64_t>(r) * std::max(1, hosts) / std::max(1, world_size)));
  return placement;
}

}  // namespace ringbench::model
