#include "cluster_json.h"

#include <limits>
#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "error.h"
#include "input_limits.h"
#include "json_fields.h"
#include "presets.h"
#include "published_figures.h"

namespace ringbench::model {
namespace {

using nlohmann::json;
using json_fields::Fields;

// Each section below overrides only the fields it names; without a base preset, `required`
// lists the ones a cluster cannot do without.
void parse_scale_up(const json& section, bool required, Cluster& c) {
  Fields f(section, "scale_up");
  if (required) f.require("bw_GBps");
  std::string kind = to_string(c.scale_up.kind);
  f.string("kind", kind);
  if (kind == "nvlink") {
    c.scale_up.kind = ScaleUpKind::NVLink;
  } else if (kind == "pcie") {
    c.scale_up.kind = ScaleUpKind::PCIe;
  } else {
    throw InputError(fmt::format("scale_up.kind must be \"nvlink\" or \"pcie\", got {}", json_fields::quoted(kind)));
  }
  if (!section.contains("gpus_per_island")) c.scale_up.gpus_per_island = c.gpus_per_node;
  f.count("gpus_per_island", c.scale_up.gpus_per_island, limits::kMaxGpus);
  f.positive("bw_GBps", c.scale_up.bw_GBps, limits::kMaxGBps);
  f.number("latency_us", c.scale_up.latency_us, 0, limits::kMaxLatencyUs);
  f.boolean("in_switch_reduction", c.scale_up.in_switch_reduction);
  f.reject_unknown();
}

void parse_nics(const json& section, bool required, Nics& nics) {
  Fields f(section, "nics");
  if (required) {
    f.require("per_node");
    f.require("bw_Gbps");
  }
  f.count("per_node", nics.per_node, limits::kMaxGpusPerNode);
  f.positive("bw_Gbps", nics.bw_Gbps, limits::kMaxGbps);
  f.number("latency_us", nics.latency_us, 0, limits::kMaxLatencyUs);
  f.reject_unknown();
}

void parse_network(const json& section, Network& network) {
  Fields f(section, "network");
  f.boolean("rail_optimized", network.rail_optimized);
  f.count("nodes_per_leaf", network.nodes_per_leaf, limits::kMaxGpus);
  f.number("spine_oversubscription", network.spine_oversubscription, 1, limits::kMaxOversubscription);
  f.integer("nodes_per_pod", network.nodes_per_pod, 0, limits::kMaxGpus);  // 0: one pod
  f.number("pod_oversubscription", network.pod_oversubscription, 1, limits::kMaxOversubscription);
  f.number("switch_hop_latency_us", network.switch_hop_latency_us, 0, limits::kMaxLatencyUs);
  f.reject_unknown();
}

void parse_efficiency(const json& section, Efficiency& efficiency) {
  Fields f(section, "efficiency");
  // Achieved / line rate: a fraction, never above 1.
  f.positive("scale_up", efficiency.scale_up, 1);
  f.positive("in_switch", efficiency.in_switch, 1);
  f.positive("nic", efficiency.nic, 1);
  f.reject_unknown();
}

// [{"bytes": B, "GBps": R}, ...], the bytes strictly ascending (exchange_rate.h's rate_at reads them so).
void parse_rate_points(const json& list, const std::string& name, std::vector<RatePoint>& rates) {
  if (!list.is_array()) throw InputError(fmt::format("{} must be an array, got {}", name, list.type_name()));
  rates.clear();
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string where = fmt::format("{}[{}]", name, i);
    Fields f(list[i], where);
    double bytes = 0, GBps = 0;
    for (const char* key : {"bytes", "GBps"}) f.require(key);
    f.number("bytes", bytes, 1, limits::kMaxBytes);
    f.positive("GBps", GBps, limits::kMaxGBps);
    f.reject_unknown();
    const auto b = static_cast<uint64_t>(bytes);
    if (!rates.empty() && b <= rates.back().bytes)
      throw InputError(fmt::format("{}.bytes must be above the entry before it ({}), got {}", where, rates.back().bytes, b));
    rates.push_back({b, GBps});
  }
}

void parse_host_cpu(const json& section, HostCpu& cpu) {
  Fields f(section, "host_cpu");
  for (const char* key : {"cores", "reduce_GBps", "copy_GBps"}) f.require(key);
  f.count("cores", cpu.cores, limits::kMaxGpusPerNode);
  f.positive("reduce_GBps", cpu.reduce_GBps, limits::kMaxGBps);
  f.positive("copy_GBps", cpu.copy_GBps, limits::kMaxGBps);
  f.number("same_host_message_overhead_us", cpu.same_host_message_overhead_us, 0, limits::kMaxLatencyUs);
  f.number("across_hosts_message_overhead_us", cpu.across_hosts_message_overhead_us, 0, limits::kMaxLatencyUs);
  f.integer("piece_bytes", cpu.piece_bytes, 0, std::numeric_limits<int>::max());
  if (const json* rates = f.find("exchange_copy_rates"))
    parse_rate_points(*rates, "host_cpu.exchange_copy_rates", cpu.exchange_copy_rates);
  if (const json* rates = f.find("exchange_reduce_rates"))
    parse_rate_points(*rates, "host_cpu.exchange_reduce_rates", cpu.exchange_reduce_rates);
  f.reject_unknown();
}

// Each field is in range; the fabric (fabric.cpp, failures.cpp) also multiplies these, as ints,
// into switch port counts.
void check_port_counts(const Cluster& c) {
  for (const auto& [name, nodes] : {std::pair{"network.nodes_per_leaf", c.network.nodes_per_leaf},
                                    std::pair{"network.nodes_per_pod", c.network.nodes_per_pod}}) {
    const int64_t ports = static_cast<int64_t>(nodes) * c.nics.per_node;
    if (ports > limits::kMaxGpus) {
      throw InputError(fmt::format("{} x nics.per_node = {} x {} = {} NIC ports, more than the limit of {}", name, nodes,
                                   c.nics.per_node, ports, limits::kMaxGpus));
    }
  }
}

Cluster parse(const json& doc) {
  Fields top(doc, "");
  Cluster c;
  std::string base;
  top.string("base", base);
  if (!base.empty()) {
    c = preset(base);
  } else {
    for (const char* key : {"name", "gpus_per_node", "scale_up", "nics"}) top.require(key);
    c.efficiency = fitted_efficiency();
  }
  top.string("name", c.name);
  top.string("description", c.description);
  top.string("gpu", c.gpu);
  top.count("nodes", c.nodes, limits::kMaxGpus);
  top.count("gpus_per_node", c.gpus_per_node, limits::kMaxGpusPerNode);
  top.number("launch_overhead_us", c.launch_overhead_us, 0, limits::kMaxLatencyUs);
  if (const json* s = top.find("scale_up")) parse_scale_up(*s, base.empty(), c);
  if (const json* n = top.find("nics")) parse_nics(*n, base.empty(), c.nics);
  if (const json* n = top.find("network")) parse_network(*n, c.network);
  if (const json* e = top.find("efficiency")) parse_efficiency(*e, c.efficiency);
  if (const json* h = top.find("host_cpu")) parse_host_cpu(*h, c.host_cpu);
  top.reject_unknown();
  validate(c);
  check_port_counts(c);
  return c;
}

}  // namespace

