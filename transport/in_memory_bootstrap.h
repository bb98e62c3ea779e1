#pragma once
// Bootstrap for ranks that are threads of one process (tests, the fault-test launcher). One
// InMemoryExchange is shared by the N threads; each thread makes its own InMemoryBootstrap.

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "bootstrap.h"

namespace ringbench {

class InMemoryExchange {
 public:
  explicit InMemoryExchange(int size) : blobs_(size), size_(size) {}
  // Blocks until all `size` ranks have contributed.
  std::vector<std::string> allgather(int rank, const std::string& mine);

 private:
  std::mutex mutex_;
  std::condition_variable all_arrived_;
  std::vector<std::string> blobs_;
  int size_;
  int arrived_ = 0;
};

class InMemoryBootstrap : public Bootstrap {
 public:
  InMemoryBootstrap(std::shared_ptr<InMemoryExchange> exchange, int rank, int size)
      : exchange_(std::move(exchange)), rank_(rank), size_(size) {}
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::vector<std::string> allgather(const std::string& mine) override {
    return exchange_->allgather(rank_, mine);
  }

 private:
  std::shared_ptr<InMemoryExchange> exchange_;
  int rank_;
  int size_;
};

}  // namespace ringbench
