#pragma once
// A machine ringbench measured, written as a cluster in the model's own format (cluster_json.h),
// so every topomodel command loads it with --cluster FILE: its ranks are the "GPUs" (one island
// per host, a PCIe-kind fabric), the same-host link class is scale_up, the across-hosts class is
// nics (one per host), and host_cpu holds the cores and one core's reduce and copy rates. The
// rates are what was measured, so every efficiency is 1. A one-host run has no across-hosts
// figures: nics then repeats the same-host fit, and the description says so.

#include <optional>
#include <string>
#include <vector>

#include "cluster.h"
#include "exchange_rate.h"
#include "link_fit.h"

namespace ringbench::model {

struct MachineMeasurements {
  std::string name;         // "measured-<run id's first 8 characters>"
  std::string description;  // where it came from: run, CPU model, date
  int hosts = 1;
  int ranks_per_host = 1;
  int cores_per_host = 1;
  double reduce_GBps = 0;
  double copy_GBps = 0;
  LinkParameters same_host;
  std::optional<LinkParameters> across_hosts;
  uint64_t piece_bytes = 0;  // the run's pipeline piece, which the fits' overheads are per
  std::vector<RatePoint> exchange_copy_rates;  // HostCpu's; empty when the run did not measure them
  std::vector<RatePoint> exchange_reduce_rates;  // likewise
};

// InputError naming the field when a figure is not positive (a run without probes).
Cluster measured_machine(const MachineMeasurements& m);

}  // namespace ringbench::model
