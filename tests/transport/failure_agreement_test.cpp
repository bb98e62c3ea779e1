// The survivors' agreement (transport/failure_agreement.h), ranks as threads over real loopback
// sockets: a failed rank that is gone (its listener closed: connections refused) plus a further
// failure during the agreement (a rank whose listener still accepts but that never answers, as a
// frozen process), and a rank the others hold failed that tries to take part (it must be fenced).

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <thread>

#include "transport/failure_agreement.h"

namespace ringbench {
namespace {

using namespace std::chrono_literals;

struct Listener {
  Fd fd;
  uint16_t port = 0;
};

Listener listen_on_loopback() {
  Listener l{Fd(::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0))};
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (::bind(l.fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || ::listen(l.fd.get(), 16) != 0 ||
      ::getsockname(l.fd.get(), reinterpret_cast<sockaddr*>(&address), &length) != 0)
    throw std::runtime_error("cannot listen on loopback");
  l.port = ntohs(address.sin_port);
  return l;
}

struct Outcome {
  std::optional<Agreement> agreed;
  bool fenced = false;
  std::string error;
};

// Runs the agreement on each rank in `running` (one thread each), every rank starting from
// `suspects[rank]`; the other ranks' listeners stay as `listeners` leaves them.
// `late`: ranks that start 200 ms after the others.
std::vector<Outcome> agree(std::vector<Listener>& listeners, const std::vector<int>& running,
                           const std::vector<std::vector<int>>& suspects, const std::vector<int>& late = {}) {
  const int size = static_cast<int>(listeners.size());
  std::vector<Outcome> outcomes(static_cast<size_t>(size));
  std::vector<std::thread> threads;
  for (int rank : running) {
    threads.emplace_back([&, rank] {
      if (std::find(late.begin(), late.end(), rank) != late.end()) std::this_thread::sleep_for(200ms);
      AgreementInput input;
      input.rank = rank;
      input.size = size;
      input.secret = 42;
      for (const auto& l : listeners) {
        input.addresses.push_back("127.0.0.1");
        input.ports.push_back(l.port);
      }
      input.listener = listeners[static_cast<size_t>(rank)].fd.get();
      input.suspects = suspects[static_cast<size_t>(rank)];
      input.round_limit = 500ms;
      try {
        outcomes[static_cast<size_t>(rank)].agreed = agree_on_failures(std::move(input));
      } catch (const Fenced& e) {
        outcomes[static_cast<size_t>(rank)].fenced = true;
        outcomes[static_cast<size_t>(rank)].error = e.what();
      } catch (const TransportError& e) {
        outcomes[static_cast<size_t>(rank)].error = e.what();
      }
    });
  }
  for (auto& t : threads) t.join();
  return outcomes;
}

TEST(FailureAgreement, SurvivorsAgreeDespiteAFurtherFailureDuringTheAgreement) {
  std::vector<Listener> listeners;
  for (int r = 0; r < 5; ++r) listeners.push_back(listen_on_loopback());
  listeners[1].fd.reset();  // rank 1 died: its port refuses
  // Rank 4 froze: its listener still completes connections in the kernel, but nobody answers.
  const auto outcomes = agree(listeners, {0, 2, 3}, {{1}, {}, {1}, {1}, {}});
  for (int r : {0, 2, 3}) {
    const Outcome& o = outcomes[static_cast<size_t>(r)];
    ASSERT_TRUE(o.agreed) << "rank " << r << ": " << o.error;
    EXPECT_EQ(o.agreed->failed, (std::vector<int>{1, 4})) << "rank " << r;
    EXPECT_EQ(o.agreed->members, (std::vector<int>{0, 2, 3})) << "rank " << r;
    EXPECT_EQ(o.agreed->rounds, 2) << "rank " << r << ": round 1 finds rank 4 silent, round 2 is stable";
    ASSERT_EQ(o.agreed->links.size(), 2u);
  }
  // Every byte the agreement moved is counted at both ends alike (the kernel check relies on it).
  for (int a : {0, 2, 3})
    for (const AgreedLink& link : outcomes[static_cast<size_t>(a)].agreed->links)
      for (const AgreedLink& back : outcomes[static_cast<size_t>(link.peer)].agreed->links)
        if (back.peer == a) {
          EXPECT_EQ(link.sent, back.received) << a << " -> " << link.peer;
          EXPECT_GT(link.sent, 0u);
        }
}

TEST(FailureAgreement, ARankTheOthersHoldFailedIsFenced) {
  std::vector<Listener> listeners;
  for (int r = 0; r < 3; ++r) listeners.push_back(listen_on_loopback());
  // Ranks 0 and 1 declared rank 2 failed; rank 2 (woken up) blames rank 0 and knocks on rank 1,
  // before they start (else they may agree and leave before reading its knock: then, in a real
  // job, the stranger door of their new epoch answers it Fenced; strangers.h).
  const auto outcomes = agree(listeners, {0, 1, 2}, {{2}, {2}, {0}}, {0, 1});
  EXPECT_TRUE(outcomes[2].fenced) << outcomes[2].error;
  EXPECT_NE(outcomes[2].error.find("fenced"), std::string::npos) << outcomes[2].error;
  for (int r : {0, 1}) {
    ASSERT_TRUE(outcomes[static_cast<size_t>(r)].agreed) << outcomes[static_cast<size_t>(r)].error;
    EXPECT_EQ(outcomes[static_cast<size_t>(r)].agreed->failed, std::vector<int>{2});
  }
}

TEST(FailureAgreement, ALoneSurvivorStops) {
  std::vector<Listener> listeners;
  for (int r = 0; r < 2; ++r) listeners.push_back(listen_on_loopback());
  listeners[1].fd.reset();
  const auto outcomes = agree(listeners, {0}, {{1}, {}});
  EXPECT_FALSE(outcomes[0].agreed);
  EXPECT_FALSE(outcomes[0].fenced);
  EXPECT_NE(outcomes[0].error.find("no other rank answered"), std::string::npos) << outcomes[0].error;
}

}  // namespace
}  // namespace ringbench
