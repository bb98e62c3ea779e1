#include "algorithm_choice.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "link_test.h"
#include "machine_probes.h"
#include "model/error.h"
#include "model/measured_machine.h"
#include "model/plan_cost.h"
#include "run_conditions.h"
#include "spec/algorithm_spec.h"
#include "transport/communicator.h"

namespace ringbench {

namespace {

bool may_pick(const Algorithm& algorithm, uint64_t bytes) {
  return !(algorithm.name() == "naive" && bytes > kNaiveLargestBytes);
}

const model::LinkClassFit* find_fit(const std::vector<model::LinkClassFit>& fits, const char* link_class) {
  for (const auto& f : fits)
    if (f.link_class == link_class) return &f;
  return nullptr;
}

// The measured machine of topomodel calibrate (bench/topomodel/calibration.cpp), from auto's fits.
// With one rank per host there is no same-host class; the across-hosts fit stands in for it (no
// transfer then stays on a host, and the kernel copy rate is capped by the memcpy probe anyway).
model::Cluster machine_of(const AutoMachine& m, std::span<const int> host_of_rank, int host_cores, uint64_t piece_bytes,
                          std::span<const model::ExchangeSample> exchanges) {
  const model::LinkClassFit* same = find_fit(m.fits, "same host");
  const model::LinkClassFit* across = find_fit(m.fits, "across hosts");
  if (!same && !across) throw model::InputError("auto: the link test measured no link class");
  const int hosts = *std::max_element(host_of_rank.begin(), host_of_rank.end()) + 1;
  std::vector<int> ranks_on(static_cast<size_t>(hosts), 0);
  for (int h : host_of_rank) ++ranks_on[static_cast<size_t>(h)];
  model::MachineMeasurements mm;
  mm.name = "auto";
  mm.description = "measured by ringbench --algo auto: this run's link test and core probes";
  mm.hosts = hosts;
  mm.ranks_per_host = *std::max_element(ranks_on.begin(), ranks_on.end());
  mm.cores_per_host = host_cores;
  mm.reduce_GBps = m.reduce_GBps, mm.copy_GBps = m.copy_GBps;
  mm.same_host = (same ? same : across)->fit.link;
  if (across) mm.across_hosts = across->fit.link;
  mm.piece_bytes = piece_bytes;
  if (hosts == 1 && !exchanges.empty()) {
    mm.exchange_copy_rates = model::exchange_copy_rates(exchanges, mm.ranks_per_host, mm.cores_per_host, mm.copy_GBps,
                                                          mm.same_host.latency_us);
    mm.exchange_reduce_rates = model::exchange_reduce_rates(exchanges, mm.ranks_per_host, mm.cores_per_host,
                                                              mm.reduce_GBps);
  }
  return model::measured_machine(mm);
}

// The ring send/receive a run's link test makes at each row (link_test.h), at a few chunk sizes, so
// that auto prices copies at the rate they run with every rank busy, as topomodel calibrate does
// (model/exchange_rate.h). One host only: across hosts the slow link paces it. Up to 1 MiB chunks,
// so the N chunk slots it needs stay small; beyond, the run's exchange ladder's chunks, where it
// measured one (else the rate is flat beyond the largest). Collective.
std::vector<model::ExchangeSample> measure_exchanges(Communicator& comm, bool one_host, std::span<const ExchangePoint> ladder) {
  std::vector<model::ExchangeSample> samples;
  if (!one_host) return samples;
  constexpr int kRepetitions = 5;
  for (const uint64_t chunk : {uint64_t{16} << 10, uint64_t{64} << 10, uint64_t{256} << 10, uint64_t{1} << 20}) {
    const double seconds = ring_exchange_seconds(comm, chunk, kRepetitions, 2 * (comm.size() - 1));
    samples.push_back({chunk, seconds * 1e6});
  }
  for (const ExchangePoint& point : ladder) samples.push_back({point.chunk_bytes, point.chunk_us, point.reduces});
  return samples;
}

}  // namespace

AutoMachine measure_auto_machine(Communicator& comm, std::span<const int> host_of_rank, DataType dtype, ReduceOp op,
                                 std::span<const ExchangePoint> ladder) {
  AutoMachine m;
  if (comm.size() == 1) {
    m.why = "one rank, nothing to price";
    return m;
  }
  const std::vector<LinkPoint> points = measure_link_classes(comm);  // collective; rank 0's points
  const bool one_host = std::all_of(host_of_rank.begin(), host_of_rank.end(), [](int h) { return h == 0; });
  const std::vector<model::ExchangeSample> exchanges = measure_exchanges(comm, one_host, ladder);  // collective
  if (comm.rank() != 0) return m;
  const CoreRates rates = measure_core_rates(dtype, op);
  m.reduce_GBps = rates.reduce_GBps, m.copy_GBps = rates.copy_GBps;
  try {
    m.fits = model::fit_link_classes(link_class_samples(points));
    m.machine = machine_of(m, host_of_rank, comm.host_cores(), comm.pipeline_piece(element_size(dtype)), exchanges);
  } catch (const model::InputError& e) {
    m.machine.reset();
    m.why = e.what();
  }
  return m;
}

std::vector<double> price_candidates(const std::vector<const Algorithm*>& candidates, const model::Cluster& machine,
                                     std::span<const int> host_of_rank, size_t count, size_t element_bytes, int root,
                                     uint64_t piece_bytes, const SegmentChoice& segments) {
  std::vector<double> prices;
  for (const Algorithm* a : candidates) {
    const spec::AlgorithmSpec* spec = spec::find_algorithm_spec(to_string(a->collective()), a->name());
    if (!spec || !may_pick(*a, count * element_bytes)) {
      prices.push_back(std::numeric_limits<double>::infinity());
      continue;
    }
    model::PlanCall call{spec,  count, element_bytes, root, std::vector<int>(host_of_rank.begin(), host_of_rank.end()),
                         piece_bytes, 0.0};
    call.segment_bytes = segments.bytes_for(*a, static_cast<int>(host_of_rank.size()), count * element_bytes);
    prices.push_back(model::plan_cost(machine, call).time_us);
  }
  return prices;
}

std::vector<size_t> contenders(const std::vector<const Algorithm*>& candidates, std::span<const double> predicted_us,
                               uint64_t bytes, double max_seconds) {
  std::vector<size_t> order;
  if (predicted_us.empty()) {
    for (size_t i = 0; i < candidates.size(); ++i)
      if (may_pick(*candidates[i], bytes)) order.push_back(i);
    return order;
  }
  for (size_t i = 0; i < candidates.size() && i < predicted_us.size(); ++i)
    if (std::isfinite(predicted_us[i]) && may_pick(*candidates[i], bytes)) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return predicted_us[a] < predicted_us[b]; });
  // Every candidate priced within the close ratio of the cheapest races it: the model cannot tell
  // them apart on this machine, so the wire does. So does one the wire rules out cheaply.
  const double cheap_us = RacePolicy::cheap_to_rule_out_us(max_seconds);
  const auto beyond = std::find_if(order.begin(), order.end(), [&](size_t i) {
    return predicted_us[i] > std::max(RacePolicy::kCloseRatio * predicted_us[order.front()], cheap_us);
  });
  order.erase(beyond, order.end());
  return order;
}

}  // namespace ringbench
