// Used when the build has no results library (bench/results): -o is refused up front.
#include "model/error.h"
#include "results_output.h"

namespace ringbench::topomodel {

ResultsOutput::ResultsOutput(std::filesystem::path file, RunRecord run) : file_(std::move(file)), run_(std::move(run)) {
  if (enabled()) throw model::InputError("-o: this build of topomodel has no HDF5 results library (bench/results)");
}

void ResultsOutput::write(const std::vector<TableRows>&, int) {}

}  // namespace ringbench::topomodel
