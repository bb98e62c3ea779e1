// The agreement of failure_agreement.h: one poll loop over the listener, the knocks being read and
// one new connection per peer, driven round by round.

#include "failure_agreement.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "recovery_wire.h"
#include "socket_options.h"

namespace ringbench {
namespace {

using Clock = std::chrono::steady_clock;

std::string set_text(const std::set<int>& ranks) {
  std::string text;
  for (int r : ranks) text += (text.empty() ? "" : ", ") + std::to_string(r);
  return "{" + text + "}";
}

class Agreer {
 public:
  explicit Agreer(AgreementInput input)
      : in_(std::move(input)), peers_(static_cast<size_t>(in_.size)), suspects_(in_.suspects.begin(), in_.suspects.end()),
        sequence_(in_.sequence) {}
  Agreement run();

 private:
  enum class State { Idle, Connecting, AwaitReply, Ready, Gone };
  struct Peer {
    State state = State::Idle;
    Fd fd;
    std::string address;
    bool opened_by_us = false;
    std::array<std::byte, recovery::kHelloBytes> hello{};
    size_t hello_got = 0;
    std::vector<std::byte> out;
    size_t out_done = 0;
    std::vector<std::byte> in;
    std::map<uint32_t, recovery::Round> rounds;
    uint64_t sent = 0, received = 0;
  };
  struct Incoming {
    Fd fd;
    std::string address;
    std::array<std::byte, recovery::kHelloBytes> hello{};
    size_t got = 0;
  };

  bool waiting_on(int peer, uint32_t round) const {
    return peer != in_.rank && !suspects_.count(peer) && !peers_[peer].rounds.count(round);
  }
  void start_outgoing();
  void connect_to(int peer);
  void drive(uint32_t round, Clock::time_point deadline);
  void collect_fds(std::vector<pollfd>& fds, std::vector<int>& owners) const;
  void accept_new();
  void read_incoming(Incoming& knock);
  void on_hello(Fd fd, const std::string& address, const std::array<std::byte, recovery::kHelloBytes>& bytes);
  void service(int peer, short revents);
  void finish_connect(Peer& p, int peer);
  void read_reply(Peer& p, int peer);
  void read_rounds(Peer& p, int peer);
  void flush(Peer& p, int peer);
  void broadcast(const recovery::Round& round);
  void become_ready(Peer& p);
  void suspect(int peer, const std::string& why);
  bool stable_round(uint32_t round, const std::set<int>& before);
  void probe_for_fence();
  void commit(uint32_t rounds_run);
  [[noreturn]] void fenced(int by, const std::string& how) const;
  recovery::Hello hello_to(int peer, recovery::Role role) const;

