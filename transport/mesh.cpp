// Communicator::connect: from a bootstrap to a full mesh of handshaken TCP connections.
//
// 1. Choose an interface two ways, as if every rank shared this host and as if not (interfaces.h),
//    listen on both addresses on one ephemeral port, and publish a PeerCard with both.
// 2. One bootstrap allgather: everyone learns every card; rank 0's secret proposal is the secret.
//    Every rank now knows whether all ranks share one host, keeps the listener on that choice's
//    address and closes the other: from here on it listens on one address, never 0.0.0.0.
// 3. Each rank connects, from its own chosen address, to every lower rank's chosen address (a
//    failure names both ranks, hosts and addresses) and sends its Hello at once (the kernel's backlog
//    completes the TCP handshake even before the peer calls accept, so nobody waits in a chain).
// 4. One poll loop accepts from higher ranks and reads Hellos and Replies concurrently. A stranger
//    (bad magic, wrong secret, silence, duplicate rank) is closed and logged; it cannot hold up or
//    disturb the job. A bad Reply on our own outgoing connection is fatal: we reached the wrong
//    process.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <random>
#include <thread>

#include <fmt/format.h>

#include "communicator.h"
#include "debug_log.h"
#include "error.h"
#include "peer_card.h"
#include "socket_options.h"
#include "wire.h"

namespace ringbench {

using Clock = std::chrono::steady_clock;

class MeshBuilder {
 public:
  MeshBuilder(Communicator& comm, Bootstrap& bootstrap) : comm_(comm), bootstrap_(bootstrap) {}
  void build();

 private:
  struct Pending {
    Fd fd;
    int peer_rank;  // -1 while an incoming connection has not said who it is
    std::string address;
    int stream = 0;  // which of the pair's connections (--streams), once known
    std::array<std::byte, wire::kHelloBytes> hello{};
    size_t received = 0;
    Clock::time_point deadline;
  };

  void open_listeners(const std::array<InterfaceChoice, 2>& routes);
  void listen_and_publish();
  void choose_routes();
  // INFO NET: the interfaces this rank could use and what each case would choose.
  void log_candidates(const PeerCard& mine) const;
  // INFO NET: a new connection's peer, its address, and the socket options in force.
  void log_connection(const Connection& connection, bool opened_by_us) const;
  // Binds an outgoing socket to this rank's chosen address, so a connection proves that the
  // peer's address is reachable from ours.
  void bind_source(int fd, int peer);
  std::string endpoint(int rank) const;
  void start_outgoing();
  void start_stream(int peer, int stream);  // connects stream `stream` to `peer` and sends its Hello
  Fd connect_to(int peer);
  void complete_handshakes();
  // Throws the Timeout naming this rank and each peer whose handshake is missing, with addresses.
  [[noreturn]] void fail_missing_handshakes();
  // Tells the launch watchdog what set-up now waits for (Communicator::connect's on_phase).
  void phase(const std::string& waiting_for) const {
    if (comm_.on_phase_) comm_.on_phase_(waiting_for);
  }
  // The peers whose handshake is still missing, as a phase: "the connection from rank 3 (...)".
  std::string missing_handshakes() const;
  void on_incoming_hello(Pending& p);
  void on_outgoing_reply(Pending& p);
  // Files the handshaken socket as stream p.stream to peer_rank; the connection is made once all
  // of the pair's streams are in.
  void add_connection(Pending& p, int peer_rank);
  // Throws when a job member runs with another --streams than this rank (a Hello's count).
  void check_streams(const Pending& p, int peer_rank, int theirs);
  // Throws the failure, as seen by this rank.
  [[noreturn]] void fail(ErrorFacts facts);
  [[noreturn]] void fail(TransportErrorKind kind, int peer, std::string what) {
    fail({kind, comm_.rank_, peer, std::move(what)});
  }
  // Throws a failure on the connection to pending peer `p`.
  [[noreturn]] void fail_peer(TransportErrorKind kind, const Pending& p, std::string what) {
    ErrorFacts facts(kind, comm_.rank_, p.peer_rank, std::move(what));
    facts.peer_address = p.address;
    fail(std::move(facts));
  }
  // Throws the failure of system call `call` (errno `err`) while doing `what` with `peer`.
  [[noreturn]] void fail_call(TransportErrorKind kind, int peer, std::string what, const char* call, int err,
                              std::string peer_address = {}, std::string hint = {});

