#include "interfaces.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "error.h"

namespace ringbench {
namespace {

enum class InterfaceClass { Loopback, Infiniband, Physical, Virtual };

InterfaceClass classify(const InterfaceAddress& interface) {
  if (interface.loopback) return InterfaceClass::Loopback;
  if (interface.name.starts_with(kInfinibandPrefix)) return InterfaceClass::Infiniband;
  for (std::string_view prefix : kVirtualPrefixes)
    if (interface.name.starts_with(prefix)) return InterfaceClass::Virtual;
  return InterfaceClass::Physical;
}

// One step of the automatic order and the reason it gives when it decides.
struct Preference {
  InterfaceClass kind;
  const char* reason;
};

constexpr std::array<Preference, 4> kOneHostOrder{{
    {InterfaceClass::Loopback, "all ranks on one host, so loopback"},
    {InterfaceClass::Infiniband, "IPoIB preferred"},
    {InterfaceClass::Physical, "first non-virtual interface"},
    {InterfaceClass::Virtual, "only virtual interfaces are up"},
}};
constexpr std::array<Preference, 4> kManyHostsOrder{{
    {InterfaceClass::Infiniband, "IPoIB preferred"},
    {InterfaceClass::Physical, "first non-virtual interface"},
    {InterfaceClass::Virtual, "only virtual interfaces are up"},
    {InterfaceClass::Loopback, "only loopback is up, which reaches this host only"},
}};

[[noreturn]] void bad_filter(std::string_view origin, std::string_view text, std::string_view problem) {
  const char* separator = origin.starts_with("--") ? " " : "=";
  throw TransportError({TransportErrorKind::Config, -1, -1,
                        fmt::format("{}{}{}: {} (expected NCCL_SOCKET_IFNAME's syntax: eth, =eth0, ^docker,lo or "
                                    "^=docker0)",
                                    origin, separator, text, problem)});
}

}  // namespace

bool InterfaceFilter::admits(const std::string& interface_name) const {
  if (empty()) return true;
  const bool listed = std::any_of(names.begin(), names.end(), [&](const std::string& name) {
    return exact ? interface_name == name : interface_name.starts_with(name);
  });
  return listed != exclude;
}

std::string InterfaceFilter::describe() const {
  return fmt::format("{}{}{}", origin, origin.starts_with("--") ? " " : "=", text);
}

InterfaceFilter parse_interface_filter(std::string_view text, std::string origin) {
  InterfaceFilter filter;
  filter.text = std::string(text);
  filter.origin = std::move(origin);
  if (text.empty()) return filter;
  std::string_view list = text;
  if (list.starts_with('^')) filter.exclude = true, list.remove_prefix(1);
  if (list.starts_with('=')) filter.exact = true, list.remove_prefix(1);
  for (size_t start = 0;;) {
    const size_t comma = std::min(list.find(',', start), list.size());
    const std::string_view name = list.substr(start, comma - start);
    if (name.empty()) bad_filter(filter.origin, text, "an empty name in the list");
    if (name.find_first_of("^=") != std::string_view::npos)
      bad_filter(filter.origin, text, "'^' and '=' go once, at the start, and apply to the whole list");
    if (name.find_first_of(" \t\n/") != std::string_view::npos)
      bad_filter(filter.origin, text, fmt::format("'{}' cannot be an interface name", name));
    if (name.size() >= IFNAMSIZ)
      bad_filter(filter.origin, text, fmt::format("'{}' is longer than an interface name can be ({} characters)",
                                                  name, IFNAMSIZ - 1));
    filter.names.emplace_back(name);
    if (comma == list.size()) break;
    start = comma + 1;
  }
  return filter;
}

std::vector<InterfaceAddress> local_interfaces() {
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return {};
  std::vector<InterfaceAddress> result;
  for (ifaddrs* it = list; it != nullptr; it = it->ifa_next) {
    if (it->ifa_addr == nullptr || it->ifa_addr->sa_family != AF_INET) continue;
    // Up and running: an interface without carrier (a bridge with no port, a veth whose other
    // end is down) cannot carry anything, as NCCL also reasons.
    if ((it->ifa_flags & IFF_UP) == 0 || (it->ifa_flags & IFF_RUNNING) == 0) continue;
    char text[INET_ADDRSTRLEN] = {};
    const auto* in = reinterpret_cast<const sockaddr_in*>(it->ifa_addr);
    ::inet_ntop(AF_INET, &in->sin_addr, text, sizeof text);
    result.push_back({it->ifa_name, text, (it->ifa_flags & IFF_LOOPBACK) != 0});
  }
  ::freeifaddrs(list);
  return result;
}

InterfaceChoice choose_interface(const std::vector<InterfaceAddress>& candidates, const InterfaceFilter& filter,
                                 bool all_ranks_on_one_host) {
  std::vector<InterfaceAddress> admitted;
  std::copy_if(candidates.begin(), candidates.end(), std::back_inserter(admitted),
               [&](const InterfaceAddress& c) { return filter.admits(c.name); });
  if (admitted.empty()) {
    std::string known;
    for (const auto& candidate : candidates) known += (known.empty() ? "" : ", ") + candidate.name;
    if (filter.empty())
      throw TransportError({TransportErrorKind::Config, -1, -1, "no up IPv4 interface on this host"});
    throw TransportError({TransportErrorKind::Config, -1, -1,
                          fmt::format("{}: no up IPv4 interface matches (this host has: {})", filter.describe(),
                                      known.empty() ? "none" : known)});
  }
  for (const Preference& step : all_ranks_on_one_host ? kOneHostOrder : kManyHostsOrder) {
    auto found = std::find_if(admitted.begin(), admitted.end(),
                              [&](const InterfaceAddress& c) { return classify(c) == step.kind; });
    if (found == admitted.end()) continue;
    InterfaceChoice choice{*found, step.reason};
    // A filter that leaves one interface decided alone; one that leaves several, with the order.
    if (!filter.empty())
      choice.reason = admitted.size() == 1 ? filter.describe() : filter.describe() + ": " + choice.reason;
    return choice;
  }
  throw TransportError({TransportErrorKind::Config, -1, -1, "no interface class matched"});  // unreachable
}

}  // namespace ringbench