  AgreementInput in_;
  std::vector<Peer> peers_;
  std::vector<Incoming> incoming_;
  std::set<int> suspects_;
  uint64_t sequence_;
  std::vector<std::vector<std::byte>> said_;  // every round message so far, for peers that join late
};

recovery::Hello Agreer::hello_to(int peer, recovery::Role role) const {
  recovery::Hello hello;
  hello.role = role;
  hello.secret = in_.secret;
  hello.from_rank = static_cast<uint32_t>(in_.rank);
  hello.to_rank = static_cast<uint32_t>(peer);
  hello.to_epoch = in_.to_epoch;
  return hello;
}

void Agreer::fenced(int by, const std::string& how) const {
  ErrorFacts facts(TransportErrorKind::PeerClosed, in_.rank, by,
                   fmt::format("fenced: rank {} {}; the survivors declared this rank failed (it was probably frozen "
                               "or cut off for longer than --timeout) and go on without it",
                               by, how));
  throw Fenced(std::move(facts));
}

void Agreer::suspect(int peer, const std::string& why) {
  Peer& p = peers_[peer];
  p.fd.reset();
  p.state = State::Gone;
  if (suspects_.insert(peer).second && in_.log) in_.log(fmt::format("shrink: rank {} also counts as failed: {}", peer, why));
}

void Agreer::connect_to(int peer) {
  Peer& p = peers_[peer];
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(in_.ports[peer]);
  ::inet_pton(AF_INET, in_.addresses[peer].c_str(), &address.sin_addr);
  p.fd = Fd(::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  p.address = fmt::format("{}:{}", in_.addresses[peer], in_.ports[peer]);
  p.opened_by_us = true;
  const int rc = ::connect(p.fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof address);
  if (rc != 0 && errno != EINPROGRESS) {
    suspect(peer, fmt::format("connecting to {} failed: {}", p.address, system_error_text("connect", errno)));
    return;
  }
  set_nodelay(p.fd.get());
  p.state = State::Connecting;
}

void Agreer::start_outgoing() {
  for (int peer = 0; peer < in_.rank; ++peer)
    if (!suspects_.count(peer)) connect_to(peer);
  for (auto& knock : in_.knocks) {
    if (knock.received == knock.hello.size()) on_hello(std::move(knock.fd), knock.address, knock.hello);
    else incoming_.push_back({std::move(knock.fd), knock.address, knock.hello, knock.received});
  }
  in_.knocks.clear();
}

void Agreer::finish_connect(Peer& p, int peer) {
  int err = 0;
  socklen_t length = sizeof err;
  ::getsockopt(p.fd.get(), SOL_SOCKET, SO_ERROR, &err, &length);
  if (err != 0) {
    suspect(peer, fmt::format("its listener {} is gone: {}", p.address, system_error_text("connect", err)));
    return;
  }
  const auto bytes = recovery::encode(hello_to(peer, recovery::Role::Request));
  // 32 bytes into a fresh socket's empty buffer: one send takes all of it.
  if (::send(p.fd.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(bytes.size())) {
    suspect(peer, fmt::format("sending the recovery hello to {} failed: {}", p.address, system_error_text("send", errno)));
    return;
  }
  p.sent += bytes.size();
  p.state = State::AwaitReply;
}

void Agreer::become_ready(Peer& p) {
  p.state = State::Ready;
  for (const auto& message : said_) p.out.insert(p.out.end(), message.begin(), message.end());
}

void Agreer::read_reply(Peer& p, int peer) {
  const ssize_t n = ::recv(p.fd.get(), p.hello.data() + p.hello_got, p.hello.size() - p.hello_got, MSG_DONTWAIT);
  if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
    suspect(peer, fmt::format("it closed {} before answering the recovery hello", p.address));
    return;
  }
  if (n < 0) return;
  p.hello_got += static_cast<size_t>(n);
  p.received += static_cast<uint64_t>(n);
  if (p.hello_got < p.hello.size()) return;
  const auto reply = recovery::decode_hello(p.hello.data());
  if (reply && reply->role == recovery::Role::Fenced && reply->secret == in_.secret)
    fenced(peer, fmt::format("answered this rank's recovery hello with Fenced (it is at epoch {})", reply->to_epoch));
  if (!reply || reply->role != recovery::Role::Accept || reply->secret != in_.secret ||
      reply->from_rank != static_cast<uint32_t>(peer) || reply->to_epoch != in_.to_epoch) {
    suspect(peer, fmt::format("the process at {} did not answer as rank {} of this job", p.address, peer));
    return;
  }
  become_ready(p);
}

void Agreer::on_hello(Fd fd, const std::string& address, const std::array<std::byte, recovery::kHelloBytes>& bytes) {
  const auto hello = recovery::decode_hello(bytes.data());
  const int from = hello ? static_cast<int>(hello->from_rank) : -1;
  if (!hello || hello->role != recovery::Role::Request || hello->secret != in_.secret || from <= in_.rank ||
      from >= in_.size || hello->to_rank != static_cast<uint32_t>(in_.rank)) {
    if (in_.log) in_.log(fmt::format("shrink: closed a connection from {}: not a recovery hello of this job", address));
    return;
  }
  const bool refused = suspects_.count(from) || hello->to_epoch != in_.to_epoch;
  const auto answer = recovery::encode(hello_to(from, refused ? recovery::Role::Fenced : recovery::Role::Accept));
  const bool sent = ::send(fd.get(), answer.data(), answer.size(), MSG_NOSIGNAL | MSG_DONTWAIT) ==
                    static_cast<ssize_t>(answer.size());
  if (refused) {
    if (in_.log) in_.log(fmt::format("shrink: fenced rank {} ({}): it counts as failed", from, address));
    return;
  }
  Peer& p = peers_[from];
  if (!sent || p.state != State::Idle) {
    suspect(from, fmt::format("its recovery connection from {} failed", address));
    return;
  }
  set_nodelay(fd.get());
  p.fd = std::move(fd);
  p.address = address;
  p.sent += answer.size();
  p.received += bytes.size();
  become_ready(p);
}

void Agreer::accept_new() {
  for (;;) {
    const int fd = ::accept4(in_.listener, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;
    incoming_.push_back({Fd(fd), peer_address_of(fd), {}, 0});
  }
}

void Agreer::read_incoming(Incoming& knock) {
  const ssize_t n = ::recv(knock.fd.get(), knock.hello.data() + knock.got, knock.hello.size() - knock.got, MSG_DONTWAIT);
  if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
    knock.fd.reset();
    return;
  }
  if (n < 0) return;
  knock.got += static_cast<size_t>(n);
  if (knock.got == knock.hello.size()) on_hello(std::move(knock.fd), knock.address, knock.hello);
}

void Agreer::flush(Peer& p, int peer) {
  while (p.out_done < p.out.size()) {
    const ssize_t n = ::send(p.fd.get(), p.out.data() + p.out_done, p.out.size() - p.out_done, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
    if (n <= 0) {
      suspect(peer, fmt::format("writing to {} failed: {}", p.address, system_error_text("send", errno)));
      return;
    }
    p.out_done += static_cast<size_t>(n);
    p.sent += static_cast<uint64_t>(n);
  }
}

// Reads whole round messages, never a byte past the commit: the new communicator's first frames
// may follow it on the same stream.
void Agreer::read_rounds(Peer& p, int peer) {
  while (!p.rounds.count(recovery::kCommitRound)) {
    size_t need = recovery::kRoundFixedBytes;
    std::optional<uint32_t> count;
    if (p.in.size() >= need) {
      count = recovery::round_count(p.in.data(), static_cast<uint32_t>(in_.size));
      if (!count) return suspect(peer, fmt::format("it sent a corrupted round message over {}", p.address));
      need += 4 * static_cast<size_t>(*count);
    }
    if (p.in.size() == need && count) {
      auto round = recovery::decode_round(p.in.data(), *count);
      p.rounds[round.round] = std::move(round);
      p.in.clear();
      continue;
    }
    const size_t have = p.in.size();
    p.in.resize(need);
    const ssize_t n = ::recv(p.fd.get(), p.in.data() + have, need - have, MSG_DONTWAIT);
    p.in.resize(have + static_cast<size_t>(std::max<ssize_t>(n, 0)));
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
      return suspect(peer, fmt::format("it closed {} during the agreement", p.address));
    if (n < 0) return;
    p.received += static_cast<uint64_t>(n);
  }
}

void Agreer::service(int peer, short revents) {
  Peer& p = peers_[peer];
  if (p.state == State::Connecting && (revents & (POLLOUT | POLLERR | POLLHUP))) finish_connect(p, peer);
  else if (p.state == State::AwaitReply && revents) read_reply(p, peer);
  if (p.state != State::Ready) return;
  flush(p, peer);
  if (p.state == State::Ready && (revents & (POLLIN | POLLHUP | POLLERR))) read_rounds(p, peer);
}

void Agreer::collect_fds(std::vector<pollfd>& fds, std::vector<int>& owners) const {
  fds.clear();
  owners.clear();
  fds.push_back({in_.listener, POLLIN, 0});
  owners.push_back(-1);
  for (size_t i = 0; i < incoming_.size(); ++i) {
    fds.push_back({incoming_[i].fd.get(), POLLIN, 0});
    owners.push_back(-2 - static_cast<int>(i));
  }
  for (int r = 0; r < in_.size; ++r) {
    const Peer& p = peers_[r];
    if (!p.fd || p.state == State::Gone || p.state == State::Idle) continue;
    short events = p.state == State::Connecting ? POLLOUT : 0;
    if (p.state == State::AwaitReply || (p.state == State::Ready && !p.rounds.count(recovery::kCommitRound)))
      events |= POLLIN;
    if (p.state == State::Ready && p.out_done < p.out.size()) events |= POLLOUT;
    fds.push_back({p.fd.get(), events, 0});
    owners.push_back(r);
  }
}

// Moves bytes until every rank not suspected has sent `round`, or the deadline passes.
void Agreer::drive(uint32_t round, Clock::time_point deadline) {
  std::vector<pollfd> fds;
  std::vector<int> owners;
  for (;;) {
    bool waiting = false;
    for (int r = 0; r < in_.size; ++r) waiting |= waiting_on(r, round);
    const auto now = Clock::now();
    if (!waiting || now >= deadline) return;
    collect_fds(fds, owners);
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count();
    ::poll(fds.data(), fds.size(), static_cast<int>(std::clamp<long>(left, 1, 50)));
    for (size_t i = 0; i < fds.size(); ++i) {
      if (owners[i] == -1 && fds[i].revents) accept_new();
      else if (owners[i] <= -2 && fds[i].revents) read_incoming(incoming_[static_cast<size_t>(-2 - owners[i])]);
      else if (owners[i] >= 0) service(owners[i], fds[i].revents);
    }
    std::erase_if(incoming_, [](const Incoming& k) { return !k.fd; });
  }
}

void Agreer::broadcast(const recovery::Round& round) {
  said_.push_back(recovery::encode(round));
  for (int r = 0; r < in_.size; ++r) {
    Peer& p = peers_[r];
    if (p.state != State::Ready) continue;
    p.out.insert(p.out.end(), said_.back().begin(), said_.back().end());
    flush(p, r);
  }
}

// Folds in what `round` brought; true when it changed nothing anywhere.
bool Agreer::stable_round(uint32_t round, const std::set<int>& before) {
  bool same = true;
  for (int r = 0; r < in_.size; ++r)
    if (waiting_on(r, round)) suspect(r, fmt::format("no round-{} message within {} ms", round + 1, in_.round_limit.count()));
  for (int r = 0; r < in_.size; ++r) {
    if (r == in_.rank || suspects_.count(r)) continue;
    const auto& got = peers_[r].rounds.at(round);
    sequence_ = std::max(sequence_, got.sequence);
    const std::set<int> theirs(got.suspects.begin(), got.suspects.end());
    if (theirs.count(in_.rank)) fenced(r, "holds this rank to have failed");
    same &= theirs == before;
    suspects_.insert(theirs.begin(), theirs.end());
  }
  return same && suspects_ == before;
}

recovery::Round round_message(uint32_t round, uint64_t sequence, const std::set<int>& suspects) {
  recovery::Round message{round, sequence, {}};
  for (int r : suspects) message.suspects.push_back(static_cast<uint32_t>(r));
  return message;
}

void Agreer::commit(uint32_t rounds_run) {
  broadcast(round_message(recovery::kCommitRound, sequence_, suspects_));
  drive(recovery::kCommitRound, Clock::now() + in_.round_limit);
  const std::set<int> mine = suspects_;
  for (int r = 0; r < in_.size; ++r) {
    if (r == in_.rank || mine.count(r)) continue;
    const auto& rounds = peers_[r].rounds;
    const auto it = rounds.find(recovery::kCommitRound);
    std::string theirs = "no commit";
    if (it != rounds.end()) {
      const std::set<int> set(it->second.suspects.begin(), it->second.suspects.end());
      if (set == mine) continue;
      theirs = set_text(set);
    }
    throw TransportError(ErrorFacts(
        TransportErrorKind::Protocol, in_.rank, r,
        fmt::format("shrink failed after {} round(s): the survivors disagree on the failed set (this rank {}, rank {} "
                    "{}): a further failure during the agreement split them; stopping rather than go on apart",
                    rounds_run, set_text(mine), r, theirs)));
  }
}

// Nobody took part: either every other rank failed, or this rank is the one that was declared
// failed (it slept through the agreement and the others went on). It knocks on every rank's
// listener once more; a rank that went on answers Fenced (strangers.h) and fenced() throws.
void Agreer::probe_for_fence() {
  const std::set<int> suspected = suspects_;  // a probe suspects nobody
  for (int r = 0; r < in_.size; ++r) {
    if (r == in_.rank) continue;
    peers_[r] = Peer{};
    connect_to(r);
  }
  const auto deadline = Clock::now() + in_.round_limit;
  std::vector<pollfd> fds;
  std::vector<int> owners;
  for (bool pending = true; pending && Clock::now() < deadline;) {
    collect_fds(fds, owners);
    ::poll(fds.data(), fds.size(), 50);
    pending = false;
    for (size_t i = 0; i < fds.size(); ++i) {
      if (owners[i] < 0) continue;
      Peer& p = peers_[owners[i]];
      if (p.state == State::Connecting && fds[i].revents) finish_connect(p, owners[i]);
      else if (p.state == State::AwaitReply && fds[i].revents) read_reply(p, owners[i]);
      pending |= p.state == State::Connecting || p.state == State::AwaitReply;
    }
  }
  for (auto& p : peers_) p = Peer{};
  suspects_ = suspected;
}

Agreement Agreer::run() {
  if (in_.everyone_left) probe_for_fence();
  start_outgoing();
  uint32_t round = 0;
  for (;; ++round) {
    const std::set<int> before = suspects_;
    broadcast(round_message(round, sequence_, suspects_));
    drive(round, Clock::now() + in_.round_limit);
    if (stable_round(round, before)) break;
    if (static_cast<int>(suspects_.size()) >= in_.size - 1) break;  // alone: nobody left to agree with
  }
  if (static_cast<int>(suspects_.size()) >= in_.size - 1) probe_for_fence();
  if (static_cast<int>(suspects_.size()) >= in_.size - 1)
    throw TransportError(ErrorFacts(TransportErrorKind::PeerClosed, in_.rank, -1,
                                    fmt::format("shrink failed: no other rank answered within {} ms: every other "
                                                "rank failed, or the job ended without this rank (declared failed "
                                                "while it was frozen or cut off); stopping",
                                                in_.round_limit.count())));
  commit(round + 1);
  Agreement agreed;
  agreed.rounds = static_cast<int>(round) + 1;
  agreed.sequence = sequence_;
  agreed.failed.assign(suspects_.begin(), suspects_.end());
  for (int r = 0; r < in_.size; ++r) {
    if (suspects_.count(r)) continue;
    agreed.members.push_back(r);
    if (r == in_.rank) continue;
    Peer& p = peers_[r];
    agreed.links.push_back({r, std::move(p.fd), p.address, p.opened_by_us, p.sent, p.received});
  }
  return agreed;
}

}  // namespace

std::chrono::milliseconds agreement_round_limit(std::chrono::milliseconds timeout) {
  if (timeout.count() <= 0) return std::chrono::seconds(10);
  return std::max(timeout, std::chrono::milliseconds(1000));
}

Agreement agree_on_failures(AgreementInput input) { return Agreer(std::move(input)).run(); }

}  // namespace ringbench