  Communicator& comm_;
  Bootstrap& bootstrap_;
  uint64_t secret_ = 0;
  std::array<Fd, 2> listeners_;  // until choose_routes: one per PeerCard::routes entry ([0] empty if they agree)
  uint16_t port_ = 0;
  std::vector<Pending> pending_;
  Clock::time_point deadline_;
  int established_ = 0;
  // Handshaken sockets by peer and stream, until all of a pair's streams are in.
  std::vector<std::vector<Fd>> streams_;
};

std::unique_ptr<Communicator> Communicator::connect(Bootstrap& bootstrap, TransportOptions options,
                                                   LaunchPhaseHook on_phase) {
  std::unique_ptr<Communicator> comm(new Communicator(bootstrap.rank(), bootstrap.size(), std::move(options)));
  comm->on_phase_ = std::move(on_phase);
  MeshBuilder(*comm, bootstrap).build();
  comm->on_phase_ = {};
  return comm;
}

void MeshBuilder::fail(ErrorFacts facts) { throw TransportError(std::move(facts)); }

void MeshBuilder::fail_call(TransportErrorKind kind, int peer, std::string what, const char* call, int err,
                            std::string peer_address, std::string hint) {
  ErrorFacts facts(kind, comm_.rank_, peer, std::move(what));
  facts.peer_address = std::move(peer_address);
  facts.syscall = call;
  facts.error_number = err;
  facts.hint = std::move(hint);
  fail(std::move(facts));
}

void MeshBuilder::build() {
  // Made before the connections and destroyed after them (member order): they point at it.
  if (comm_.options_.threads > 1 && comm_.options_.streams > 1)
    comm_.stream_helpers_ = std::make_unique<StreamHelpers>(std::min(comm_.options_.threads, comm_.options_.streams));
  comm_.connections_.resize(comm_.size_);
  streams_.resize(comm_.size_);
  for (auto& slots : streams_) slots.resize(static_cast<size_t>(comm_.options_.streams));
  listen_and_publish();
  // The clock starts once every address is known: waiting for the launcher to start all ranks is
  // the launcher's business, connecting to ranks that are known to be up is ours.
  deadline_ = Clock::now() + comm_.options_.connect_timeout;
  choose_routes();
  start_outgoing();
  complete_handshakes();
}

namespace {

// A socket listening on address:port (port 0: any free one), and the port it got; on failure an
// empty Fd, with the failed call and its errno in *call and *err.
Fd listen_at(const std::string& address, uint16_t port, size_t buffer_bytes, uint16_t* bound, const char** call,
             int* err) {
  Fd fd = make_tcp_socket(buffer_bytes);
  sockaddr_in where{};
  where.sin_family = AF_INET;
  where.sin_port = htons(port);
  ::inet_pton(AF_INET, address.c_str(), &where.sin_addr);
  *call = "bind";
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&where), sizeof where) == 0) {
    *call = "listen";
    if (::listen(fd.get(), SOMAXCONN) == 0) {
      socklen_t length = sizeof where;
      ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&where), &length);
      *bound = ntohs(where.sin_port);
      return fd;
    }
  }
  *err = errno;
  return {};
}

}  // namespace

void MeshBuilder::open_listeners(const std::array<InterfaceChoice, 2>& routes) {
  // Both listeners share one port, so a card carries one. Another program may hold that port on
  // the second address; a few fresh ports make that harmless.
  constexpr int kAttempts = 16;
  const size_t buffers = comm_.options_.socket_buffer_bytes;
  const char* call = "";
  int err = 0;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    listeners_[1] = listen_at(routes[1].address, 0, buffers, &port_, &call, &err);
    if (!listeners_[1])
      fail_call(TransportErrorKind::System, -1, fmt::format("listening on {} ({})", routes[1].name, routes[1].address),
                call, err);
    if (routes[0].address == routes[1].address) return;  // one socket serves both cases
    uint16_t same = 0;
    listeners_[0] = listen_at(routes[0].address, port_, buffers, &same, &call, &err);
    if (listeners_[0]) return;
    if (err != EADDRINUSE) break;
  }
  fail_call(TransportErrorKind::System, -1,
            fmt::format("listening on {} ({}) port {}", routes[0].name, routes[0].address, port_), call, err);
}

