#include "flight_dump.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace ringbench {

std::string flight_file(const std::string& results_path, int rank) {
  return fmt::format("{}.flight.{}.txt", results_path, rank);
}

std::function<void(const FlightDump&)> flight_sink(const std::string& results_path, int rank) {
  return [path = flight_file(results_path, rank), rank](const FlightDump& dump) {
    std::ofstream file(path, std::ios::trunc);
    file << fmt::format("# ringbench rank {} flight recorder ({})\n", rank, dump.reason) << dump.diagnosis << dump.all;
    file.flush();
    const std::string where = file ? fmt::format("every entry in {}", path)
                                   : fmt::format("could not write {}: {}", path, std::strerror(errno));
    // Each diagnosis line carries the rank, so the lines of several ranks sort apart.
    std::string text = fmt::format("ringbench rank {}: flight recorder ({}), {}:\n", rank, dump.reason, where);
    std::istringstream lines(dump.diagnosis);
    for (std::string line; std::getline(lines, line);) text += fmt::format("ringbench rank {}: {}\n", rank, line);
    text += dump.recent;
    std::fwrite(text.data(), 1, text.size(), stderr);
    std::fflush(stderr);
  };
}

}  // namespace ringbench
