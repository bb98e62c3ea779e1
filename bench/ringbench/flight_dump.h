#pragma once
// Where a rank's flight-recorder dumps go (transport/flight_recorder.h): its diagnosis and the
// last calls' entries to stderr, every entry held to a file beside the results,
// RESULTS.flight.RANK.txt (rewritten at each dump). The transport formats; the bench places.

#include <functional>
#include <string>

#include "transport/communicator.h"

namespace ringbench {

// "ringbench.h5.flight.2.txt" for results file "ringbench.h5" and rank 2.
std::string flight_file(const std::string& results_path, int rank);

// The sink for Communicator::set_flight_sink.
std::function<void(const FlightDump&)> flight_sink(const std::string& results_path, int rank);

}  // namespace ringbench
