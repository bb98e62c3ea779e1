#pragma once
// Runs a shell command for an integration test, capturing stdout and stderr separately, with
// Open MPI's root guard lifted (CI runs as root) and a hard time limit so a hang fails the test.

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

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

inline std::string mpirun(int n) {
  return "mpirun -np " + std::to_string(n) + " --oversubscribe --bind-to none ";
}

}  // namespace ringbench::testing