void MeshBuilder::listen_and_publish() {
  const auto& options = comm_.options_;
  PeerCard mine;
  mine.rank = comm_.rank_;
  mine.host = options.host_override ? *options.host_override : HostIdentity::local();
  mine.interfaces = local_interfaces();
  // Whether every rank shares this host is known only after the bootstrap: choose both ways now,
  // listen on both, and close the listener not needed once every card is in (choose_routes).
  const auto filter = parse_interface_filter(options.iface_spec, options.iface_origin);
  mine.routes = {choose_interface(mine.interfaces, filter, true), choose_interface(mine.interfaces, filter, false)};
  log_candidates(mine);
  open_listeners(mine.routes);
  mine.port = port_;
  mine.secret_proposal = (uint64_t{std::random_device{}()} << 32) ^ std::random_device{}();
  phase(fmt::format("the address exchange (every rank's card through the bootstrap; this rank listens on port {})",
                    port_));
  auto blobs = bootstrap_.allgather(encode_card(mine));
  if (static_cast<int>(blobs.size()) != comm_.size_)
    fail(TransportErrorKind::Handshake, -1,
         fmt::format("bootstrap returned {} addresses for {} ranks", blobs.size(), comm_.size_));
  for (int r = 0; r < comm_.size_; ++r) comm_.cards_.push_back(decode_card(blobs[r], r));
  secret_ = comm_.cards_[0].secret_proposal;
}

void MeshBuilder::log_candidates(const PeerCard& mine) const {
  if (!debug::enabled(debug::Level::Info, debug::Subsys::Net)) return;
  std::string up;
  for (const auto& candidate : mine.interfaces)
    up += fmt::format("{}{} {}", up.empty() ? "" : ", ", candidate.name, candidate.address);
  debug::info(debug::Subsys::Net, comm_.rank_,
              "interfaces up: {}; if every rank shares this host: {} ({}); if not: {} ({}); filter: {}",
              up.empty() ? "none" : up, mine.routes[0].name, mine.routes[0].reason, mine.routes[1].name,
              mine.routes[1].reason, comm_.options_.iface_spec.empty() ? "none" : comm_.options_.iface_spec);
}

void MeshBuilder::choose_routes() {
  auto& cards = comm_.cards_;
  const bool all_on_one_host = std::all_of(cards.begin(), cards.end(),
                                           [&](const PeerCard& c) { return c.host.same_host(cards[0].host); });
  // Counted once here: std::thread::hardware_concurrency() reads /sys on every call, three
  // syscalls the progress loop would otherwise pay per step.
  // Cores belong to the kernel, not to the network namespace: two namespace hosts on one 2-core
  // machine, 2 ranks each, are 4 ranks on 2 cores. Counted by host, each rank spun 1 ms as if it
  // had a core, starving the softirq work that moves the other host's packets: across two tbf
  // hosts a 64 KiB ring all-reduce took 5.4 ms instead of 0.77 (docs/performance.md).
  const auto neighbours = std::count_if(cards.begin(), cards.end(),
                                        [&](const PeerCard& c) { return c.host.same_kernel(cards[comm_.rank_].host); });
  const unsigned cores = std::thread::hardware_concurrency();
  comm_.host_cores_ = std::max(1, static_cast<int>(cores));
  comm_.ranks_sharing_cores_ = static_cast<int>(neighbours);
  // Every rank reaches the same verdict from the same cards, so each peer listens where we look.
  const size_t route = all_on_one_host ? 0 : 1;
  for (auto& card : cards) card.chosen = card.routes[route];
  comm_.interface_ = cards[comm_.rank_].chosen;
  // From here on this rank listens only on the chosen interface's address.
  comm_.listener_ = listeners_[route] ? std::move(listeners_[route]) : std::move(listeners_[1]);
  listeners_ = {};
  if (debug::enabled(debug::Level::Info, debug::Subsys::Net))
    debug::info(debug::Subsys::Net, comm_.rank_,
                "interface {} ({}): {}; listening on {}:{}; {} ranks on {} host(s), {} of them on this machine's {} "
                "core(s){}",
                comm_.interface_.name, comm_.interface_.address, comm_.interface_.reason, comm_.interface_.address,
                cards[comm_.rank_].port, comm_.size_, comm_.distinct_hosts().size(), neighbours, cores,
                comm_.ranks_exceed_cores() ? ", so a waiting rank yields its core while it spins" : "");
}

