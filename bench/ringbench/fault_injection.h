#pragma once
// --inject: faults ringbench plays on itself, for demos and tests (the fault tests also signal
// ranks from outside, which needs no flag).
//   kill:RANK@CALL           rank RANK exits abruptly (SIGKILL on itself) in its collective call
//                            number CALL (every collective counts, barriers included), once that
//                            call has started moving bytes and has to wait
//   stall:RANK@CALL:SECONDS  rank RANK freezes for SECONDS at the same point (no bytes, no heartbeats,
//                            like SIGSTOP), then carries on
//   slow:RANK:FACTOR         rank RANK is a straggler: before each collective call it sleeps
//                            (FACTOR - 1) x the time since its previous call began
//   silent-link:A-B@CALL     from collective call CALL on, ranks A and B stop reading and writing
//                            their connection to each other (both stay alive to everyone else),
//                            like a link that drops every packet both ways
// Parsed by the CLI before any socket opens; a bad spec is bad input (exit 2).

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ringbench {

struct Fault {
  enum class Kind { Kill, Stall, Slow, SilentLink } kind;
  int rank = 0;
  int other = -1;        // silent-link: the other end
  uint64_t call = 0;     // kill, stall, silent-link
  double seconds = 0;    // stall
  double factor = 1;     // slow
};

// The fault, or nullopt with `error` saying what is wrong with `spec`.
std::optional<Fault> parse_fault(const std::string& spec, std::string* error);
// The hook for TransportOptions::fault_hook that plays `faults`.
std::function<void(int rank, uint64_t sequence, bool waiting)> fault_hook(std::vector<Fault> faults);
// The hook for TransportOptions::silenced_peer that plays the silent-link faults among `faults`.
std::function<int(int rank, uint64_t sequence)> silenced_peer_hook(const std::vector<Fault>& faults);

}  // namespace ringbench

namespace ringbench {

// Why the --inject `specs` cannot be played in a world of `world_size` ranks (a fault naming rank
// N or beyond would silently never fire), or empty. Every rank gets the same answer.
std::string fault_rank_problem(const std::vector<std::string>& specs, int world_size);

}  // namespace ringbench
