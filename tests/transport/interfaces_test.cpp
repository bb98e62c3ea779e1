// The interface filter (NCCL_SOCKET_IFNAME's syntax) and the automatic choice, over synthetic
// interface lists; the card that carries the choice; and, on this machine's real interfaces,
// that a job listens only on the address it chose.

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <string>
#include <vector>

#include "thread_ranks.h"
#include "transport/error.h"
#include "transport/interfaces.h"
#include "transport/peer_card.h"

namespace ringbench {
namespace {

// A cluster node as ip -4 addr lists it: loopback first, management Ethernet before IPoIB.
const std::vector<InterfaceAddress> kClusterNode = {
    {"lo", "127.0.0.1", true},        {"docker0", "172.17.0.1", false}, {"eno1", "10.0.0.5", false},
    {"eth1", "10.1.0.5", false},      {"ib0", "10.2.0.5", false},       {"veth12ab", "169.254.3.1", false},
};

InterfaceFilter filter(const std::string& text) { return parse_interface_filter(text, "--iface"); }

std::string chosen(const std::vector<InterfaceAddress>& candidates, const std::string& spec, bool one_host) {
  return choose_interface(candidates, filter(spec), one_host).name;
}

std::string config_error(const std::string& spec) {
  try {
    filter(spec);
  } catch (const TransportError& e) {
    EXPECT_EQ(e.kind(), TransportErrorKind::Config);
    return e.what();
  }
  return "(no error)";
}

TEST(InterfaceFilter, ParsesNcclSyntax) {
  auto f = filter("eth,ib");
  EXPECT_EQ(f.names, (std::vector<std::string>{"eth", "ib"}));
  EXPECT_FALSE(f.exclude);
  EXPECT_FALSE(f.exact);
  f = filter("^=docker0,lo");
  EXPECT_TRUE(f.exclude);
  EXPECT_TRUE(f.exact);
  EXPECT_EQ(f.names, (std::vector<std::string>{"docker0", "lo"}));
  EXPECT_TRUE(filter("").empty());
  EXPECT_EQ(parse_interface_filter("=eth0", "RINGBENCH_SOCKET_IFNAME").describe(), "RINGBENCH_SOCKET_IFNAME==eth0");
  EXPECT_EQ(filter("^docker").describe(), "--iface ^docker");
}

TEST(InterfaceFilter, AdmitsAsNcclDocumentsIt) {
  EXPECT_TRUE(filter("eth").admits("eth0"));
  EXPECT_TRUE(filter("eth").admits("eth1"));
  EXPECT_FALSE(filter("eth").admits("eno1"));
  EXPECT_TRUE(filter("=eth0").admits("eth0"));
  EXPECT_FALSE(filter("=eth0").admits("eth01"));
  EXPECT_TRUE(filter("=eth0,eth1").admits("eth1"));
  EXPECT_FALSE(filter("^docker").admits("docker0"));
  EXPECT_TRUE(filter("^docker").admits("eth0"));
  EXPECT_FALSE(filter("^=docker0").admits("docker0"));
  EXPECT_TRUE(filter("^=docker0").admits("docker01"));
  EXPECT_TRUE(filter("").admits("anything"));
}

TEST(InterfaceFilter, BadSyntaxIsOneLineNamingTheInput) {
  for (const std::string spec : {",eth", "eth,", "eth,,ib", "^", "=", "^=", "eth,^ib", "eth,=ib", "=^eth", "e th",
                                 "ib/0", "averyveryverylongname"}) {
    const std::string message = config_error(spec);
    EXPECT_NE(message.find("--iface " + spec + ":"), std::string::npos) << spec << ": " << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

TEST(ChooseInterface, AutomaticOrderIsNccls) {
  // Many hosts: IPoIB first although eno1 and eth1 come before it.
  auto choice = choose_interface(kClusterNode, filter(""), false);
  EXPECT_EQ(choice.name, "ib0");
  EXPECT_EQ(choice.address, "10.2.0.5");
  EXPECT_EQ(choice.reason, "IPoIB preferred");
  // One host: loopback.
  choice = choose_interface(kClusterNode, filter(""), true);
  EXPECT_EQ(choice.name, "lo");
  EXPECT_EQ(choice.reason, "all ranks on one host, so loopback");
  // No IPoIB: the first non-virtual interface in the kernel's order, not docker0 before it.
  const std::vector<InterfaceAddress> ethernet = {kClusterNode[0], kClusterNode[1], kClusterNode[3], kClusterNode[2]};
  choice = choose_interface(ethernet, filter(""), false);
  EXPECT_EQ(choice.name, "eth1");
  EXPECT_EQ(choice.reason, "first non-virtual interface");
  // Only virtual interfaces besides loopback.
  EXPECT_EQ(chosen({kClusterNode[0], kClusterNode[5], kClusterNode[1]}, "", false), "veth12ab");
  // Loopback alone: the last resort across hosts, and the reason says what it cannot do.
  choice = choose_interface({kClusterNode[0]}, filter(""), false);
  EXPECT_EQ(choice.name, "lo");
  EXPECT_NE(choice.reason.find("reaches this host only"), std::string::npos) << choice.reason;
}

TEST(ChooseInterface, EveryVirtualPrefixIsDemoted) {
  for (std::string_view prefix : kVirtualPrefixes) {
    const std::vector<InterfaceAddress> candidates = {{std::string(prefix) + "0", "172.18.0.1", false},
                                                      {"zz9", "10.9.9.9", false}};
    EXPECT_EQ(chosen(candidates, "", false), "zz9") << prefix;
  }
}

TEST(ChooseInterface, FilterThenOrder) {
  struct Case {
    std::string spec;
    bool one_host;
    std::string name, reason;
  };
  const std::vector<Case> cases = {
      {"eth", false, "eth1", "--iface eth"},
      {"=eno1", false, "eno1", "--iface =eno1"},
      {"=eno1,ib0", false, "ib0", "--iface =eno1,ib0: IPoIB preferred"},
      {"^ib", false, "eno1", "--iface ^ib: first non-virtual interface"},
      {"^=ib0,eno1", false, "eth1", "--iface ^=ib0,eno1: first non-virtual interface"},
      {"docker", false, "docker0", "--iface docker"},
      {"lo", false, "lo", "--iface lo"},
      {"^docker", true, "lo", "--iface ^docker: all ranks on one host, so loopback"},
      {"^lo", true, "ib0", "--iface ^lo: IPoIB preferred"},
      {"e", true, "eno1", "--iface e: first non-virtual interface"},
  };
  for (const Case& c : cases) {
    auto choice = choose_interface(kClusterNode, filter(c.spec), c.one_host);
    EXPECT_EQ(choice.name, c.name) << c.spec;
    EXPECT_EQ(choice.reason, c.reason) << c.spec;
  }
}

TEST(ChooseInterface, NothingAdmittedNamesTheFilterAndTheInterfaces) {
  try {
    choose_interface(kClusterNode, filter("=eth0"), false);
    FAIL() << "=eth0 matched";
  } catch (const TransportError& e) {
    EXPECT_EQ(e.kind(), TransportErrorKind::Config);
    EXPECT_EQ(std::string(e.what()),
              "--iface =eth0: no up IPv4 interface matches (this host has: lo, docker0, eno1, eth1, ib0, veth12ab)");
  }
  EXPECT_THROW(choose_interface({}, filter(""), true), TransportError);
}

TEST(PeerCardRoutes, SurviveTheBootstrapText) {
  PeerCard card;
  card.rank = 3;
  card.port = 41235;
  card.interfaces = kClusterNode;
  card.routes[0] = {{"lo", "127.0.0.1", true}, "all ranks on one host, so loopback"};
  card.routes[1] = {{"eth1", "10.1.0.5", false}, "--iface =eno1,eth1: first non-virtual interface"};
  PeerCard back = decode_card(encode_card(card), 3);
  for (size_t k = 0; k < 2; ++k) {
    EXPECT_EQ(back.routes[k].name, card.routes[k].name);
    EXPECT_EQ(back.routes[k].address, card.routes[k].address);
    EXPECT_EQ(back.routes[k].loopback, card.routes[k].loopback);
    EXPECT_EQ(back.routes[k].reason, card.routes[k].reason);
  }
  // A card without its routes cannot be used to connect: refused, naming the rank.
  std::string text = encode_card(card);
  text.erase(text.find("route_many_hosts="));
  EXPECT_THROW(decode_card(text, 3), TransportError);
}

// Whether a TCP connect to address:port succeeds (refused or unreachable: false).
bool accepts(const std::string& address, uint16_t port) {
  Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in where{};
  where.sin_family = AF_INET;
  where.sin_port = htons(port);
  ::inet_pton(AF_INET, address.c_str(), &where.sin_addr);
  return ::connect(fd.get(), reinterpret_cast<sockaddr*>(&where), sizeof where) == 0;
}

// Ranks that are threads share one host: they choose loopback and must listen on 127.0.0.1
// only. Another address of this machine (eth0 in a container) must refuse the same port.
TEST(ChooseInterface, AJobListensOnlyOnTheChosenAddress) {
  std::string other;
  for (const auto& i : local_interfaces())
    if (!i.loopback) other = i.address;
  if (other.empty()) GTEST_SKIP() << "this machine has no non-loopback IPv4 interface to probe";
  std::vector<uint16_t> ports(2);
  std::vector<std::string> reasons(2);
  std::vector<int> on_other(2, -1), on_chosen(2, -1);
  testing::run_ranks(2, testing::quiet_options(), [&](Communicator& comm) {
    const int r = comm.rank();
    ports[r] = comm.peers()[r].port;
    reasons[r] = comm.interface().reason;
    EXPECT_EQ(comm.interface().address, "127.0.0.1");
    EXPECT_EQ(comm.peers()[1 - r].chosen.address, "127.0.0.1");
    on_other[r] = accepts(other, ports[r]);
    on_chosen[r] = accepts("127.0.0.1", ports[r]);  // a stranger, closed by the stranger door
    comm.barrier();
  });
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(reasons[r], "all ranks on one host, so loopback");
    EXPECT_EQ(on_chosen[r], 1) << "rank " << r << " port " << ports[r];
    EXPECT_EQ(on_other[r], 0) << "rank " << r << " also listens on " << other << ":" << ports[r];
  }
}

}  // namespace
}  // namespace ringbench
