#pragma once
// A job's ranks connected to each other: a full mesh of TCP connections (one per pair of ranks),
// set up through a Bootstrap, and the one progress loop that moves every byte over them.
//
// Threading: one thread owns a Communicator (the one that created it) and makes every call on it;
// no two of its calls may run concurrently. Besides the blocking calls, the owner may start
// non-blocking ones (start()): those run, in the order started, on the communicator's progress
// thread (progress_thread.h), made on the first start(). Only one thread drives the connections at
// a time: while started calls are in flight the progress thread does, and any call of the owner
// that touches them (a blocking collective, begin_collective, exchange, ring_stream, counters,
// check_kernel_counts) first waits for every started call to finish, so a blocking call is
// ordered after them, as if started and waited for. With nothing in flight a blocking call runs
// inline on the owner's thread, at no extra cost. The flight recorder, the fault hook and the
// stranger door are used only by the driving thread. The helper threads that drive several streams
// per peer (--threads, stream_helpers.h) follow the same rule: they work inside the driving
// thread's call.
//
// Failures: every call that moves bytes blocks until done, or throws TransportError when a peer
// fails: it closed or reset its connection, sent nothing (not even a heartbeat) for
// options.timeout (never, if zero), or another rank reported a failure (liveness.h). The error
// names the failed rank (peer_rank()); a started call's Request::wait() rethrows it. After a
// failure every peer still reachable is told (abort.cpp) and every later call, start and wait
// throws the same error at once.

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bootstrap.h"
#include "byte_counters.h"
#include "connection.h"
#include "error.h"
#include "fd.h"
#include "flight_recorder.h"
#include "heard_views.h"
#include "host_identity.h"
#include "interfaces.h"
#include "options.h"
#include "request.h"
#include "stream_helpers.h"
#include "wire.h"

namespace ringbench {

// What a rank published through the bootstrap.
struct PeerCard {
  int rank = 0;
  HostIdentity host;
  std::vector<InterfaceAddress> interfaces;  // every up IPv4 interface it has, for messages
  // Where it listens, on one port: routes[0] if every rank shares one host, else routes[1]
  // (interfaces.h); `chosen` is the one the job uses, known once every card is.
  std::array<InterfaceChoice, 2> routes;
  InterfaceChoice chosen;
  uint16_t port = 0;
  uint64_t secret_proposal = 0;  // rank 0's proposal becomes the job secret
};

// One frame to send in an exchange(): `payload` goes to `peer`, tagged with `step`.
struct SendSpec {
  int peer;
  uint32_t step;
  std::span<const std::byte> payload;
  // ring_stream only: the payload is the previous frame's receive, released as fast as it arrives;
  // false for data this rank holds from the start (the first frame of a ring plan's round).
  bool fed_by_previous = true;
};

// One frame to receive: exactly payload.size() bytes from `peer` for `step`, written to payload.
// If on_arrival is set it is called with consecutive byte ranges [begin, end) of payload as they
// arrive, each a multiple of `granule` bytes long except possibly the last, so the caller can
// reduce what has arrived while the rest is still on the wire.
//
// With on_arrival, `staging` may replace payload as the landing place: the frame's bytes then
// land in staging used as a ring (frame offset k at staging[k % staging.size()]), never more than
// staging.size() bytes ahead of what on_arrival has taken, and payload only gives the frame's
// length. A ring a few pipeline pieces long stays in cache however large the frame, so the
// kernel's copy and the reduction that reads it meet in cache rather than in memory. Its size
// must be a multiple of the pipeline piece (TransportOptions::pipeline_bytes rounded down to
// granule), so no range handed to on_arrival wraps around.
struct RecvSpec {
  int peer;
  uint32_t step;
  std::span<std::byte> payload;
  std::function<void(size_t begin, size_t end)> on_arrival = {};
  size_t granule = 1;
  std::span<std::byte> staging = {};
};

// Where an exchange sits, for error messages: "ring allreduce step 3/6".
struct StepContext {
  std::string_view collective;
  std::string_view algorithm;
  uint32_t step = 0;
  uint32_t steps = 0;
};

// Our byte counts against the kernel's for one connection, after a quiet point.
struct KernelCheck {
  int peer_rank;
  uint64_t ours_sent, kernel_sent, ours_received, kernel_received;
  bool ok() const { return ours_sent == kernel_sent && ours_received == kernel_received; }
};

// One dump of the flight recorder (flight_recorder.h), handed to Communicator::set_flight_sink.
struct FlightDump {
  std::string reason;     // "SIGUSR1", or "failure"
  // This rank's view, a few lines: on the first survivor of a failure the job's diagnosis (who
  // failed, as decided, and where this rank stands); elsewhere this rank's own line.
  std::string diagnosis;
  std::string recent;  // the entries of the last few calls: one screen
  std::string all;     // every entry the recorder holds
};

// What a launch is waiting for, for a launch deadline's message: "the connection from rank 3
// (10.0.0.2:40123)". Called by Communicator::connect each time that changes; may be empty.
using LaunchPhaseHook = std::function<void(const std::string& waiting_for)>;

class StrangerDoor;
class ProgressThread;

class Communicator {
 public:
  // Publishes this rank through the bootstrap (one allgather), then connects to every other rank
  // and completes the handshakes. Blocks for the bootstrap, then up to options.connect_timeout.
  // on_phase hears what the set-up waits for, at each change (a launch watchdog's message).
  static std::unique_ptr<Communicator> connect(Bootstrap& bootstrap, TransportOptions options,
                                               LaunchPhaseHook on_phase = {});
  ~Communicator();

