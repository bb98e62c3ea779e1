#pragma once
// ringbench's command line (CLI11), osu-micro-benchmarks conventions where they exist.

#include <optional>
#include <string>

#include "bench_options.h"

namespace ringbench {

// The options, or the exit code to stop with: 0 after --help or --version (printed already), 2
// after a one-line error naming the flag and the value (printed to stderr by parse_command_line).
struct ParsedCommandLine {
  std::optional<BenchOptions> options;
  int exit_code = 0;
};

// `print` is false on ranks other than 0, so an error is printed once, not N times.
ParsedCommandLine parse_command_line(int argc, char** argv, bool print);

}  // namespace ringbench
