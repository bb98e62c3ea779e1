#pragma once
// Text output, nccl-tests style: '#'-prefixed header lines, a two-line column header with units,
// then one row per line, so `grep -v '^#'` leaves only the table.

#include <string>
#include <vector>

#include "model/cluster.h"
#include "model/collective_cost.h"
#include "model/published_figures.h"
#include "model/sweep.h"

namespace ringbench::topomodel {

// "0-7", or "0,8,16,...,56" for strided groups.
std::string describe_members(const std::vector<int>& members);
std::string cluster_line(const model::Cluster& c);

void print_collective_table(const std::vector<model::CollectiveCost>& costs, int best);
void print_sweep_table(const std::vector<model::PlacementResult>& results, size_t top);
void print_validation_table(const std::vector<model::ValidationRow>& rows);

}  // namespace ringbench::topomodel
