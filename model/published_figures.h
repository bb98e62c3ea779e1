#pragma once
// Published measurements the model is fitted on and checked against, with their sources, in one
// place (published_figures.cpp). Fitted cases set the cluster efficiencies (each fitted case sets
// exactly one); checked cases are predictions the fit never saw, and the model must land within
// kCheckTolerance of each. `topomodel validate` prints the table; tests/model checks it.

#include <string>
#include <vector>

#include "cluster.h"

namespace ringbench::model {

inline constexpr double kCheckTolerance = 0.20;  // |model - published| / published

enum class CaseRole { Fitted, Checked };
const char* to_string(CaseRole role);

struct ValidationRow {
  std::string name;       // "DGX H100, 8 GPUs, ring all-reduce"
  CaseRole role;
  std::string fits;       // the efficiency a fitted case sets ("efficiency.scale_up"), "" if checked
  std::string metric;     // "busbw" or "p2p bandwidth"
  std::string source;     // citation
  double published_GBps;  // GB = 1e9 bytes
  double model_GBps;
  double error;           // (model - published) / published
  bool pass() const;      // fitted cases always pass (they are equal by construction)
};

// Efficiencies fitted on the fitted cases, computed once (thread-safe static) at first use.
const Efficiency& fitted_efficiency();

// Every case, fitted first, with the model's prediction using fitted_efficiency().
std::vector<ValidationRow> validation_table();

}  // namespace ringbench::model
