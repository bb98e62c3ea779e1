// Strangers that connect while the job is setting up are closed and logged, and the job still
// connects and computes correctly.

#include <gtest/gtest.h>

#include <future>

#include "stranger_socket.h"
#include "thread_ranks.h"
#include "transport/collectives/ring_allreduce.h"
#include "transport/peer_card.h"
#include "transport/wire.h"

namespace ringbench {
namespace {

// Holds rank 1 back after the address exchange until the test has played the stranger, so that
// rank 0 is certainly in its accept loop when the stranger arrives.
class HeldBootstrap : public Bootstrap {
 public:
  HeldBootstrap(std::shared_ptr<InMemoryExchange> exchange, int rank, int size, std::promise<std::vector<std::string>>* seen,
                std::shared_future<void> release)
      : inner_(std::move(exchange), rank, size), seen_(seen), release_(std::move(release)) {}
  int rank() const override { return inner_.rank(); }
  int size() const override { return inner_.size(); }
  std::vector<std::string> allgather(const std::string& mine) override {
    auto all = inner_.allgather(mine);
    if (seen_) {
      seen_->set_value(all);
      release_.wait();
    }
    return all;
  }

 private:
  InMemoryBootstrap inner_;
  std::promise<std::vector<std::string>>* seen_;
  std::shared_future<void> release_;
};

// Whether rank 0 closed on a stranger that sent `bytes`, within 5 s.
bool closed_after_sending(uint16_t port, const std::vector<std::byte>& bytes) {
  return testing::closed_within(port, bytes, std::chrono::seconds(5));
}

TEST(Handshake, StrangersAreClosedAndLoggedAndTheJobGoesOn) {
  auto exchange = std::make_shared<InMemoryExchange>(2);
  std::promise<std::vector<std::string>> seen;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::mutex log_mutex;
  std::vector<std::string> rank0_log;
  std::vector<float> results[2];

  auto rank_main = [&](int rank) {
    TransportOptions options = testing::quiet_options();
    if (rank == 0)
      options.log = [&](std::string_view line) {
        std::lock_guard lock(log_mutex);
        rank0_log.emplace_back(line);
      };
    HeldBootstrap bootstrap(exchange, rank, 2, rank == 1 ? &seen : nullptr, released);
    auto comm = Communicator::connect(bootstrap, options);
    results[rank] = {1.0f + rank, 2.0f, 3.0f};
    CollectiveCall call{DataType::Float32, ReduceOp::Sum, std::as_writable_bytes(std::span(results[rank])), 3, 0};
    ring_allreduce().run(*comm, call);
  };
  std::thread rank0(rank_main, 0), rank1(rank_main, 1);

  auto cards = seen.get_future().get();
  uint16_t port = decode_card(cards[0], 0).port;
  uint64_t secret = decode_card(cards[0], 0).secret_proposal;

  wire::Hello wrong_secret;
  wrong_secret.secret = secret + 1;
  wrong_secret.from_rank = 1;
  wrong_secret.to_rank = 0;
  wrong_secret.world_size = 2;
  auto encoded = wire::encode(wrong_secret);
  EXPECT_TRUE(closed_after_sending(port, {encoded.begin(), encoded.end()}));

  std::vector<std::byte> garbage(32, std::byte{'x'});
  EXPECT_TRUE(closed_after_sending(port, garbage));

  wire::Hello wrong_version = wrong_secret;
  wrong_version.secret = secret;
  wrong_version.version = 42;
  encoded = wire::encode(wrong_version);
  EXPECT_TRUE(closed_after_sending(port, {encoded.begin(), encoded.end()}));

  release.set_value();
  rank0.join();
  rank1.join();
  EXPECT_EQ(results[0], (std::vector<float>{3.0f, 4.0f, 6.0f}));
  EXPECT_EQ(results[1], results[0]);

  std::string all;
  for (const auto& line : rank0_log) all += line + "\n";
  EXPECT_NE(all.find("wrong job secret"), std::string::npos) << all;
  EXPECT_NE(all.find("bad magic"), std::string::npos) << all;
  EXPECT_NE(all.find("protocol version 42"), std::string::npos) << all;
}

}  // namespace
}  // namespace ringbench