  int rank() const { return rank_; }
  int size() const { return size_; }
  // 0 for the job as launched; each shrink (shrink.h) builds the next epoch's communicator.
  uint32_t epoch() const { return epoch_; }
  const TransportOptions& options() const { return options_; }
  const std::vector<PeerCard>& peers() const { return cards_; }  // indexed by rank
  const InterfaceChoice& interface() const { return interface_; }
  // The cores this host has online (std::thread::hardware_concurrency(), at least 1), counted once
  // at set-up. Not this process's affinity mask: a launcher that binds each rank to one core
  // (Open MPI does at N <= 2) narrows the mask, not the cores the host's ranks share.
  int host_cores() const { return host_cores_; }
  // The ranks whose kernel is this rank's (HostIdentity::same_kernel), this one included: those
  // that share its cores, on this host or on another network namespace of the same machine.
  int ranks_sharing_cores() const { return ranks_sharing_cores_; }
  // More of them than the machine has cores: a waiting rank should give its core away.
  bool ranks_exceed_cores() const { return ranks_sharing_cores_ > host_cores_; }
  std::vector<std::string> distinct_hosts() const;  // hostnames, one per distinct host identity

  // Starts a new collective call: frames are tagged with its sequence number, which every rank
  // advances identically because every rank makes the same calls in the same order.
  // From the owner's thread it first waits for the started calls (see Threading).
  void begin_collective();
  uint64_t sequence() const { return sequence_; }

  // Moves all sends and receives of one step together, so no message size can deadlock: a rank
  // whose send to the right is blocked keeps receiving from the left. At most one send and one
  // receive per peer. Zero-length payloads still send a frame (its header is overhead).
  void exchange(std::span<const SendSpec> sends, std::span<RecvSpec> receives, const StepContext& where);

  // A ring's whole schedule in one call: sends[k] go out in order (to one peer), receives[k]
  // arrive in order (from one peer), and sends[k+1]'s payload is released only as fast as
  // receives[k] delivers its bytes (to on_arrival, or into place). sends[k+1].payload must be the
  // bytes receives[k] produces, e.g. the chunk it reduces into, unless sends[k+1].fed_by_previous
  // is false: then it is data no earlier receive writes, released at once (a new round). So each
  // piece is forwarded as soon as it is reduced and the pipeline spans steps, not one step at a time.
  void ring_stream(std::span<const SendSpec> sends, std::span<RecvSpec> receives, const StepContext& where);

  // Starts `call` (the sequential code of one collective, e.g. an algorithm's run) on the
  // progress thread, behind every call started before it, and returns at once. The call runs
  // with this communicator and must not start calls itself; whatever it references (buffers)
  // must stay alive until the request is done. Throws the communicator's failure, if it failed.
  // Destroying the communicator fails the calls not yet begun and waits for the running one.
  Request start(std::function<void(Communicator&)> call);
  // True while a started call has not finished.
  bool calls_in_flight() const;

  // Dissemination barrier over our connections: ceil(log2 N) rounds of header-only frames.
  void barrier();
  // Every rank contributes `mine` (the same size on every rank); root gets all, by rank, and the
  // others get an empty vector.
  std::vector<std::vector<std::byte>> gather(std::span<const std::byte> mine, int root);

  // The sum of every connection's counters, and each one's (after the started calls finish).
  ByteCounters counters() const;
  const ByteCounters& counters(int peer) const;
  // Compares each connection's counters with TCP_INFO. Call at a quiet point (after barrier()),
  // when everything sent has been received.
  std::vector<KernelCheck> check_kernel_counts() const;

  // The bytes a receive hands to on_arrival at a time (options.pipeline_bytes, a whole number of
  // granules, at least one): a staging ring is sized in these.
  size_t pipeline_piece(size_t granule) const {
    granule = std::max<size_t>(granule, 1);
    return std::max(granule, options_.pipeline_bytes / granule * granule);
  }

