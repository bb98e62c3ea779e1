#pragma once
// Network interfaces and the choice of the one the job's connections use.
//
// Every rank listens on all of its IPv4 addresses and publishes them all through the bootstrap;
// the choice is made afterwards, when each rank knows which peers share its host, so one rule
// serves both a single box and a cluster:
//   - an explicit prefix (--iface eth, --iface lo) picks the first interface whose name starts
//     with it, on every rank;
//   - otherwise, when every rank is on one host, loopback;
//   - otherwise the first up, non-loopback interface (sorted by name, docker/virbr bridges last).

#include <string>
#include <vector>

namespace ringbench {

struct InterfaceAddress {
  std::string name;     // "lo", "eth0"
  std::string address;  // dotted IPv4
  bool loopback = false;
};

// Up IPv4 interfaces of this process's network namespace, in preference order (see above).
std::vector<InterfaceAddress> local_interfaces();

// The interface of `candidates` to use. `prefix` empty means automatic. Throws TransportError
// (Config) when nothing matches, naming the prefix and the interfaces there are.
InterfaceAddress choose_interface(const std::vector<InterfaceAddress>& candidates,
                                  const std::string& prefix, bool all_ranks_on_one_host);

}  // namespace ringbench
