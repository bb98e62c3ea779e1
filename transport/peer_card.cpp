#include "peer_card.h"

#include <sstream>

#include <fmt/format.h>

#include "error.h"

namespace ringbench {

std::string encode_card(const PeerCard& card) {
  std::string text = fmt::format("rank={}\nport={}\nsecret={}\nboot_id={}\nnetns={}\nhostname={}\n", card.rank,
                                 card.port, card.secret_proposal, card.host.boot_id, card.host.netns_inode,
                                 card.host.hostname);
  for (const auto& i : card.interfaces) text += fmt::format("if={},{},{}\n", i.name, i.address, i.loopback ? 1 : 0);
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
      }
    }
  } catch (const std::exception&) {
    card.rank = -1;
  }
  if (card.rank != expected_rank || card.port == 0)
    throw TransportError({TransportErrorKind::Handshake, -1, expected_rank,
                          fmt::format("bootstrap: the address published by rank {} is malformed", expected_rank)});
  return card;
}

}  // namespace ringbench
