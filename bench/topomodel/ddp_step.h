#pragma once
// `topomodel step --workload ddp`: the bucketed, overlapped data-parallel step that
// `ringbench --workload ddp` measures (model/bucketed_step.h), over a sweep of bucket sizes, with
// the best bucket marked; -o appends /model/ddp_steps.
//
//   topomodel step --workload ddp --cluster dgx-h100 --bucket-bytes 64Ki:128Mi

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "commands.h"

namespace ringbench::topomodel {

struct DdpOptions {
  std::string grad_bytes = "128Mi";  // issue 17's workload, as ringbench's default
  int layers = 32;
  std::string bucket_bytes = "64Ki:128Mi";
  double compute_ms = 0;  // per layer; only when --compute-ms is given
  std::string algo = "ring";
  std::vector<CLI::Option*> flags;  // to tell which were given
  CLI::Option* compute_ms_flag = nullptr;

  void add_to(CLI::App& command);
  // The first DDP flag given on the command line, or "" (the transformer step rejects them).
  std::string first_given() const;
};

// "SIZE", "A:B" (A, 2A, 4A, ... up to B) or "A,B,C": the bucket sizes to price, in order
// (InputError naming --bucket-bytes).
std::vector<uint64_t> parse_bucket_sizes(const std::string& text);

void run_ddp_step(const ClusterOptions& cluster, const DdpOptions& o, Context& context);

}  // namespace ringbench::topomodel