// "rank 1 on h2 (eth0 10.0.0.2)": a rank and where it talks, for failures that concern a pair.
std::string MeshBuilder::endpoint(int rank) const {
  const PeerCard& card = comm_.cards_[rank];
  return fmt::format("rank {} on {} ({} {})", rank, card.host.hostname, card.chosen.name, card.chosen.address);
}

void MeshBuilder::bind_source(int fd, int peer) {
  // Let connect() pick the port (bind would otherwise reserve one without knowing the peer).
  const int on = 1;
  ::setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &on, sizeof on);
  sockaddr_in source{};
  source.sin_family = AF_INET;
  ::inet_pton(AF_INET, comm_.interface_.address.c_str(), &source.sin_addr);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&source), sizeof source) != 0)
    fail_call(TransportErrorKind::System, peer, fmt::format("binding a connection to {} to this rank's {} ({})",
                                                            endpoint(peer), comm_.interface_.name,
                                                            comm_.interface_.address),
              "bind", errno);
}

Fd MeshBuilder::connect_to(int peer) {
  // Refused and unreachable are retried with backoff until the deadline: a peer that is slow to
  // start is normal; an address never reachable from ours is an error naming both ends.
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(comm_.cards_[peer].port);
  ::inet_pton(AF_INET, comm_.cards_[peer].chosen.address.c_str(), &address.sin_addr);
  auto backoff = std::chrono::milliseconds(10);
  for (;;) {
    Fd fd = make_tcp_socket(comm_.options_.socket_buffer_bytes);
    bind_source(fd.get(), peer);
    int rc = ::connect(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof address);
    int err = rc == 0 ? 0 : errno;
    if (err == EINPROGRESS) {
      pollfd p{fd.get(), POLLOUT, 0};
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - Clock::now()).count();
      if (::poll(&p, 1, static_cast<int>(std::max<long>(left, 0))) == 1) {
        socklen_t length = sizeof err;
        ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &length);
      } else {
        err = ETIMEDOUT;
      }
    }
    if (err == 0) return fd;
    if (Clock::now() + backoff >= deadline_) {
      const std::string where = fmt::format("{}:{}", comm_.cards_[peer].chosen.address, comm_.cards_[peer].port);
      fail_call(TransportErrorKind::Timeout, peer,
                fmt::format("{} could not reach {} at {} within {:g} s", endpoint(comm_.rank_), endpoint(peer), where,
                            comm_.options_.connect_timeout.count() / 1000.0),
                "connect", err, where,
                fmt::format("is rank {} running, and is {} reachable from {}? (--iface or RINGBENCH_SOCKET_IFNAME "
                            "choose the interface)",
                            peer, comm_.cards_[peer].chosen.address, comm_.interface_.address));
    }
    std::this_thread::sleep_for(backoff);
    backoff = std::min(backoff * 2, std::chrono::milliseconds(500));
  }
}

void MeshBuilder::start_outgoing() {
  // Connect to every lower rank, each of the pair's streams, and send the Hello at once.
  for (int peer = 0; peer < comm_.rank_; ++peer)
    for (int stream = 0; stream < comm_.options_.streams; ++stream) start_stream(peer, stream);
}

