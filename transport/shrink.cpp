#include "shrink.h"

#include <fmt/format.h>

#include "strangers.h"
#include "wire.h"

namespace ringbench {

class Shrinker {
 public:
  static Shrunk build(Communicator& old, const TransportError& failure) {
    Agreement agreed = agree_on_failures(input_for(old, failure));
    Shrunk result;
    result.failed = agreed.failed;
    result.survivors = agreed.members;
    result.rounds = agreed.rounds;
    result.comm = communicator_over(old, std::move(agreed));
    return result;
  }

 private:
  static AgreementInput input_for(Communicator& old, const TransportError& failure) {
    AgreementInput input;
    input.rank = old.rank_;
    input.size = old.size_;
    input.to_epoch = old.epoch_ + 1;
    input.secret = old.cards_[0].secret_proposal;
    for (const PeerCard& card : old.cards_) {
      input.addresses.push_back(card.chosen.address);
      input.ports.push_back(card.port);
    }
    input.listener = old.listener_.get();
    if (old.strangers_) input.knocks = old.strangers_->take_knocks();
    input.suspects = {failure.peer_rank()};
    input.everyone_left = true;
    for (const auto& c : old.connections_)
      if (c && (c->state() == Connection::State::Connected || c->departed())) input.everyone_left = false;
    input.sequence = old.sequence_;
    input.round_limit = agreement_round_limit(old.options_.timeout);
    input.log = [&old](std::string_view line) { old.log(line); };
    return input;
  }

  // Fault injection names ranks as launched: a renumbered rank must still be itself to it.
  static TransportOptions options_for(const Communicator& old, const std::vector<int>& members) {
    TransportOptions options = old.options_;
    // The survivors' fresh links are one socket per peer (failure_agreement.h), whatever --streams.
    options.streams = 1;
    options.threads = 1;
    if (options.fault_hook)
      options.fault_hook = [hook = old.options_.fault_hook, members](int rank, uint64_t sequence, bool waiting) {
        hook(members[static_cast<size_t>(rank)], sequence, waiting);
      };
    if (options.silenced_peer)
      options.silenced_peer = [hook = old.options_.silenced_peer, members](int rank, uint64_t sequence) {
        const int peer = hook(members[static_cast<size_t>(rank)], sequence);
        const auto at = std::find(members.begin(), members.end(), peer);
        return at == members.end() ? -1 : static_cast<int>(at - members.begin());
      };
    return options;
  }

  static std::unique_ptr<Communicator> communicator_over(Communicator& old, Agreement agreed) {
    const std::vector<int>& members = agreed.members;
    const int size = static_cast<int>(members.size());
    const int rank = static_cast<int>(std::find(members.begin(), members.end(), old.rank_) - members.begin());
    std::unique_ptr<Communicator> comm(new Communicator(rank, size, options_for(old, members)));
    comm->epoch_ = old.epoch_ + 1;
    comm->sequence_ = agreed.sequence;
    comm->interface_ = old.interface_;
    comm->host_cores_ = old.host_cores_;
    comm->ranks_sharing_cores_ = old.ranks_sharing_cores_;
    comm->listener_ = std::move(old.listener_);
    for (int r = 0; r < size; ++r) {
      PeerCard card = old.cards_[static_cast<size_t>(members[static_cast<size_t>(r)])];
      card.rank = r;
      comm->cards_.push_back(std::move(card));
    }
    // The job's secret (and the seed derived from it) stays the launched rank 0's.
    comm->cards_[0].secret_proposal = old.cards_[0].secret_proposal;
    comm->connections_.resize(static_cast<size_t>(size));
    for (AgreedLink& link : agreed.links) {
      const int peer = static_cast<int>(std::find(members.begin(), members.end(), link.peer) - members.begin());
      auto connection = std::make_unique<Connection>(std::move(link.fd), rank, peer, link.address, link.opened_by_us);
      connection->record_sent(link.sent, 0);  // the agreement's bytes are protocol overhead
      connection->record_received(link.received, 0);
      comm->connections_[static_cast<size_t>(peer)] = std::move(connection);
    }
    return comm;
  }
};

Shrunk shrink(Communicator& old, const TransportError& failure) {
  if (failure.peer_rank() < 0 || failure.peer_rank() >= old.size())
    throw failure;  // no rank to leave out: nothing to shrink to
  return Shrinker::build(old, failure);
}

}  // namespace ringbench
