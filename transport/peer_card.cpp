#include "peer_card.h"

#include <sstream>
#include <string_view>

#include <fmt/format.h>

#include "error.h"

namespace ringbench {
namespace {

// The card's keys of PeerCard::routes[0] and [1].
constexpr std::string_view kRouteKeys[] = {"route_one_host", "route_many_hosts"};

// "eth0,10.0.0.1,0,first non-virtual interface"; an empty choice when malformed.
InterfaceChoice decode_route(const std::string& value) {
  const auto c1 = value.find(','), c2 = value.find(',', c1 + 1), c3 = value.find(',', c2 + 1);
  if (c1 == std::string::npos || c2 == std::string::npos || c3 == std::string::npos) return {};
  InterfaceChoice route;
  route.name = value.substr(0, c1);
  route.address = value.substr(c1 + 1, c2 - c1 - 1);
  route.loopback = value.substr(c2 + 1, c3 - c2 - 1) == "1";
  route.reason = value.substr(c3 + 1);
  return route;
}

}  // namespace

std::string encode_card(const PeerCard& card) {
  std::string text = fmt::format("rank={}\nport={}\nsecret={}\nboot_id={}\nnetns={}\nhostname={}\n", card.rank,
                                 card.port, card.secret_proposal, card.host.boot_id, card.host.netns_inode,
                                 card.host.hostname);
  for (const auto& i : card.interfaces) text += fmt::format("if={},{},{}\n", i.name, i.address, i.loopback ? 1 : 0);
  // The reason goes last: it is free text and may hold commas.
  for (size_t k = 0; k < card.routes.size(); ++k) {
    const InterfaceChoice& r = card.routes[k];
    text += fmt::format("{}={},{},{},{}\n", kRouteKeys[k], r.name, r.address, r.loopback ? 1 : 0, r.reason);
  }
  return text;
}

PeerCard decode_card(const std::string& text, int expected_rank) {
  PeerCard card;
  card.rank = -1;
  std::istringstream lines(text);
  std::string line;
  try {
    while (std::getline(lines, line)) {
      auto eq = line.find('=');
      if (eq == std::string::npos) continue;
      std::string key = line.substr(0, eq), value = line.substr(eq + 1);
      if (key == "rank") card.rank = std::stoi(value);
      else if (key == "port") card.port = static_cast<uint16_t>(std::stoul(value));
      else if (key == "secret") card.secret_proposal = std::stoull(value);
      else if (key == "boot_id") card.host.boot_id = value;
      else if (key == "netns") card.host.netns_inode = std::stoull(value);
      else if (key == "hostname") card.host.hostname = value;
      else if (key == "if") {
        auto c1 = value.find(','), c2 = value.rfind(',');
        card.interfaces.push_back({value.substr(0, c1), value.substr(c1 + 1, c2 - c1 - 1), value.substr(c2 + 1) == "1"});
      } else if (key == kRouteKeys[0] || key == kRouteKeys[1]) {
        card.routes[key == kRouteKeys[0] ? 0 : 1] = decode_route(value);
      }
    }
  } catch (const std::exception&) {
    card.rank = -1;
  }
  if (card.rank != expected_rank || card.port == 0 || card.routes[0].address.empty() ||
      card.routes[1].address.empty())
    throw TransportError({TransportErrorKind::Handshake, -1, expected_rank,
                          fmt::format("bootstrap: the address published by rank {} is malformed", expected_rank)});
  return card;
}

}  // namespace ringbench
