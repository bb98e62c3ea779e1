#pragma once
// topomodel's subcommands. Each registers itself on the app and runs from its callback; bad input
// throws model::InputError (main prints it on one line and exits 2).

#include <CLI/CLI.hpp>
#include <string>

#include "model/cluster.h"
#include "model/placement.h"
#include "tables.h"

namespace ringbench::topomodel {

struct Context {
  std::string command_line;
  int exit_status = 0;
};

// --order's default: the model's own rank order (model::Placement), written as the flag takes it.
inline std::string default_rank_order() { return model::Placement{}.order_string(); }

// --cluster / --nodes / --gpus / -o, shared by collective and sweep.
struct ClusterOptions {
  std::string cluster = "dgx-h100";
  int nodes = 0;
  int gpus = 0;
  std::string output;
  CLI::Option* nodes_option = nullptr;  // to tell "--nodes 0" from no --nodes
  CLI::Option* gpus_option = nullptr;

  void add_to(CLI::App& command, bool with_output = true);
  // The preset or file, resized by --nodes or --gpus (InputError if both, or invalid).
  model::Cluster resolve() const;
};

// The /model/runs record of this run, started now (cluster may be null).
RunRecord run_record(const char* command, const Context& context, const model::Cluster* cluster, int gpus);

void add_clusters_command(CLI::App& app, Context& context);
void add_collective_command(CLI::App& app, Context& context);
void add_sweep_command(CLI::App& app, Context& context);
void add_validate_command(CLI::App& app, Context& context);
void add_step_command(CLI::App& app, Context& context);
void add_failures_command(CLI::App& app, Context& context);
void add_calibrate_command(CLI::App& app, Context& context);
void add_predict_command(CLI::App& app, Context& context);

}  // namespace ringbench::topomodel
