#include "communicator.h"

#include <cstdio>
#include <chrono>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "error.h"
#include "strangers.h"

namespace ringbench {

Communicator::Communicator(int rank, int size, TransportOptions options)
    : rank_(rank), size_(size), options_(std::move(options)) {}

Communicator::~Communicator() { say_goodbye(); }

StrangerDoor& Communicator::strangers() {
  if (!strangers_)
    strangers_ = std::make_unique<StrangerDoor>(listener_.get(), cards_.empty() ? 0 : cards_[0].secret_proposal, rank_,
                                                size_, options_.stranger_grace,
                                                [this](std::string_view line) { log(line); });
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
  ByteCounters total;
  for (const auto& c : connections_)
    if (c) total += c->counters();
  return total;
}

const ByteCounters& Communicator::counters(int peer_rank) const {
  static const ByteCounters none;
  if (peer_rank < 0 || peer_rank >= size_ || !connections_[peer_rank]) return none;
  return connections_[peer_rank]->counters();
}

std::vector<KernelCheck> Communicator::check_kernel_counts() const {
  // The last frames we sent may still be leaving the socket queue when a quiet point is reached;
  // give the kernel's counters a short, bounded moment to catch up before calling it a mismatch.
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

std::span<std::byte> Communicator::scratch(size_t bytes) {
  if (scratch_.size() < bytes) scratch_.resize(bytes);
  return {scratch_.data(), bytes};
}

}  // namespace ringbench
