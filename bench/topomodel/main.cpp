// topomodel: the topology model's command line. See docs/model.md.
//
//   topomodel clusters                       presets and their levels
//   topomodel collective --cluster ... --op allreduce --bytes 1G --group tp=8
//   topomodel sweep --cluster dgx-h100 --gpus 1024 ...
//   topomodel validate                       the model against published measurements and runs
//   topomodel step --cluster dgx-a100 --gpus 1024 --model gpt3-175b --tp 8 --pp 8
//   topomodel sweep ... --model gpt3-175b     placements ranked by training-step time
//   topomodel failures --cluster dgx-h100 --gpus 16384 --tp 8 --pp 16
//   topomodel calibrate ringbench.h5 -o machine.json   this machine, fitted on a run's link test
//   topomodel predict ringbench.h5 [--machine machine.json]   that run's rows, predicted
//
// Exit status: 0 success, 1 a checked validation case off by more than 20% or the results file
// could not be written, 2 bad input (one line on stderr naming the flag or field).

#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>

#include "commands.h"
#include "model/error.h"
#include "results/results_file.h"
#include "ringbench_version.h"

int main(int argc, char** argv) {
  using namespace ringbench::topomodel;
  Context context;
  for (int i = 0; i < argc; ++i) context.command_line += (i ? " " : "") + std::string(argv[i]);

  CLI::App app{"topomodel: GPU-cluster topology model: collective costs, placements, validation"};
  app.set_version_flag("--version", std::string(ringbench::kVersion) + " (" + ringbench::kGitRevision + ")");
  app.require_subcommand(1, 1);
  add_clusters_command(app, context);
  add_collective_command(app, context);
  add_sweep_command(app, context);
  add_validate_command(app, context);
  add_step_command(app, context);
  add_failures_command(app, context);
  add_calibrate_command(app, context);
  add_predict_command(app, context);

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);  // --help, --help-all, --version
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "topomodel: error: %s\n", e.what());
    return 2;
  } catch (const ringbench::model::InputError& e) {
    std::fprintf(stderr, "topomodel: error: %s\n", e.what());
    return 2;
  } catch (const ringbench::results::ResultsError& e) {
    std::fprintf(stderr, "topomodel: error: %s\n", e.what());
    return 1;
  }
  return context.exit_status;
}
