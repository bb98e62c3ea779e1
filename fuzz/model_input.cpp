#include "model_input.h"

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench/topomodel/sizes.h"
#include "model/cluster_json.h"
#include "model/collective_cost.h"
#include "model/error.h"
#include "model/failures.h"
#include "model/input_limits.h"
#include "model/placement.h"
#include "model/presets.h"
#include "model/step.h"
#include "model/workload.h"

namespace ringbench::fuzz {
namespace {

namespace limits = model::limits;

// A broken invariant: say which, then abort so libFuzzer keeps the input.
void require(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "model_input fuzz: %s\n", what);
    std::abort();
  }
}

void require_one_line(const std::exception& e) { require(std::strchr(e.what(), '\n') == nullptr, "error message is not one line"); }

// An accepted cluster: within the limits, every GPU locatable, the same after a JSON round trip,
// an all-reduce over its first GPUs costs a finite time and every component's failure has a
// blast radius (small clusters only, for speed).
void exercise(const model::Cluster& c) {
  require(c.gpus() >= 1 && c.gpus() <= limits::kMaxGpus, "accepted cluster outside 1..kMaxGpus GPUs");
  const model::Location last = model::locate(c, c.gpus() - 1);
  require(last.node == c.nodes - 1 && c.islands() >= 1 && c.leaves() >= 1 && c.pods() >= 1, "bad location arithmetic");
  (void)model::describe(c);
  const std::string json = model::cluster_to_json(c);
  require(model::cluster_to_json(model::cluster_from_json(json, "round trip")) == json, "cluster JSON does not round-trip");
  if (c.gpus() < 2 || c.gpus() > 4096) return;
  model::CostModel cost(c);
  std::vector<std::vector<int>> groups(1);
  for (int g = 0; g < std::min(c.gpus(), 16); ++g) groups[0].push_back(g);
  const model::Batch batch = cost.batch(groups);
  for (const auto& k : cost.cost_each(model::Op::AllReduce, batch, 1 << 20)) {
    require(!k.applicable || (std::isfinite(k.time_us) && k.time_us >= 0), "non-finite collective time");
  }
  model::Placement all_dp;
  all_dp[model::Dim::DP] = c.gpus();
  require(!model::blast_radius(c, all_dp, model::llama3_rates()).empty(), "no failure domains");
}

// An accepted workload: within the parameter limit, finite FLOPs, the same after a JSON round
// trip, and a training step on one 8-GPU node computes (or is refused as bad input).
void exercise(const model::Transformer& m) {
  require(m.params() > 0 && m.params() <= limits::kMaxParams, "accepted workload outside the parameter limit");
  require(std::isfinite(m.hardware_flops_per_token(model::Recompute::Full)), "non-finite FLOPs");
  const std::string json = model::workload_to_json(m);
  require(model::workload_to_json(model::workload_from_json(json, "round trip")) == json, "workload JSON does not round-trip");
  model::CostModel cost(model::preset("dgx-a100"));
  model::Placement p;
  p[model::Dim::DP] = 8;
  try {
    const model::StepResult r = model::step(cost, m, model::TrainingConfig{}, p);
    require(std::isfinite(r.step_us) && r.step_us > 0, "non-finite step time");
  } catch (const model::InputError& e) {
    require_one_line(e);  // e.g. the batch does not divide: bad input, not a crash
  }
}

void flag(uint8_t kind, const std::string& text) {
  if (kind == 2) {
    const uint64_t bytes = topomodel::parse_bytes(text, "--bytes");
    require(bytes >= 1 && static_cast<double>(bytes) <= limits::kMaxBytes, "size outside 1..kMaxBytes accepted");
  } else if (kind == 3) {
    const double count = topomodel::parse_count(text, "--params", limits::kMaxParams);
    require(count > 0 && count <= limits::kMaxParams, "count outside (0, kMaxParams] accepted");
  } else if (kind == 4) {
    std::string copy = text;
    const std::string error = topomodel::integer_in(1, limits::kMaxGpus)(copy);
    require(error.find('\n') == std::string::npos, "validator message is not one line");
    int value = 0;
    // What the validator accepts, CLI11 converts to an int without loss.
    if (error.empty()) require(CLI::detail::lexical_cast(text, value) && value >= 1 && value <= limits::kMaxGpus, "integer_in let through a value CLI11 cannot hold");
  } else {
    std::string copy = text;
    const std::string error = topomodel::number_in(0, limits::kMaxSeconds, true)(copy);
    require(error.find('\n') == std::string::npos, "validator message is not one line");
    double value = 0;
    if (error.empty()) require(CLI::detail::lexical_cast(text, value) && value > 0 && value <= limits::kMaxSeconds, "number_in let through nan, inf or a value out of range");
  }
}

}  // namespace

void check_model_input(const uint8_t* data, size_t size) {
  if (size == 0) return;
  const uint8_t kind = data[0] % 6;
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    if (kind == 0) {
      exercise(model::cluster_from_json(text, "fuzz.json"));
    } else if (kind == 1) {
      exercise(model::workload_from_json(text, "fuzz.json"));
    } else {
      flag(kind, text);
    }
  } catch (const model::InputError& e) {
    require_one_line(e);
  }
}

}  // namespace ringbench::fuzz
