#pragma once
// Runs a shell command for an integration test, capturing stdout and stderr separately, with
// Open MPI's root guard lifted (CI runs as root) and a hard time limit so a hang fails the test.

#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace ringbench::testing {

struct CommandResult {
  int exit_code = -1;
  std::string out, err;
};

inline std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline CommandResult run_command(const std::string& command, const std::string& scratch_prefix,
                                 int time_limit_s = 120) {
  ::setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
  ::setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  const std::string out = scratch_prefix + ".out", err = scratch_prefix + ".err";
  std::string full = "timeout -k 5 " + std::to_string(time_limit_s) + " " + command + " >" + out + " 2>" + err;
  int status = std::system(full.c_str());
  CommandResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = read_file(out);
  result.err = read_file(err);
  return result;
}

// Runs each command as run_command does, `at_once` of them at a time, and returns their results in
// the commands' order. A launch that is refused before it starts spends its 2 s in mpirun's
// start and teardown, not on a core (0.2 s of CPU), so launches side by side cost no accuracy.
inline std::vector<CommandResult> run_commands(const std::vector<std::string>& commands,
                                               const std::string& scratch_prefix, size_t at_once,
                                               int time_limit_s = 120) {
  ::setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
  ::setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  const auto prefix = [&](size_t i) { return scratch_prefix + "." + std::to_string(i); };
  for (size_t first = 0; first < commands.size(); first += at_once) {
    std::string batch;
    for (size_t i = first; i < std::min(first + at_once, commands.size()); ++i)
      batch += "(timeout -k 5 " + std::to_string(time_limit_s) + " " + commands[i] + " >" + prefix(i) + ".out 2>" +
               prefix(i) + ".err; echo $? >" + prefix(i) + ".rc) & ";
    std::system((batch + "wait").c_str());
  }
  std::vector<CommandResult> results(commands.size());
  for (size_t i = 0; i < commands.size(); ++i) {
    const std::string code = read_file(prefix(i) + ".rc");
    results[i].exit_code = code.empty() ? -1 : std::stoi(code);
    results[i].out = read_file(prefix(i) + ".out");
    results[i].err = read_file(prefix(i) + ".err");
  }
  return results;
}

inline std::string mpirun(int n) {
  return "mpirun -np " + std::to_string(n) + " --oversubscribe --bind-to none ";
}

}  // namespace ringbench::testing
