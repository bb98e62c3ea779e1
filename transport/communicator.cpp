#include "communicator.h"

#include <cstdio>
#include <chrono>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "error.h"
#include "progress_thread.h"
#include "strangers.h"

namespace ringbench {

Communicator::Communicator(int rank, int size, TransportOptions options)
    : rank_(rank), size_(size), options_(std::move(options)) {}

Communicator::~Communicator() {
  // The progress thread first: its running call still uses the connections, and the goodbye
  // must follow every frame of it.
  progress_.reset();
  say_goodbye();
}

void Communicator::quiesce() const {
  if (progress_ && progress_->busy() && !progress_->on_this_thread()) progress_->drain();
}

void Communicator::begin_collective() {
  quiesce();
  ++sequence_;
  if (options_.silenced_peer) {
    const int peer = options_.silenced_peer(rank_, sequence_);
    if (peer >= 0 && peer < size_ && connections_[peer]) connections_[peer]->silence();
  }
}

Request Communicator::start(std::function<void(Communicator&)> call) {
  if (!progress_) {
    if (failure_) throw *failure_;  // no thread yet: failure_ was written on this one
    progress_ = std::make_unique<ProgressThread>(rank_);
  }
  return progress_->start([this, call = std::move(call)] { call(*this); });
}

bool Communicator::calls_in_flight() const { return progress_ && progress_->busy(); }

StrangerDoor& Communicator::strangers() {
  if (!strangers_) {
    strangers_ = std::make_unique<StrangerDoor>(listener_.get(), cards_.empty() ? 0 : cards_[0].secret_proposal, rank_,
                                                size_, options_.stranger_grace,
                                                [this](std::string_view line) { log(line); });
    strangers_->set_epoch(epoch_);
  }
  return *strangers_;
}

void Communicator::log(std::string_view line) const {
  if (options_.log) {
    options_.log(line);
    return;
  }
  std::string text = fmt::format("ringbench rank {}: {}\n", rank_, line);
  std::fwrite(text.data(), 1, text.size(), stderr);
}

Connection& Communicator::peer(int rank) {
  if (rank < 0 || rank >= size_ || rank == rank_ || !connections_[rank])
    throw TransportError(
        {TransportErrorKind::Config, rank_, rank, fmt::format("no connection to rank {} (programming error)", rank)});
  return *connections_[rank];
}

std::vector<std::string> Communicator::distinct_hosts() const {
  std::set<std::string> seen;
  std::vector<std::string> names;
  for (const auto& card : cards_)
    if (seen.insert(card.host.key()).second) names.push_back(card.host.hostname);
  return names;
}

void Communicator::barrier() {
  begin_collective();
  uint32_t rounds = 0;
  for (int distance = 1; distance < size_; distance *= 2) ++rounds;
  uint32_t round = 0;
  for (int distance = 1; distance < size_; distance *= 2, ++round) {
    SendSpec send{(rank_ + distance) % size_, round, {}};
    RecvSpec recv{(rank_ - distance + size_) % size_, round, {}};
    exchange({&send, 1}, {&recv, 1}, {"barrier", "dissemination", round, rounds});
  }
}

std::vector<std::vector<std::byte>> Communicator::gather(std::span<const std::byte> mine, int root) {
  begin_collective();
  std::vector<std::vector<std::byte>> all;
  if (rank_ != root) {
    SendSpec send{root, 0, mine};
    exchange({&send, 1}, {}, {"gather", "direct", 0, 1});
    return all;
  }
  all.resize(size_);
  std::vector<RecvSpec> receives;
  for (int r = 0; r < size_; ++r) {
    all[r].resize(mine.size());
    if (r == rank_) std::copy(mine.begin(), mine.end(), all[r].begin());
    else receives.push_back({r, 0, all[r]});
  }
  exchange({}, receives, {"gather", "direct", 0, 1});
  return all;
}

ByteCounters Communicator::counters() const {
  quiesce();
  ByteCounters total;
  for (const auto& c : connections_)
    if (c) total += c->counters();
  return total;
}

const ByteCounters& Communicator::counters(int peer_rank) const {
  quiesce();
  static const ByteCounters none;
  if (peer_rank < 0 || peer_rank >= size_ || !connections_[peer_rank]) return none;
  return connections_[peer_rank]->counters();
}

std::vector<KernelCheck> Communicator::check_kernel_counts() const {
  // The last frames we sent may still be leaving the socket queue when a quiet point is reached;
  // give the kernel's counters a short, bounded moment to catch up before calling it a mismatch.
  quiesce();
  std::vector<KernelCheck> checks;
  for (int attempt = 0; attempt < 40; ++attempt) {
    checks.clear();
    bool all_ok = true;
    for (const auto& c : connections_) {
      if (!c) continue;
      auto kernel = c->kernel_counts();
      checks.push_back({c->peer_rank(), c->counters().total_sent(), kernel.bytes_sent, c->counters().total_received(),
                        kernel.bytes_received});
      all_ok &= checks.back().ok();
    }
    if (all_ok) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return checks;
}

size_t Communicator::write_slice_bytes() const {
  if (options_.write_slice_bytes != 0) return options_.write_slice_bytes;
  return ranks_exceed_cores() ? TransportOptions::kSharedCoreSlice : TransportOptions::kOwnCoreSlice;
}

std::chrono::microseconds Communicator::spin() const {
  if (options_.fault_hook) return std::chrono::microseconds{0};
  if (options_.spin) return *options_.spin;
  const bool owner_computes = progress_ && progress_->on_this_thread();
  return ranks_exceed_cores() || owner_computes ? TransportOptions::kSharedCoreSpin : TransportOptions::kOwnCoreSpin;
}

std::span<std::byte> Communicator::scratch(size_t bytes) {
  if (scratch_.size() < bytes) scratch_.resize(bytes);
  return {scratch_.data(), bytes};
}

void Communicator::dump_on_signal() {
  if (!flight_signal_) flight_signal_ = Fd(open_flight_signal_fd());
}

void Communicator::on_flight_signal() {
  bool any = false;
  while (read_flight_signal(flight_signal_.get())) any = true;
  if (any) dump_flight("SIGUSR1", nullptr);
}

std::vector<PeerHeard> Communicator::peers_heard() const {
  const auto now = Connection::Clock::now();
  std::vector<PeerHeard> heard;
  for (const auto& c : connections_)
    if (c)
      heard.push_back({c->peer_rank(), std::chrono::duration<double>(now - c->last_received()).count(),
                       c->state() == Connection::State::Closed, c->departed()});
  return heard;
}

std::string Communicator::flight_diagnosis(const std::vector<FlightEntry>& entries, const TransportError* failure) const {
  std::string mine = describe_last_call(entries);
  if (mine.empty()) mine = "no collective recorded yet";
  const std::string heard = fmt::format("  rank {} last heard: {}\n", rank_, describe_heard(peers_heard()));
  // The first survivor speaks for the job: rank 0, or rank 1 when rank 0 is the one that failed.
  const int failed = failure ? failure->peer_rank() : -1;
  if (!failure || rank_ != (failed == 0 ? 1 : 0))
    return fmt::format("rank {}: {}\n", rank_, mine) + heard;
  const ErrorFacts& facts = failure->facts();
  std::string verdict = failed >= 0 ? fmt::format("rank {} failed: {}", failed, facts.what) : facts.what;
  if (facts.detected_by >= 0 && facts.detected_by != rank_) verdict += fmt::format(" (detected by rank {})", facts.detected_by);
  std::string text = fmt::format("diagnosis by rank {}, the first survivor: {}\n  rank {}: {}\n", rank_, verdict, rank_, mine);
  if (failed >= 0) text += fmt::format("  {}\n", describe_last_frame_from(entries, failed));
  return text + heard;
}

void Communicator::dump_flight(std::string_view reason, const TransportError* failure) {
  // The entries of the last few calls, at most a screenful (a ring at large N has 2(N-1) frames a
  // call), go to the screen; the file gets every entry held.
  constexpr size_t kRecentCalls = 3, kRecentEntries = 40;
  const auto now = FlightEntry::Clock::now();
  const auto entries = flight_.entries();
  FlightDump dump;
  dump.reason = std::string(reason);
  dump.diagnosis = flight_diagnosis(entries, failure);
  auto recent = last_calls(entries, kRecentCalls);
  if (recent.size() > kRecentEntries) recent.erase(recent.begin(), recent.end() - kRecentEntries);
  dump.recent = format_entries(recent, now);
  dump.all = format_entries(entries, now);
  if (flight_sink_) {
    flight_sink_(dump);
    return;
  }
  log(fmt::format("flight recorder ({}):\n{}{}", dump.reason, dump.diagnosis, dump.recent));
}

}  // namespace ringbench