void MeshBuilder::start_stream(int peer, int stream) {
  phase(fmt::format("the connection to rank {} ({}:{})", peer, comm_.cards_[peer].chosen.address,
                    comm_.cards_[peer].port));
  Fd fd = connect_to(peer);
  set_nodelay(fd.get());
  const std::string where = fmt::format("{}:{}", comm_.cards_[peer].chosen.address, comm_.cards_[peer].port);
  Pending p{std::move(fd), peer, where, stream, {}, 0, deadline_};
  wire::Hello hello;
  hello.role = wire::HelloRole::Request;
  hello.secret = secret_;
  hello.from_rank = static_cast<uint32_t>(comm_.rank_);
  hello.to_rank = static_cast<uint32_t>(peer);
  hello.world_size = static_cast<uint32_t>(comm_.size_);
  hello.stream = static_cast<uint16_t>(stream);
  hello.streams = static_cast<uint16_t>(comm_.options_.streams);
  auto bytes = wire::encode(hello);
  // 32 bytes into a fresh socket's empty buffer: one send takes all of it.
  if (::send(p.fd.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(bytes.size())) {
    const int send_error = errno;
    fail_call(TransportErrorKind::Handshake, peer,
              fmt::format("could not send the handshake to {}", describe_peer(peer, where)), "send", send_error,
              where);
  }
  pending_.push_back(std::move(p));
}

void MeshBuilder::fail_missing_handshakes() {
  std::string missing;
  int last_missing = -1;
  for (int r = 0; r < comm_.size_; ++r) {
    if (r == comm_.rank_ || comm_.connections_[r]) continue;
    missing += (missing.empty() ? "" : "; ") + endpoint(r);
    last_missing = r;
  }
  const int peer = missing.find(';') == std::string::npos ? last_missing : -1;  // one peer: name it as the peer
  ErrorFacts facts(TransportErrorKind::Timeout, comm_.rank_, peer,
                   fmt::format("no handshake between {}, listening on port {}, and {} within {:g} s of start",
                               endpoint(comm_.rank_), comm_.cards_[comm_.rank_].port, missing,
                               comm_.options_.connect_timeout.count() / 1000.0));
  facts.hint = fmt::format("are they running, and is {} reachable from their addresses?", comm_.interface_.address);
  fail(std::move(facts));
}

std::string MeshBuilder::missing_handshakes() const {
  std::string missing;
  for (int r = 0; r < comm_.size_; ++r) {
    if (r == comm_.rank_ || comm_.connections_[r]) continue;
    const std::string where = fmt::format("{}:{}", comm_.cards_[r].chosen.address, comm_.cards_[r].port);
    missing += fmt::format("{}{} rank {} ({})", missing.empty() ? "" : "; ",
                           r < comm_.rank_ ? "the handshake reply from" : "the connection from", r, where);
  }
  return missing;
}

void MeshBuilder::complete_handshakes() {
  // A silent stranger is dropped after this long; a real peer answers within milliseconds.
  const auto stranger_grace = std::min<Clock::duration>(comm_.options_.connect_timeout, std::chrono::seconds(10));
  std::vector<pollfd> fds;
  int announced = -1;
  while (established_ < comm_.size_ - 1) {
    if (announced != established_) phase(missing_handshakes());
    announced = established_;
    auto now = Clock::now();
    if (now >= deadline_) fail_missing_handshakes();
    // Drop strangers that stayed silent too long.
    std::erase_if(pending_, [&](Pending& p) {
      if (p.peer_rank >= 0 || now < p.deadline) return false;
      comm_.log(fmt::format("closed a connection from {}: no handshake within {} ms", p.address,
                            std::chrono::duration_cast<std::chrono::milliseconds>(stranger_grace).count()));
      return true;
    });
    fds.clear();
    fds.push_back({comm_.listener_.get(), POLLIN, 0});
    for (auto& p : pending_) fds.push_back({p.fd.get(), POLLIN, 0});
    auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - now).count();
    ::poll(fds.data(), fds.size(), static_cast<int>(std::clamp<long>(wait, 1, 200)));

    if (fds[0].revents & POLLIN) {
      for (;;) {
        int fd = ::accept4(comm_.listener_.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) break;
        set_nodelay(fd);
        pending_.push_back(Pending{Fd(fd), -1, peer_address_of(fd), 0, {}, 0, Clock::now() + stranger_grace});
      }
    }
    // Walk by index: on_* may append nothing but may close entries, which are erased below.
    for (size_t i = 0; i < pending_.size(); ++i) {
      Pending& p = pending_[i];
      ssize_t n = ::recv(p.fd.get(), p.hello.data() + p.received, p.hello.size() - p.received, MSG_DONTWAIT);
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
        if (p.peer_rank >= 0)
          fail_peer(TransportErrorKind::Handshake, p,
                    fmt::format("{} closed the connection during the handshake",
                                describe_peer(p.peer_rank, p.address)));
        comm_.log(fmt::format("closed a connection from {}: it hung up before completing a handshake", p.address));
        p.fd.reset();
        continue;
      }
      if (n < 0) continue;
      p.received += static_cast<size_t>(n);
      if (p.received < p.hello.size()) continue;
      if (p.peer_rank < 0) on_incoming_hello(p);
      else on_outgoing_reply(p);
    }
    std::erase_if(pending_, [](const Pending& p) { return !p.fd; });
  }
}

