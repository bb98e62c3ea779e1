#include "collective.h"

#include <fmt/format.h>

#include <array>
#include <string>
#include <vector>

#include "error.h"

namespace ringbench::model {
namespace {

constexpr std::array kOps = {Op::AllReduce, Op::AllGather, Op::ReduceScatter, Op::Broadcast,
                             Op::Reduce,    Op::AllToAll,  Op::SendRecv};
constexpr std::array kAlgorithms = {Algorithm::Ring,         Algorithm::Tree,     Algorithm::HalvingDoubling,
                                    Algorithm::Hierarchical, Algorithm::InSwitch, Algorithm::Direct};

}  // namespace

const char* to_string(Op op) {
  switch (op) {
    case Op::AllReduce: return "allreduce";
    case Op::AllGather: return "allgather";
    case Op::ReduceScatter: return "reducescatter";
    case Op::Broadcast: return "broadcast";
    case Op::Reduce: return "reduce";
    case Op::AllToAll: return "alltoall";
    case Op::SendRecv: return "sendrecv";
  }
  return "?";
}

const char* to_string(Algorithm algorithm) {
  switch (algorithm) {
    case Algorithm::Ring: return "ring";
    case Algorithm::Tree: return "tree";
    case Algorithm::HalvingDoubling: return "halving-doubling";
    case Algorithm::Hierarchical: return "hierarchical";
    case Algorithm::InSwitch: return "nvls";
    case Algorithm::Direct: return "direct";
  }
  return "?";
}

Op parse_op(std::string_view name, std::string_view flag) {
  std::vector<std::string> known;
  for (Op op : kOps) {
    if (name == to_string(op)) return op;
    known.emplace_back(to_string(op));
  }
  throw InputError(fmt::format("{}: unknown collective '{}' (known: {})", flag, name, fmt::join(known, ", ")));
}

Algorithm parse_algorithm(std::string_view name, std::string_view flag) {
  std::vector<std::string> known;
  for (Algorithm a : kAlgorithms) {
    if (name == to_string(a)) return a;
    known.emplace_back(to_string(a));
  }
  throw InputError(fmt::format("{}: unknown algorithm '{}' (known: {})", flag, name, fmt::join(known, ", ")));
}

double bus_factor(Op op, int n) {
  if (n < 2) return 0.0;
  switch (op) {
    case Op::AllReduce: return 2.0 * (n - 1) / n;
    case Op::AllGather:
    case Op::ReduceScatter:
    case Op::AllToAll: return static_cast<double>(n - 1) / n;
    case Op::Broadcast:
    case Op::Reduce:
    case Op::SendRecv: return 1.0;
  }
  return 1.0;
}

std::string bus_factor_formula(Op op, std::string_view n) {
  switch (op) {
    case Op::AllReduce: return fmt::format("2({0}-1)/{0}", n);
    case Op::AllGather:
    case Op::ReduceScatter:
    case Op::AllToAll: return fmt::format("({0}-1)/{0}", n);
    case Op::Broadcast:
    case Op::Reduce:
    case Op::SendRecv: return "1";
  }
  return "1";
}

std::span<const Algorithm> algorithms_for(Op op) {
  static constexpr std::array kAllReduce = {Algorithm::Ring, Algorithm::Tree, Algorithm::HalvingDoubling,
                                            Algorithm::Hierarchical, Algorithm::InSwitch};
  static constexpr std::array kGatherScatter = {Algorithm::Ring, Algorithm::HalvingDoubling,
                                                Algorithm::Hierarchical, Algorithm::InSwitch};
  static constexpr std::array kRooted = {Algorithm::Ring, Algorithm::Tree};
  static constexpr std::array kDirect = {Algorithm::Direct};
  switch (op) {
    case Op::AllReduce: return kAllReduce;
    case Op::AllGather:
    case Op::ReduceScatter: return kGatherScatter;
    case Op::Broadcast:
    case Op::Reduce: return kRooted;
    case Op::AllToAll:
    case Op::SendRecv: return kDirect;
  }
  return {};
}

}  // namespace ringbench::model