Cluster cluster_from_json(const std::string& text, const std::string& source) {
  const std::string where = fmt::format("cluster file {}", source);
  const json doc = json_fields::parse_document(text, where);
  try {
    return parse(doc);
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: {}", where, e.what()));
  }
}

Cluster load_cluster_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("--cluster: cannot open cluster file {}", path.string()));
  std::stringstream text;
  text << in.rdbuf();
  return cluster_from_json(text.str(), path.string());
}

std::string cluster_to_json(const Cluster& c, int indent) {
  json doc = {
      {"name", c.name},
      {"description", c.description},
      {"gpu", c.gpu},
      {"nodes", c.nodes},
      {"gpus_per_node", c.gpus_per_node},
      {"launch_overhead_us", c.launch_overhead_us},
      {"scale_up",
       {{"kind", to_string(c.scale_up.kind)},
        {"gpus_per_island", c.scale_up.gpus_per_island},
        {"bw_GBps", c.scale_up.bw_GBps},
        {"latency_us", c.scale_up.latency_us},
        {"in_switch_reduction", c.scale_up.in_switch_reduction}}},
      {"nics", {{"per_node", c.nics.per_node}, {"bw_Gbps", c.nics.bw_Gbps}, {"latency_us", c.nics.latency_us}}},
      {"network",
       {{"rail_optimized", c.network.rail_optimized},
        {"nodes_per_leaf", c.network.nodes_per_leaf},
        {"spine_oversubscription", c.network.spine_oversubscription},
        {"nodes_per_pod", c.network.nodes_per_pod},
        {"pod_oversubscription", c.network.pod_oversubscription},
        {"switch_hop_latency_us", c.network.switch_hop_latency_us}}},
      {"efficiency",
       {{"scale_up", c.efficiency.scale_up}, {"in_switch", c.efficiency.in_switch}, {"nic", c.efficiency.nic}}},
  };
  // Only calibrated machines have a host CPU, so every GPU cluster's JSON stays as it was.
  if (c.host_cpu.cores > 0) {
    doc["host_cpu"] = {{"cores", c.host_cpu.cores},
                       {"reduce_GBps", c.host_cpu.reduce_GBps},
                       {"copy_GBps", c.host_cpu.copy_GBps},
                       {"same_host_message_overhead_us", c.host_cpu.same_host_message_overhead_us},
                       {"across_hosts_message_overhead_us", c.host_cpu.across_hosts_message_overhead_us},
                       {"piece_bytes", c.host_cpu.piece_bytes}};
    for (const auto& [key, points] : {std::pair{"exchange_copy_rates", &c.host_cpu.exchange_copy_rates},
                                      std::pair{"exchange_reduce_rates", &c.host_cpu.exchange_reduce_rates}}) {
      if (points->empty()) continue;
      json rates = json::array();
      for (const RatePoint& p : *points) rates.push_back({{"bytes", p.bytes}, {"GBps", p.GBps}});
      doc["host_cpu"][key] = rates;
    }
  }
  return doc.dump(indent);
}

}  // namespace ringbench::model
