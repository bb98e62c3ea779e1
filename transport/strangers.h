#pragma once
// After set-up the listener stays open (a port scanner, a stale rank of another job or a hostile
// peer may still connect). StrangerDoor accepts such connections while the progress loop waits,
// reads at most one handshake from each, and closes every one of them within a bounded time with a
// log line saying why: garbage, wrong magic, version or secret, a rank out of range or already
// connected, a hang-up, or silence. A flood is bounded too: beyond kMaxStrangers open at once,
// new ones are closed on arrival. The job's own connections are never touched.
//
// Owned by the Communicator; used from its thread only, through the progress loop.

#include <poll.h>

#include <array>
#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "fd.h"
#include "wire.h"

namespace ringbench {

class StrangerDoor {
 public:
  static constexpr size_t kMaxStrangers = 32;
  using Clock = std::chrono::steady_clock;

  StrangerDoor(int listener, uint64_t secret, int rank, int size, std::chrono::milliseconds grace,
               std::function<void(std::string_view)> log);

  // pollfds for the listener and every stranger being read (appended to `fds`).
  void add_poll_fds(std::vector<pollfd>& fds) const;
  // Accepts whoever is waiting, reads what strangers sent, closes the ones that are done or late.
  void service();
  size_t rejected() const { return rejected_; }
  // Strangers are being read (their deadlines need service() even when nothing arrives).
  bool busy() const { return !strangers_.empty(); }

  // Survivors of a failure knocking with a recovery hello (recovery_wire.h) while this rank is
  // still in a collective: one for the epoch after `epoch` is kept for the agreement
  // (failure_agreement.h) to take; one for an epoch this rank has already reached comes from a
  // rank the others declared failed, and is answered Fenced and closed.
  struct Knock {
    Fd fd;
    std::string address;
    std::array<std::byte, wire::kHelloBytes> hello{};
    size_t received = 0;  // of the hello: a knock still being read has less
  };
  void set_epoch(uint32_t epoch) { epoch_ = epoch; }
  // The kept knocks, and every connection whose hello is still being read (a survivor's knock
  // may be among them: it connects, then writes).
  std::vector<Knock> take_knocks();

 private:
  struct Stranger {
    Fd fd;
    std::string address;
    std::array<std::byte, wire::kHelloBytes> hello{};
    size_t received = 0;
    Clock::time_point deadline;
  };
  void reject(Stranger& s, const std::string& why);
  // A whole recovery hello arrived: keep it, or fence its sender.
  void on_recovery_hello(Stranger& s);

  int listener_;
  uint64_t secret_;
  int rank_, size_;
  std::chrono::milliseconds grace_;
  std::function<void(std::string_view)> log_;
  std::vector<Stranger> strangers_;
  size_t rejected_ = 0;
  uint32_t epoch_ = 0;
  std::vector<Knock> knocks_;
};

}  // namespace ringbench
