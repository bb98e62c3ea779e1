#pragma once
// The flight recorder: each rank's memory of its last collectives, step by step, so that after a
// hang or a failure the stuck rank, collective, sequence number and step can be read off without a
// rerun (like PyTorch's NCCL flight recorder).
//
// One entry per frame the progress loop was handed (progress.cpp): the collective, its sequence
// number, algorithm, step, the peer and direction, bytes done and expected, the state, and when it
// started and ended. Entries live in a fixed-size ring: recording never allocates once the ring is
// full, and the oldest entries are overwritten. Bytes done are brought up to date only when the
// loop stalls, fails or dumps, so the moving path pays for one entry write per frame and nothing
// per byte.
//
// The transport keeps and formats the recorder; where a dump goes (stderr, a file beside the
// results) is the caller's choice (Communicator::set_flight_sink). It is dumped on a failure (a
// timeout, a closed peer, an Abort notice) and on SIGUSR1, which the progress loop reads from a
// signalfd while it waits, never in a signal handler.
//
// Threading: owned by one Communicator and used from its thread only.

#include <signal.h>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ringbench {

struct FlightEntry {
  using Clock = std::chrono::steady_clock;
  enum class State : uint8_t { Waiting, Done, Failed };
  static constexpr size_t kNameBytes = 24;  // longer names are cut: the entry stays fixed-size

  uint64_t sequence = 0;
  std::array<char, kNameBytes> collective{};
  std::array<char, kNameBytes> algorithm{};
  uint32_t step = 0;   // 0-based, as on the wire; printed 1-based
  uint32_t steps = 0;
  int peer = -1;
  bool sending = false;
  uint64_t bytes_done = 0;      // frame header and payload bytes moved
  uint64_t bytes_expected = 0;  // the frame's header and payload bytes
  State state = State::Waiting;
  Clock::time_point started{}, ended{};

  std::string_view collective_name() const { return collective.data(); }
  std::string_view algorithm_name() const { return algorithm.data(); }
  void set_names(std::string_view collective_name, std::string_view algorithm_name);
};

const char* to_string(FlightEntry::State state);

// What one rank knows of one peer's liveness when it dumps: how long since anything arrived.
struct PeerHeard {
  int rank = -1;
  double seconds_ago = 0;
  bool closed = false;    // its connection closed or reset
  bool departed = false;  // it said goodbye
};

class FlightRecorder {
 public:
  using Id = uint64_t;  // an entry's position in the stream of all entries ever recorded
  static constexpr size_t kDefaultCapacity = 512;

  explicit FlightRecorder(size_t capacity = kDefaultCapacity) : ring_(capacity ? capacity : 1) {}

  // Records `entry`; the Id reaches it again while it has not been overwritten.
  Id record(const FlightEntry& entry);
  // The entry, or nullptr once the ring has overwritten it.
  FlightEntry* find(Id id);
  // Every entry still held, oldest first.
  std::vector<FlightEntry> entries() const;
  size_t capacity() const { return ring_.size(); }
  uint64_t recorded() const { return next_; }

 private:
  std::vector<FlightEntry> ring_;
  Id next_ = 0;
};

// "1,048,576": byte counts in diagnoses, grouped so they can be read at a glance.
std::string grouped(uint64_t value);

// The recorder as text, one entry a line, oldest first; `now` dates the timestamps ("-1.204 s").
std::string format_entries(const std::vector<FlightEntry>& entries, FlightEntry::Clock::time_point now);

// The entries of the last `calls` sequence numbers recorded, oldest first.
std::vector<FlightEntry> last_calls(const std::vector<FlightEntry>& entries, size_t calls);

// What this rank can say from its own recorder about the last call it was in, e.g. "allreduce #1834
// (ring): stuck at step 3 of 6, waiting for 1,048,576 of 1,048,600 bytes from rank 1; finished step
// 2; sending to rank 3: 0 of 1,048,600 bytes". Empty when nothing was recorded.
std::string describe_last_call(const std::vector<FlightEntry>& entries);

// The last frame that arrived whole from `peer`, e.g. "last frame from rank 2: allreduce #1833
// (ring) step 6 of 6"; how far the peer got, as far as this rank saw.
std::string describe_last_frame_from(const std::vector<FlightEntry>& entries, int peer);

// "rank 1 0.0 s ago, rank 2 31.2 s ago (closed), rank 3 0.1 s ago".
std::string describe_heard(const std::vector<PeerHeard>& peers);

// The signal that asks for a dump.
inline constexpr int kFlightSignal = SIGUSR1;
// Blocks kFlightSignal in the calling thread, and so in every thread it starts later. Call it
// first thing in main, before any thread exists (MPI_Init starts some): a thread that does not
// block it would take the signal's default action, which ends the process.
void block_flight_signal();
// A non-blocking signalfd for kFlightSignal; throws TransportError (System) if it cannot be made.
int open_flight_signal_fd();
// Consumes one pending kFlightSignal from `fd`; false when none was pending.
bool read_flight_signal(int fd);

}  // namespace ringbench