  // The transport's tuning as it runs on this host, for the results' rows: the most bytes one
  // send() takes (options.write_slice_bytes, or the default chosen by ranks_exceed_cores()), and
  // how long a stalled loop on this thread spins before it sleeps (options.spin, or when unset
  // kOwnCoreSpin with a core per rank outside the progress thread, else kSharedCoreSpin; zero
  // under a fault hook, whose tests are written against the unspun stall timing).
  size_t write_slice_bytes() const;
  // Pins the slice from now on (0: back to the default). A sender's slice need not match its
  // peers'; ringbench's start-up probe (bench/ringbench/slice_probe.h) sets the same on every rank.
  void set_write_slice_bytes(size_t bytes) { options_.write_slice_bytes = bytes; }
  // TCP connections ("streams") to each peer (options.streams; one after a shrink).
  int streams() const { return options_.streams; }
  // Threads that move one call's bytes over the streams, this one included (options.threads; 1
  // with one stream, where there is nothing to share).
  int stream_threads() const { return stream_helpers_ ? stream_helpers_->threads() : 1; }
  std::chrono::microseconds spin() const;

  // Reusable scratch memory for algorithms, so no timed call allocates once warmed up.
  std::span<std::byte> scratch(size_t bytes);

  void log(std::string_view line) const;

  // The flight recorder (flight_recorder.h): the progress loop records into it.
  FlightRecorder& flight_recorder() { return flight_; }
  // Where dumps go. Without a sink, the diagnosis and the recent entries go to stderr.
  void set_flight_sink(std::function<void(const FlightDump&)> sink) { flight_sink_ = std::move(sink); }
  // From now on SIGUSR1 dumps the recorder, read by the progress loop while it waits (within its
  // poll interval of any wait). The signal must already be blocked in every thread
  // (block_flight_signal(), flight_recorder.h), or it kills the process as by default.
  void dump_on_signal();
  // The signalfd the progress loop polls (-1: none); a readable one means SIGUSR1 arrived.
  int flight_signal_fd() const { return flight_signal_.get(); }
  // Consumes the pending signal and dumps (the loop brings the entries up to date first).
  void on_flight_signal();
  // Formats the recorder and hands it to the sink; `failure` (may be null) is the job's verdict.
  void dump_flight(std::string_view reason, const TransportError* failure);
  // Where the progress loop leaves its heard view when it fails, and the views notices brought.
  ViewGathering& view_gathering() { return views_; }
  // How this rank hears each peer now (heard_views.h); data_waiting[p]: a data frame from p waits
  // unread, so its heartbeats may be queued behind it (empty: none known).
  HeardView heard_view_now(std::span<const char> data_waiting = {}) const;

 private:
  Communicator(int rank, int size, TransportOptions options);
  Connection& peer(int rank);
  // Remembers the failure and sends an Abort notice to every peer it can reach (abort.cpp).
  void abort_job(const TransportError& detected);
  // The failure's verdict with every heard view at hand (view_exchange.cpp): the views of the
  // peers this rank hears come in their Abort notices, for a bounded moment; a failed link
  // replaces the blame of one rank.
  TransportError verdict_from_views(const TransportError& failure);
  void gather_views(wire::AbortNotice notice, std::chrono::milliseconds budget);
  // The door for strangers that connect after set-up (strangers.h), made on first use.
  StrangerDoor& strangers();
  // How long since each peer was last heard, for a dump.
  std::vector<PeerHeard> peers_heard() const;
  // This rank's view for a dump (FlightDump::diagnosis).
  std::string flight_diagnosis(const std::vector<FlightEntry>& entries, const TransportError* failure) const;
  // After a clean run: a Bye on every connection, so peers do not take our exit for a death.
  void say_goodbye();
  // From the owner's thread: waits until no started call is in flight (see Threading).
  void quiesce() const;

  int rank_;
  int size_;
  TransportOptions options_;
  std::vector<PeerCard> cards_;
  InterfaceChoice interface_;
  int host_cores_ = 1;
  int ranks_sharing_cores_ = 1;
  Fd listener_;
  std::unique_ptr<StreamHelpers> stream_helpers_;  // null without helpers; outlives the connections
  std::vector<std::unique_ptr<Connection>> connections_;  // by peer rank; null for self
  uint64_t sequence_ = 0;
  std::vector<std::byte> scratch_;
  std::optional<TransportError> failure_;
  ViewGathering views_;
  std::unique_ptr<StrangerDoor> strangers_;
  FlightRecorder flight_;
  std::function<void(const FlightDump&)> flight_sink_;
  Fd flight_signal_;
  // The phase hook of connect(), while set-up runs.
  LaunchPhaseHook on_phase_;
  // Runs started calls; made on the first start(). Destroyed first (see ~Communicator).
  std::unique_ptr<ProgressThread> progress_;

  uint32_t epoch_ = 0;

  friend class MeshBuilder;
  friend class Shrinker;  // shrink.cpp: the survivors' communicator, built from this one
};

}  // namespace ringbench
