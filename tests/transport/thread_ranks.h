#pragma once
// N ranks as threads of this process, connected over real loopback sockets through the
// in-memory bootstrap. Each thread runs `body(comm)`; the first exception of any rank is
// rethrown in the caller after every thread has finished.

#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "transport/communicator.h"
#include "transport/in_memory_bootstrap.h"

namespace ringbench::testing {

inline TransportOptions quiet_options(size_t socket_buffer_bytes = 0) {
  TransportOptions options;
  options.socket_buffer_bytes = socket_buffer_bytes;
  options.timeout = std::chrono::seconds(20);  // a broken test fails instead of hanging CI
  options.log = [](std::string_view) {};
  return options;
}

inline void run_ranks(int n, const TransportOptions& options, const std::function<void(Communicator&)>& body) {
  auto exchange = std::make_shared<InMemoryExchange>(n);
  std::mutex mutex;
  std::exception_ptr first_error;
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r) {
    threads.emplace_back([&, r] {
      try {
        InMemoryBootstrap bootstrap(exchange, r, n);
        auto comm = Communicator::connect(bootstrap, options);
        body(*comm);
      } catch (...) {
        std::lock_guard lock(mutex);
        if (!first_error) first_error = std::current_exception();
      }
    });
  }
  for (auto& t : threads) t.join();
  if (first_error) std::rethrow_exception(first_error);
}

}  // namespace ringbench::testing
