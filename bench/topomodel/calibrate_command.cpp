// topomodel calibrate RESULTS.h5 [--run ID] -o machine.json: the machine a ringbench run measured,
// fitted on its link test and probes (calibration.h), written as a cluster file every command
// loads with --cluster, its residuals printed and appended to RESULTS.h5's /model/calibration.

#include <fmt/format.h>

#include <fstream>

#include "calibration.h"
#include "commands.h"
#include "model/cluster_json.h"
#include "model/error.h"
#include "results_output.h"

namespace ringbench::topomodel {
namespace {

struct CalibrateOptions {
  std::string results;
  std::string run;
  std::string machine;
  LinkFitKind link_fit = kDefaultLinkFit;
};

void write_machine(const model::Cluster& machine, const std::string& path) {
  std::ofstream out(path);
  // Indented, so a person can read and edit it; the model reads it back as any cluster file.
  if (out) out << model::cluster_to_json(machine, 2) << '\n';
  if (!out) throw model::InputError(fmt::format("-o {}: cannot write the machine file", path));
}

}  // namespace

void add_calibrate_command(CLI::App& app, Context& context) {
  auto* command = app.add_subcommand(
      "calibrate",
      "fit this machine from a ringbench run's link test and probes; write it as a cluster file (--cluster FILE)");
  auto options = std::make_shared<CalibrateOptions>();
  command->add_option("results", options->results, "ringbench's HDF5 results file (its /model/calibration gets the residuals)")
      ->required();
  command->add_option("--run", options->run, "run id to fit on (default: the newest run with a link test)");
  command->add_option("-o,--output", options->machine, "the machine's cluster file to write (JSON)")->required();
  add_link_fit_option(*command, &options->link_fit);
  command->callback([options, &context] {
    const std::string run_id = pick_run(options->results, run_option(options->run));
    const Calibration calibration = calibrate(load_run(options->results, run_id), options->link_fit);
    ResultsOutput output(options->results, run_record("calibrate", context, &calibration.machine,
                                                      calibration.machine.gpus()));
    write_machine(calibration.machine, options->machine);
    fmt::print("{}", calibration_report(calibration));
    fmt::print("# machine       : {} written to {} (load it with --cluster {})\n", calibration.machine.name,
               options->machine, options->machine);
    output.write({{&calibration_table(), calibration_rows(output.run_id(), calibration)}}, 0);
    fmt::print("# results       : /model/calibration appended to {}\n", options->results);
  });
}

}  // namespace ringbench::topomodel
