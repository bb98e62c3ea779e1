#include "flight_recorder.h"

#include <sys/signalfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "error.h"

namespace ringbench {

void FlightEntry::set_names(std::string_view collective_name, std::string_view algorithm_name) {
  // One byte stays 0, so the names read back as C strings.
  auto copy = [](std::array<char, kNameBytes>& to, std::string_view from) {
    const size_t n = std::min(from.size(), to.size() - 1);
    std::memcpy(to.data(), from.data(), n);
    to[n] = '\0';
  };
  copy(collective, collective_name);
  copy(algorithm, algorithm_name);
}

const char* to_string(FlightEntry::State state) {
  switch (state) {
    case FlightEntry::State::Waiting: return "waiting";
    case FlightEntry::State::Done: return "done";
    case FlightEntry::State::Failed: return "failed";
  }
  return "?";
}

FlightRecorder::Id FlightRecorder::record(const FlightEntry& entry) {
  ring_[next_ % ring_.size()] = entry;
  return next_++;
}

FlightEntry* FlightRecorder::find(Id id) {
  if (id >= next_ || next_ - id > ring_.size()) return nullptr;
  return &ring_[id % ring_.size()];
}

std::vector<FlightEntry> FlightRecorder::entries() const {
  std::vector<FlightEntry> held;
  const uint64_t first = next_ > ring_.size() ? next_ - ring_.size() : 0;
  for (uint64_t id = first; id < next_; ++id) held.push_back(ring_[id % ring_.size()]);
  return held;
}

std::string grouped(uint64_t value) {
  std::string digits = std::to_string(value), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string format_entries(const std::vector<FlightEntry>& entries, FlightEntry::Clock::time_point now) {
  auto ago = [now](FlightEntry::Clock::time_point t) {
    return fmt::format("{:.3f}", std::chrono::duration<double>(t - now).count());
  };
  std::string text = fmt::format("{:>8} {:<14} {:<20} {:>9} {:<9} {:>14} {:>14} {:<8} {:>10} {:>10}\n", "#seq",
                                 "collective", "algorithm", "step", "peer", "bytes done", "expected", "state",
                                 "start (s)", "end (s)");
  for (const auto& e : entries)
    text += fmt::format("{:>8} {:<14} {:<20} {:>9} {:<9} {:>14} {:>14} {:<8} {:>10} {:>10}\n", e.sequence,
                        e.collective_name(), e.algorithm_name(), fmt::format("{}/{}", e.step + 1, e.steps),
                        fmt::format("{} {}", e.sending ? "to" : "from", e.peer), grouped(e.bytes_done),
                        grouped(e.bytes_expected), to_string(e.state), ago(e.started),
                        e.state == FlightEntry::State::Waiting ? "-" : ago(e.ended));
  return text;
}

std::vector<FlightEntry> last_calls(const std::vector<FlightEntry>& entries, size_t calls) {
  size_t first = entries.size();
  size_t seen = 0;
  while (first > 0) {
    if (first == entries.size() || entries[first - 1].sequence != entries[first].sequence) {
      if (seen == calls) break;
      ++seen;
    }
    --first;
  }
  return {entries.begin() + static_cast<std::ptrdiff_t>(first), entries.end()};
}

namespace {

// The unfinished entry this call waits on first: the lowest step, receives before sends.
const FlightEntry* first_unfinished(const std::vector<const FlightEntry*>& call) {
  const FlightEntry* first = nullptr;
  for (const FlightEntry* e : call) {
    if (e->state == FlightEntry::State::Done) continue;
    if (!first || e->step < first->step || (e->step == first->step && first->sending && !e->sending)) first = e;
  }
  return first;
}

std::string waiting_text(const FlightEntry& e) {
  if (e.sending)
    return fmt::format("sending {} more of {} bytes to rank {}", grouped(e.bytes_expected - e.bytes_done),
                       grouped(e.bytes_expected), e.peer);
  return fmt::format("waiting for {} more of {} bytes from rank {}", grouped(e.bytes_expected - e.bytes_done),
                     grouped(e.bytes_expected), e.peer);
}

}  // namespace

std::string describe_last_call(const std::vector<FlightEntry>& entries) {
  if (entries.empty()) return {};
  const uint64_t sequence = entries.back().sequence;
  std::vector<const FlightEntry*> call;
  for (const auto& e : entries)
    if (e.sequence == sequence) call.push_back(&e);
  const FlightEntry& any = *call.front();
  std::string text = fmt::format("{} #{} ({})", any.collective_name(), sequence, any.algorithm_name());
  const FlightEntry* stuck = first_unfinished(call);
  if (!stuck) return text + fmt::format(": finished all {} step(s)", any.steps);
  text += fmt::format(": stuck at step {} of {}, {}", stuck->step + 1, stuck->steps, waiting_text(*stuck));
  // Other frames of the same step still open (a send beside the receive, say).
  for (const FlightEntry* e : call)
    if (e != stuck && e->state != FlightEntry::State::Done && e->step == stuck->step) text += "; " + waiting_text(*e);
  if (stuck->step > 0) text += fmt::format("; finished step {}", stuck->step);
  return text;
}

std::string describe_last_frame_from(const std::vector<FlightEntry>& entries, int peer) {
  for (auto e = entries.rbegin(); e != entries.rend(); ++e)
    if (!e->sending && e->peer == peer && e->state == FlightEntry::State::Done)
      return fmt::format("last frame from rank {}: {} #{} ({}) step {} of {}", peer, e->collective_name(), e->sequence,
                         e->algorithm_name(), e->step + 1, e->steps);
  return fmt::format("no frame from rank {} in the {} entries held", peer, entries.size());
}

std::string describe_heard(const std::vector<PeerHeard>& peers) {
  std::string text;
  for (const auto& p : peers) {
    text += fmt::format("{}rank {} {:.1f} s ago", text.empty() ? "" : ", ", p.rank, p.seconds_ago);
    if (p.departed) text += " (said goodbye)";
    else if (p.closed) text += " (connection closed)";
  }
  return text;
}

void block_flight_signal() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, kFlightSignal);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

int open_flight_signal_fd() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, kFlightSignal);
  const int fd = ::signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
  if (fd < 0) {
    ErrorFacts facts(TransportErrorKind::System, -1, -1, "cannot watch SIGUSR1 for flight-recorder dumps");
    facts.syscall = "signalfd";
    facts.error_number = errno;
    throw TransportError(std::move(facts));
  }
  return fd;
}

bool read_flight_signal(int fd) {
  signalfd_siginfo info;
  return ::read(fd, &info, sizeof info) == static_cast<ssize_t>(sizeof info);
}

}  // namespace ringbench
