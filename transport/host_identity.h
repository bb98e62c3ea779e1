#pragma once
// Which ranks can reach each other over loopback. Two processes share loopback exactly when they
// run under the same kernel (boot id) in the same network namespace (inode of /proc/self/ns/net);
// hostnames are not enough (containers and namespace "hosts" share them, clusters reuse them).

#include <cstdint>
#include <string>

namespace ringbench {

struct HostIdentity {
  std::string boot_id;     // /proc/sys/kernel/random/boot_id
  uint64_t netns_inode = 0;
  std::string hostname;    // for display only

  // Equal keys mean "same host" for every decision the transport makes.
  std::string key() const { return boot_id + "/" + std::to_string(netns_inode); }
  bool same_host(const HostIdentity& other) const { return key() == other.key(); }
  // One kernel: the same CPUs and scheduler, whatever network namespace each rank is in. Ranks in
  // containers on one machine, or on namespace hosts emulating a cluster, share cores though not
  // loopback. An unreadable boot id falls back to same_host.
  bool same_kernel(const HostIdentity& other) const {
    return same_host(other) || (!boot_id.empty() && boot_id == other.boot_id);
  }

  static HostIdentity local();
};

}  // namespace ringbench
