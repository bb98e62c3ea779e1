#include "collective.h"

namespace ringbench {

namespace {
constexpr Collective kAll[] = {Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter,
                               Collective::Broadcast, Collective::Reduce,    Collective::AllToAll};
}

std::string_view to_string(Collective collective) {
  switch (collective) {
    case Collective::AllReduce: return "allreduce";
    case Collective::AllGather: return "allgather";
    case Collective::ReduceScatter: return "reducescatter";
    case Collective::Broadcast: return "broadcast";
    case Collective::Reduce: return "reduce";
    case Collective::AllToAll: return "alltoall";
  }
  return "?";
}

std::optional<Collective> parse_collective(std::string_view name) {
  for (Collective c : kAll)
    if (to_string(c) == name) return c;
  return std::nullopt;
}

double busbw_factor(Collective collective, int world_size) {
  if (world_size <= 1) return 0.0;
  double n = world_size;
  switch (collective) {
    case Collective::AllReduce: return 2.0 * (n - 1) / n;
    case Collective::AllGather:
    case Collective::ReduceScatter:
    case Collective::AllToAll: return (n - 1) / n;
    case Collective::Broadcast:
    case Collective::Reduce: return 1.0;
  }
  return 0.0;
}

double lower_bound_bytes(Collective collective, int world_size, uint64_t bytes) {
  if (world_size <= 1) return 0.0;
  // For every collective here the bound per rank is busbw_factor x bytes: that is exactly why
  // nccl-tests defines busbw that way (it makes the bound the same for every N).
  return busbw_factor(collective, world_size) * static_cast<double>(bytes);
}

}  // namespace ringbench
