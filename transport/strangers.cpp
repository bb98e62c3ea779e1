#include "strangers.h"

#include <sys/socket.h>

#include <cerrno>

#include <fmt/format.h>

#include "recovery_wire.h"
#include "socket_options.h"

namespace ringbench {

StrangerDoor::StrangerDoor(int listener, uint64_t secret, int rank, int size, std::chrono::milliseconds grace,
                           std::function<void(std::string_view)> log)
    : listener_(listener), secret_(secret), rank_(rank), size_(size), grace_(grace), log_(std::move(log)) {}

void StrangerDoor::add_poll_fds(std::vector<pollfd>& fds) const {
  if (listener_ < 0) return;
  fds.push_back({listener_, POLLIN, 0});
  for (const auto& s : strangers_) fds.push_back({s.fd.get(), POLLIN, 0});
}

void StrangerDoor::reject(Stranger& s, const std::string& why) {
  log_(fmt::format("rejected a connection from {} during the run: {}", s.address, why));
  s.fd.reset();
  ++rejected_;
}

void StrangerDoor::service() {
  if (listener_ < 0) return;
  const auto now = Clock::now();
  for (;;) {
    int fd = ::accept4(listener_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) break;
    Stranger s{Fd(fd), peer_address_of(fd), {}, 0, now + grace_};
    if (strangers_.size() >= kMaxStrangers) {
      reject(s, fmt::format("{} strangers are already being read (a flood?)", kMaxStrangers));
      continue;
    }
    strangers_.push_back(std::move(s));
  }
  for (auto& s : strangers_) {
    ssize_t n = ::recv(s.fd.get(), s.hello.data() + s.received, s.hello.size() - s.received, MSG_DONTWAIT);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
      reject(s, fmt::format("it hung up after {} bytes, before a whole handshake", s.received));
      continue;
    }
    if (n > 0) s.received += static_cast<size_t>(n);
    if (s.received == s.hello.size() && recovery::is_recovery_hello(s.hello.data())) {
      on_recovery_hello(s);
      continue;
    }
    if (s.received == s.hello.size()) {
      auto hello = wire::decode_hello(s.hello.data());
      auto problem = wire::check_hello(hello, wire::HelloRole::Request, secret_, static_cast<uint32_t>(rank_),
                                       static_cast<uint32_t>(size_));
      // Every rank of the job connected during set-up: a valid handshake now is a duplicate.
      reject(s, problem ? *problem : fmt::format("rank {} is already connected", hello.from_rank));
      continue;
    }
    if (now >= s.deadline)
      reject(s, fmt::format("no handshake within {} ms ({} bytes received)", grace_.count(), s.received));
  }
  std::erase_if(strangers_, [](const Stranger& s) { return !s.fd; });
}

std::vector<StrangerDoor::Knock> StrangerDoor::take_knocks() {
  std::vector<Knock> taken = std::move(knocks_);
  knocks_.clear();
  for (auto& s : strangers_) taken.push_back({std::move(s.fd), s.address, s.hello, s.received});
  strangers_.clear();
  return taken;
}

void StrangerDoor::on_recovery_hello(Stranger& s) {
  const auto hello = recovery::decode_hello(s.hello.data());
  if (!hello || hello->role != recovery::Role::Request || hello->secret != secret_) {
    reject(s, "a recovery hello that is not this job's");
    return;
  }
  if (hello->to_epoch > epoch_) {
    knocks_.push_back({std::move(s.fd), s.address, s.hello, s.received});
    return;
  }
  recovery::Hello answer;
  answer.role = recovery::Role::Fenced;
  answer.secret = secret_;
  answer.from_rank = static_cast<uint32_t>(rank_);
  answer.to_rank = hello->from_rank;
  answer.to_epoch = epoch_;
  const auto bytes = recovery::encode(answer);
  (void)::send(s.fd.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  reject(s, fmt::format("rank {} of epoch {}, declared failed there, asked to go on into epoch {}; this job is at "
                        "epoch {} without it: fenced",
                        hello->from_rank, hello->to_epoch - 1, hello->to_epoch, epoch_));
}

}  // namespace ringbench
