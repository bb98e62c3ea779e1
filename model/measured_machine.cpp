#include "measured_machine.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "error.h"

namespace ringbench::model {
namespace {

void require_positive(double value, const char* what) {
  if (!(value > 0) || !std::isfinite(value))
    throw InputError(fmt::format("measured machine: {} must be a positive number, got {}", what, value));
}

}  // namespace

Cluster measured_machine(const MachineMeasurements& m) {
  require_positive(m.reduce_GBps, "reduce_GBps (the run's reduction probe)");
  require_positive(m.copy_GBps, "copy_GBps (the run's copy probe)");
  require_positive(m.same_host.bandwidth_GBps, "the same-host bandwidth");
  Cluster c;
  c.name = m.name;
  c.description = m.description;
  c.gpu = "cpu rank";
  c.nodes = m.hosts;
  c.gpus_per_node = m.ranks_per_host;
  c.scale_up = {ScaleUpKind::PCIe, m.ranks_per_host, m.same_host.bandwidth_GBps, m.same_host.latency_us, false};
  const LinkParameters across = m.across_hosts.value_or(m.same_host);
  require_positive(across.bandwidth_GBps, "the across-hosts bandwidth");
  c.nics = {1, across.bandwidth_GBps * 8, across.latency_us};
  c.efficiency = {1.0, 1.0, 1.0};
  if (m.piece_bytes > static_cast<uint64_t>(std::numeric_limits<int>::max()))
    throw InputError(fmt::format("measured machine: pipeline piece {} B is beyond 2 GiB", m.piece_bytes));
  c.host_cpu = {m.cores_per_host, m.reduce_GBps, m.copy_GBps, m.same_host.message_overhead_us,
                across.message_overhead_us, static_cast<int>(m.piece_bytes), m.exchange_copy_rates,
                m.exchange_reduce_rates};
  c.launch_overhead_us = 0;  // the link fit's latency already holds a message's software step
  if (!m.across_hosts) c.description += " (one host: nics repeat the same-host fit)";
  validate(c);
  return c;
}

}  // namespace ringbench::model
