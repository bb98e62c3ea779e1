#include "interfaces.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#include <algorithm>

#include "error.h"

namespace ringbench {
namespace {

// Virtual bridges of container runtimes rarely connect hosts; prefer anything else first.
bool looks_like_local_bridge(const std::string& name) {
  for (const char* prefix : {"docker", "virbr", "br-", "veth"})
    if (name.rfind(prefix, 0) == 0) return true;
  return false;
}

}  // namespace

std::vector<InterfaceAddress> local_interfaces() {
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return {};
  std::vector<InterfaceAddress> result;
  for (ifaddrs* it = list; it != nullptr; it = it->ifa_next) {
    if (it->ifa_addr == nullptr || it->ifa_addr->sa_family != AF_INET) continue;
    if ((it->ifa_flags & IFF_UP) == 0) continue;
    char text[INET_ADDRSTRLEN] = {};
    const auto* in = reinterpret_cast<const sockaddr_in*>(it->ifa_addr);
    ::inet_ntop(AF_INET, &in->sin_addr, text, sizeof text);
    result.push_back({it->ifa_name, text, (it->ifa_flags & IFF_LOOPBACK) != 0});
  }
  ::freeifaddrs(list);
  std::stable_sort(result.begin(), result.end(), [](const auto& a, const auto& b) {
    auto rank = [](const InterfaceAddress& i) { return i.loopback ? 2 : looks_like_local_bridge(i.name) ? 1 : 0; };
    if (rank(a) != rank(b)) return rank(a) < rank(b);
    return a.name < b.name;
  });
  return result;
}

InterfaceAddress choose_interface(const std::vector<InterfaceAddress>& candidates,
                                  const std::string& prefix, bool all_ranks_on_one_host) {
  if (!prefix.empty()) {
    for (const auto& candidate : candidates)
      if (candidate.name.rfind(prefix, 0) == 0) return candidate;
    std::string known;
    for (const auto& candidate : candidates) known += (known.empty() ? "" : ", ") + candidate.name;
    throw TransportError({TransportErrorKind::Config, -1, -1,
                          "--iface " + prefix + ": no up IPv4 interface starts with '" + prefix +
                              "' (this host has: " + known + ")"});
  }
  auto loopback = std::find_if(candidates.begin(), candidates.end(), [](const auto& c) { return c.loopback; });
  auto external = std::find_if(candidates.begin(), candidates.end(), [](const auto& c) { return !c.loopback; });
  if (all_ranks_on_one_host && loopback != candidates.end()) return *loopback;
  if (external != candidates.end()) return *external;
  if (loopback != candidates.end()) return *loopback;
  throw TransportError({TransportErrorKind::Config, -1, -1, "no up IPv4 interface on this host"});
}

}  // namespace ringbench
