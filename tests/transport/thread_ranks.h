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

// Each rank's options from options_of(rank): e.g. a host identity per rank (host_override), so
// host-aware algorithms see the placement the test chooses.
inline void run_ranks(int n, const std::function<TransportOptions(int rank)>& options_of,
                      const std::function<void(Communicator&)>& body) {
  auto exchange = std::make_shared<InMemoryExchange>(n);
  std::mutex mutex;
  std::exception_ptr first_error;
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r) {
    threads.emplace_back([&, r] {
      try {
        InMemoryBootstrap bootstrap(exchange, r, n);
        auto comm = Communicator::connect(bootstrap, options_of(r));
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

inline void run_ranks(int n, const TransportOptions& options, const std::function<void(Communicator&)>& body) {
  run_ranks(n, [&](int) { return options; }, body);
}

// Options that make rank r appear on host hosts[r] ("test-host-<index>"). Loopback is forced,
// since the automatic choice would prefer a non-loopback interface for a multi-host job.
inline std::function<TransportOptions(int)> on_hosts(std::vector<int> hosts, size_t socket_buffer_bytes = 0) {
  return [hosts = std::move(hosts), socket_buffer_bytes](int rank) {
    TransportOptions options = quiet_options(socket_buffer_bytes);
    HostIdentity id;
    id.boot_id = "test-host-" + std::to_string(hosts.at(static_cast<size_t>(rank)));
    id.hostname = id.boot_id;
    options.host_override = id;
    options.iface_spec = "lo";
    return options;
  };
}

}  // namespace ringbench::testing
