#include "mpi_transport.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

extern char** environ;

namespace ringbench {

namespace {

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

// An MCA component list: "a,b" includes only a and b (in that order of preference); "^a,b"
// excludes a and b; empty allows everything.
struct ComponentList {
  std::vector<std::string> names;
  bool exclude = true;

  explicit ComponentList(std::string text) {
    text = trim(text);
    exclude = text.empty() || text.front() == '^';
    if (!text.empty() && text.front() == '^') text.erase(0, 1);
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, ',');)
      if (!trim(item).empty()) names.push_back(trim(item));
  }
  bool listed(const std::string& name) const { return std::find(names.begin(), names.end(), name) != names.end(); }
  bool allows(const std::string& name) const { return exclude ? !listed(name) : listed(name); }
  bool includes_explicitly() const { return !exclude && !names.empty(); }
};

std::string value_of(const McaParameters& parameters, const std::string& name) {
  const auto it = parameters.find(name);
  return it == parameters.end() ? "" : it->second;
}

std::string choose_pml(const ComponentList& pml, bool rdma_hardware) {
  if (pml.includes_explicitly()) return pml.names.front();
  if (rdma_hardware && pml.allows("ucx")) return "ucx";
  if (rdma_hardware && pml.allows("cm")) return "cm";
  return "ob1";
}

std::string describe(const McaParameters& parameters) {
  const std::string pml = value_of(parameters, "pml"), btl = value_of(parameters, "btl");
  return "pml=" + (pml.empty() ? std::string("(default)") : pml) +
         " btl=" + (btl.empty() ? std::string("(default)") : btl);
}

}  // namespace

MpiTransport infer_mpi_transport(const McaParameters& parameters, const JobShape& shape) {
  const ComponentList pml(value_of(parameters, "pml")), btl(value_of(parameters, "btl"));
  const std::string chosen_pml = choose_pml(pml, shape.rdma_hardware);
  if (chosen_pml != "ob1") return {chosen_pml, false, describe(parameters)};

  std::vector<std::string> btls;
  if (shape.several_ranks_on_a_host) {
    if (btl.allows("vader")) btls.push_back("vader");
    else if (btl.allows("sm")) btls.push_back("sm");
    else btls.push_back("tcp");
  }
  if (shape.several_hosts) {
    const std::string across = shape.rdma_hardware && btl.allows("openib") ? "openib" : "tcp";
    if (std::find(btls.begin(), btls.end(), across) == btls.end()) btls.push_back(across);
  }
  if (btls.empty()) btls.push_back("self");
  std::string name = "ob1/" + btls.front();
  for (size_t i = 1; i < btls.size(); ++i) name += "+" + btls[i];
  const bool tcp_only = btls.size() == 1 && btls.front() == "tcp";
  return {name, tcp_only, describe(parameters)};
}

McaParameters read_mca_parameter_file(const std::string& path) {
  McaParameters parameters;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    line = trim(line);
    if (line.empty() || line.front() == '#') continue;
    const auto equals = line.find('=');
    if (equals == std::string::npos) continue;
    parameters[trim(line.substr(0, equals))] = trim(line.substr(equals + 1));
  }
  return parameters;
}

McaParameters mca_parameters_in_force() {
  McaParameters parameters;
  const char* prefix = std::getenv("OPAL_PREFIX");
  const std::vector<std::string> system_files = {
      prefix ? std::string(prefix) + "/etc/openmpi-mca-params.conf" : "/etc/openmpi/openmpi-mca-params.conf",
      "/usr/etc/openmpi-mca-params.conf", "/usr/local/etc/openmpi-mca-params.conf"};
  for (const auto& file : system_files) {
    if (!std::filesystem::exists(file)) continue;
    parameters = read_mca_parameter_file(file);
    break;
  }
  if (const char* home = std::getenv("HOME")) {
    for (auto& [name, value] : read_mca_parameter_file(std::string(home) + "/.openmpi/mca-params.conf"))
      parameters[name] = value;
  }
  const std::string env_prefix = "OMPI_MCA_";
  for (char** entry = environ; *entry; ++entry) {
    const std::string text(*entry);
    const auto equals = text.find('=');
    if (text.rfind(env_prefix, 0) != 0 || equals == std::string::npos) continue;
    parameters[text.substr(env_prefix.size(), equals - env_prefix.size())] = text.substr(equals + 1);
  }
  return parameters;
}

bool rdma_hardware_present() {
  std::error_code error;
  const std::filesystem::path devices = "/sys/class/infiniband";
  return std::filesystem::is_directory(devices, error) &&
         std::filesystem::directory_iterator(devices, error) != std::filesystem::directory_iterator();
}

JobShape job_shape(std::span<const int> host_of_rank) {
  JobShape shape;
  std::vector<int> hosts(host_of_rank.begin(), host_of_rank.end());
  std::sort(hosts.begin(), hosts.end());
  shape.several_ranks_on_a_host = std::adjacent_find(hosts.begin(), hosts.end()) != hosts.end();
  shape.several_hosts = !hosts.empty() && hosts.front() != hosts.back();
  shape.rdma_hardware = rdma_hardware_present();
  return shape;
}

MpiTransport mpi_transport_of_job(std::span<const int> host_of_rank) {
  return infer_mpi_transport(mca_parameters_in_force(), job_shape(host_of_rank));
}

}  // namespace ringbench
