#pragma once
// Network interfaces and the choice of the one the job's connections use, as NCCL chooses.
//
// Automatic order (the first class with an up interface wins; within a class, the kernel's
// order, as `ip -4 addr` lists them):
//   1. loopback, but only when every rank is on one host;
//   2. IPoIB (names starting with "ib"): on a cluster node the management Ethernet (eno*, eth*)
//      would otherwise sort first, and NCCL prefers IB for the same reason;
//   3. any other non-loopback interface that is not virtual (see kVirtualPrefixes);
//   4. virtual interfaces (container bridges, veths): they rarely connect hosts;
//   5. loopback as a last resort when ranks span hosts: it reaches this host only, so a peer on
//      another host will not connect, and the connect failure names both ends.
// An interface filter (--iface or RINGBENCH_SOCKET_IFNAME, NCCL_SOCKET_IFNAME's syntax) keeps only
// the interfaces it admits; the order above then picks among them.
//
// A rank does not know whether every rank shares its host until the bootstrap, so it chooses
// both ways before it and listens on both (mesh.cpp); the one not needed is closed right after.

#include <string>
#include <string_view>
#include <vector>

namespace ringbench {

struct InterfaceAddress {
  std::string name;     // "lo", "eth0"
  std::string address;  // dotted IPv4
  bool loopback = false;
};

// The chosen interface and why, in words: "IPoIB preferred", "first non-virtual interface",
// "all ranks on one host, so loopback", "--iface =eth0", "RINGBENCH_SOCKET_IFNAME=eth: first
// non-virtual interface" (a filter that left more than one interface, then the order above).
struct InterfaceChoice : InterfaceAddress {
  std::string reason;
};

// Name prefixes of virtual interfaces: container runtimes' bridges and veths, libvirt's bridge,
// CNI and overlay network plugins.
inline constexpr std::string_view kVirtualPrefixes[] = {"docker", "virbr", "veth", "cni",  "br-",   "flannel",
                                                        "cali",   "vxlan", "weave", "lxcbr", "podman"};
// The environment variable the harness reads an InterfaceFilter from when --iface is not given.
inline constexpr const char* kSocketIfnameVariable = "RINGBENCH_SOCKET_IFNAME";
// Name prefix of IPoIB interfaces (ib0, ibp65s0, ibs1).
inline constexpr std::string_view kInfinibandPrefix = "ib";

// NCCL_SOCKET_IFNAME's syntax: a comma-separated list of name prefixes; a leading '^' excludes
// what the list matches instead of keeping it; a leading '=' (after the '^', if any) makes every
// entry an exact name. "eth", "=eth0,eth1", "^docker,lo", "^=docker0". Both marks apply to the
// whole list, as in NCCL.
struct InterfaceFilter {
  std::string text;    // as given; empty: no filter (the automatic choice)
  std::string origin;  // "--iface" or "RINGBENCH_SOCKET_IFNAME", for messages and reasons
  std::vector<std::string> names;
  bool exclude = false;
  bool exact = false;

  bool empty() const { return text.empty(); }
  bool admits(const std::string& interface_name) const;
  // "--iface =eth0", "RINGBENCH_SOCKET_IFNAME=^docker"
  std::string describe() const;
};

// Parses `text` (empty: no filter). Throws TransportError (Config) with one line naming origin,
// the text and what is wrong: an empty entry, '^' or '=' inside the list, a space, a name longer
// than an interface name can be.
InterfaceFilter parse_interface_filter(std::string_view text, std::string origin);

// Up and running IPv4 interfaces of this process's network namespace, in the kernel's order.
std::vector<InterfaceAddress> local_interfaces();

// The interface of `candidates` to use (see the order above). Throws TransportError (Config)
// when the filter admits none, naming the filter and the interfaces there are.
InterfaceChoice choose_interface(const std::vector<InterfaceAddress>& candidates, const InterfaceFilter& filter,
                                 bool all_ranks_on_one_host);

}  // namespace ringbench