void MeshBuilder::on_incoming_hello(Pending& p) {
  auto hello = wire::decode_hello(p.hello.data());
  auto problem = wire::check_hello(hello, wire::HelloRole::Request, secret_, comm_.rank_, comm_.size_);
  if (!problem && static_cast<int>(hello.from_rank) < comm_.rank_)
    problem = fmt::format("rank {} should be accepting from this rank, not connecting", hello.from_rank);
  if (!problem && comm_.connections_[hello.from_rank])
    problem = fmt::format("rank {} is already connected", hello.from_rank);
  if (!problem && hello.streams == comm_.options_.streams && streams_[hello.from_rank][hello.stream])
    problem = fmt::format("rank {} stream {} is already connected", hello.from_rank, hello.stream);
  if (problem) {
    comm_.log(fmt::format("rejected a connection from {}: {}", p.address, *problem));
    p.fd.reset();
    return;
  }
  wire::Hello reply;
  reply.role = wire::HelloRole::Reply;
  reply.secret = secret_;
  reply.from_rank = static_cast<uint32_t>(comm_.rank_);
  reply.to_rank = hello.from_rank;
  reply.world_size = static_cast<uint32_t>(comm_.size_);
  reply.stream = hello.stream < comm_.options_.streams ? hello.stream : 0;
  reply.streams = static_cast<uint16_t>(comm_.options_.streams);
  auto bytes = wire::encode(reply);
  if (::send(p.fd.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(bytes.size())) {
    comm_.log(fmt::format("dropped rank {} ({}) during the handshake: {}", hello.from_rank, p.address,
                          system_error_text("send", errno)));
    p.fd.reset();
    return;
  }
  // Answered first, so the peer, too, learns why and says so.
  check_streams(p, static_cast<int>(hello.from_rank), hello.streams);
  p.stream = hello.stream;
  add_connection(p, static_cast<int>(hello.from_rank));
}

void MeshBuilder::check_streams(const Pending& p, int peer_rank, int theirs) {
  if (theirs == comm_.options_.streams) return;
  ErrorFacts facts(TransportErrorKind::Handshake, comm_.rank_, peer_rank,
                   fmt::format("{} runs with --streams {}, this rank with --streams {}", describe_peer(peer_rank, p.address),
                               theirs, comm_.options_.streams));
  facts.peer_address = p.address;
  facts.hint = "every rank must be started with the same --streams";
  fail(std::move(facts));
}

void MeshBuilder::on_outgoing_reply(Pending& p) {
  auto reply = wire::decode_hello(p.hello.data());
  auto problem = wire::check_hello(reply, wire::HelloRole::Reply, secret_, comm_.rank_, comm_.size_);
  if (!problem && static_cast<int>(reply.from_rank) != p.peer_rank)
    problem = fmt::format("answered as rank {}", reply.from_rank);
  if (problem)
    fail_peer(TransportErrorKind::Handshake, p,
              fmt::format("the process at {} is not rank {} of this job: {}", p.address, p.peer_rank, *problem));
  check_streams(p, p.peer_rank, reply.streams);
  add_connection(p, p.peer_rank);
}

void MeshBuilder::add_connection(Pending& p, int peer_rank) {
  const bool opened_by_us = p.peer_rank >= 0;  // outgoing: we knew whom we were calling
  auto& streams = streams_[peer_rank];
  streams[p.stream] = std::move(p.fd);
  if (std::any_of(streams.begin(), streams.end(), [](const Fd& fd) { return !fd; })) return;
  auto connection = std::make_unique<Connection>(std::move(streams[0]), comm_.rank_, peer_rank, p.address, opened_by_us);
  for (size_t k = 1; k < streams.size(); ++k) connection->add_stream(std::move(streams[k]));
  connection->set_helpers(comm_.stream_helpers_.get());
  // Both handshake messages crossed each stream: they are protocol overhead.
  connection->record_sent(wire::kHelloBytes * streams.size(), 0);
  connection->record_received(wire::kHelloBytes * streams.size(), 0);
  log_connection(*connection, opened_by_us);
  comm_.connections_[peer_rank] = std::move(connection);
  ++established_;
}

void MeshBuilder::log_connection(const Connection& connection, bool opened_by_us) const {
  if (!debug::enabled(debug::Level::Info, debug::Subsys::Net)) return;
  const PeerCard& card = comm_.cards_[connection.peer_rank()];
  debug::info(debug::Subsys::Net, comm_.rank_, "connected to rank {} on {} at {} ({}, listening on {}:{}): {}",
              connection.peer_rank(), card.host.hostname, connection.peer_address(),
              opened_by_us ? "this rank connected" : "it connected", card.chosen.address, card.port,
              describe_socket_options(connection.fd(), comm_.options_.socket_buffer_bytes));
}

}  // namespace ringbench
