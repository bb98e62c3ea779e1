#include "fault_injection.h"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <regex>
#include <thread>

#include <fmt/format.h>

namespace ringbench {

std::optional<Fault> parse_fault(const std::string& spec, std::string* error) {
  static const std::regex kill_or_stall(R"((kill|stall):(\d{1,6})@(\d{1,12})(?::([0-9]*\.?[0-9]+))?)");
  static const std::regex slow(R"(slow:(\d{1,6}):([0-9]*\.?[0-9]+))");
  static const std::regex silent_link(R"(silent-link:(\d{1,6})-(\d{1,6})@(\d{1,12}))");
  std::smatch m;
  Fault f{};
  if (std::regex_match(spec, m, silent_link)) {
    f.kind = Fault::Kind::SilentLink;
    f.rank = std::stoi(m[1]);
    f.other = std::stoi(m[2]);
    f.call = std::stoull(m[3]);
    if (f.rank == f.other) {
      *error = fmt::format("--inject {}: a link joins two different ranks (silent-link:A-B@CALL)", spec);
      return std::nullopt;
    }
    return f;
  }
  if (std::regex_match(spec, m, kill_or_stall)) {
    f.kind = m[1] == "kill" ? Fault::Kind::Kill : Fault::Kind::Stall;
    f.rank = std::stoi(m[2]);
    f.call = std::stoull(m[3]);
    if (f.kind == Fault::Kind::Kill && m[4].matched) {
      *error = fmt::format("--inject {}: kill takes no SECONDS (kill:RANK@CALL)", spec);
      return std::nullopt;
    }
    if (f.kind == Fault::Kind::Stall) {
      if (!m[4].matched || (f.seconds = std::stod(m[4])) <= 0) {
        *error = fmt::format("--inject {}: stall needs positive SECONDS (stall:RANK@CALL:SECONDS)", spec);
        return std::nullopt;
      }
    }
    return f;
  }
  if (std::regex_match(spec, m, slow)) {
    f.kind = Fault::Kind::Slow;
    f.rank = std::stoi(m[1]);
    f.factor = std::stod(m[2]);
    if (f.factor < 1) {
      *error = fmt::format("--inject {}: FACTOR must be at least 1", spec);
      return std::nullopt;
    }
    return f;
  }
  *error = fmt::format(
      "--inject {}: expected kill:RANK@CALL, stall:RANK@CALL:SECONDS, slow:RANK:FACTOR or silent-link:A-B@CALL", spec);
  return std::nullopt;
}

std::function<void(int, uint64_t, bool)> fault_hook(std::vector<Fault> faults) {
  if (faults.empty()) return {};
  struct State {
    std::vector<Fault> faults;
    std::vector<bool> fired;
    std::chrono::steady_clock::time_point previous{};
  };
  auto state = std::make_shared<State>(State{faults, std::vector<bool>(faults.size()), {}});
  return [state](int rank, uint64_t sequence, bool waiting) {
    using namespace std::chrono;
    for (size_t i = 0; i < state->faults.size(); ++i) {
      const Fault& f = state->faults[i];
      if (f.rank != rank || f.kind == Fault::Kind::SilentLink) continue;  // silenced_peer_hook plays those
      if (f.kind == Fault::Kind::Slow) {
        if (waiting) continue;
        auto now = steady_clock::now();
        if (state->previous != steady_clock::time_point{}) {
          auto delay = duration_cast<microseconds>((now - state->previous) * (f.factor - 1));
          std::this_thread::sleep_for(std::min<microseconds>(delay, seconds(2)));
        }
        state->previous = steady_clock::now();
        continue;
      }
      // Strike mid-call: when call f.call first waits, or at the next call if it never waited.
      if (state->fired[i] || sequence < f.call || (sequence == f.call && !waiting)) continue;
      state->fired[i] = true;
      // The wall-clock moment, so a shrink's time to recovery can be measured against it.
      const double unix_s = duration<double>(system_clock::now().time_since_epoch()).count();
      if (f.kind == Fault::Kind::Kill) {
        auto line = fmt::format("ringbench rank {}: --inject kill: exiting abruptly in collective call {} at unix {:.3f}\n",
                                rank, sequence, unix_s);
        (void)!::write(STDERR_FILENO, line.data(), line.size());
        ::raise(SIGKILL);
      }
      auto line = fmt::format("ringbench rank {}: --inject stall: frozen for {} s in collective call {} at unix {:.3f}\n",
                              rank, f.seconds, sequence, unix_s);
      (void)!::write(STDERR_FILENO, line.data(), line.size());
      std::this_thread::sleep_for(duration<double>(f.seconds));
    }
  };
}

std::function<int(int, uint64_t)> silenced_peer_hook(const std::vector<Fault>& faults) {
  std::vector<Fault> links;
  for (const Fault& f : faults)
    if (f.kind == Fault::Kind::SilentLink) links.push_back(f);
  if (links.empty()) return {};
  auto announced = std::make_shared<std::vector<bool>>(links.size());
  return [links, announced](int rank, uint64_t sequence) {
    for (size_t i = 0; i < links.size(); ++i) {
      const Fault& f = links[i];
      if ((rank != f.rank && rank != f.other) || sequence < f.call) continue;
      const int peer = rank == f.rank ? f.other : f.rank;
      if (!(*announced)[i]) {
        (*announced)[i] = true;
        const double unix_s =
            std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
        auto line = fmt::format("ringbench rank {}: --inject silent-link: stops reading and writing its connection to "
                                "rank {} in collective call {} at unix {:.3f}\n",
                                rank, peer, sequence, unix_s);
        (void)!::write(STDERR_FILENO, line.data(), line.size());
      }
      return peer;
    }
    return -1;
  };
}

}  // namespace ringbench

namespace ringbench {

std::string fault_rank_problem(const std::vector<std::string>& specs, int world_size) {
  for (const std::string& spec : specs) {
    std::string ignored;
    const std::optional<Fault> fault = parse_fault(spec, &ignored);
    if (!fault) continue;
    for (const int rank : {fault->rank, fault->other})
      if (rank >= world_size)
        return fmt::format("--inject {}: rank {} does not exist in a run of {} rank(s) (ranks 0 to {})", spec, rank,
                           world_size, world_size - 1);
  }
  return {};
}

}  // namespace ringbench
