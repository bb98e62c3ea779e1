#pragma once
// The fault tests' own launcher: N ringbench processes over the file bootstrap (no MPI), so that
// when one rank dies or freezes nothing but ringbench itself decides what the others do. Each
// rank's stdout and stderr go to files; every process left at the end is killed by its PID.

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "tests/test_seed.h"

namespace ringbench::testing {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

inline std::string slurp(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class Job {
 public:
  // Starts ranks 0 to n-1, or only the first `started` of them (the others wait for start()).
  Job(int n, const std::vector<std::string>& args, fs::path dir, int started = -1)
      : dir_(std::move(dir)), args_(args), pids_(n, -1), exit_code_(n, -1), ended_(n), end_time_(n) {
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "boot");
    for (int r = 0; r < n; ++r) {
      if (started >= 0 && r >= started) ended_[r] = true;  // not started: nothing to wait for yet
      else start(r);
    }
  }
  // Starts rank `rank` (one the constructor left out).
  void start(int rank) {
    const int n = static_cast<int>(pids_.size());
    ended_[rank] = false;
    std::fflush(nullptr);  // else the child's freopen writes our buffered output a second time
    pid_t pid = ::fork();
    if (pid == 0) {
      ::setenv("RINGBENCH_BOOTSTRAP_DIR", (dir_ / "boot").c_str(), 1);
      ::setenv("RINGBENCH_RANK", std::to_string(rank).c_str(), 1);
      ::setenv("RINGBENCH_SIZE", std::to_string(n).c_str(), 1);
      std::string out = (dir_ / ("out." + std::to_string(rank))).string();
      std::string err = (dir_ / ("err." + std::to_string(rank))).string();
      if (!std::freopen(out.c_str(), "w", stdout) || !std::freopen(err.c_str(), "w", stderr)) ::_exit(120);
      std::vector<char*> argv;
      std::string exe = RINGBENCH_EXE;
      argv.push_back(exe.data());
      std::vector<std::string> copy = args_;
      for (auto& a : copy) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(exe.c_str(), argv.data());
      ::_exit(121);
    }
    pids_[rank] = pid;
  }
  ~Job() {
    for (size_t r = 0; r < pids_.size(); ++r)
      if (!ended_[r] && pids_[r] > 0) {
        ::kill(pids_[r], SIGKILL);
        ::kill(pids_[r], SIGCONT);
        ::waitpid(pids_[r], nullptr, 0);
      }
  }

  pid_t pid(int rank) const { return pids_[rank]; }
  std::string out(int rank) const { return slurp(dir_ / ("out." + std::to_string(rank))); }
  std::string err(int rank) const { return slurp(dir_ / ("err." + std::to_string(rank))); }
  const fs::path& dir() const { return dir_; }
  bool ended(int rank) const { return ended_[rank]; }
  int exit_code(int rank) const { return exit_code_[rank]; }  // -1 for a signal
  Clock::time_point end_time(int rank) const { return end_time_[rank]; }

  // Reaps whatever has ended; returns true once every rank in `ranks` has.
  bool poll(const std::vector<int>& ranks) {
    for (size_t r = 0; r < pids_.size(); ++r) {
      if (ended_[r] || pids_[r] <= 0) continue;
      int status = 0;
      if (::waitpid(pids_[r], &status, WNOHANG) == pids_[r]) {
        ended_[r] = true;
        end_time_[r] = Clock::now();
        exit_code_[r] = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      }
    }
    for (int r : ranks)
      if (!ended_[r]) return false;
    return true;
  }
  // Waits until every rank in `ranks` has ended, at most `limit`; true if they all did.
  bool wait(const std::vector<int>& ranks, std::chrono::milliseconds limit) {
    auto give_up = Clock::now() + limit;
    while (!poll(ranks)) {
      if (Clock::now() >= give_up) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return true;
  }
  void kill(int rank, int signal) {
    if (pids_[rank] > 0) ::kill(pids_[rank], signal);  // never kill(-1): that signals every process
  }

 private:
  fs::path dir_;
  std::vector<std::string> args_;
  std::vector<pid_t> pids_;
  std::vector<int> exit_code_;
  std::vector<bool> ended_;
  std::vector<Clock::time_point> end_time_;
};

// Count of table rows (lines not starting with '#') in a rank's stdout.
inline int table_rows(const std::string& out) {
  int rows = 0;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty() && line[0] != '#') ++rows;
  return rows;
}

}  // namespace ringbench::testing
