#pragma once
// The collectives, and what each one must move at the least. These bounds, the busbw factors and
// the buffer-size convention are the nccl-tests ones, so figures compare with theirs:
//   `bytes` is always the size of the whole buffer a rank holds (for all-gather and
//   reduce-scatter: the full, N-chunk buffer, as nccl-tests sizes them).
//
//   collective      bound bytes sent per rank   busbw factor (busbw = algbw x factor)
//   all-reduce      2(N-1)/N x bytes            2(N-1)/N
//   all-gather      (N-1)/N x bytes             (N-1)/N
//   reduce-scatter  (N-1)/N x bytes             (N-1)/N
//   broadcast       bytes (by the root)         1
//   reduce          bytes (into the root)       1
//   all-to-all      (N-1)/N x bytes             (N-1)/N

#include <cstdint>
#include <optional>
#include <string_view>

namespace ringbench {

enum class Collective { AllReduce, AllGather, ReduceScatter, Broadcast, Reduce, AllToAll };

std::string_view to_string(Collective collective);  // "allreduce", "allgather", ...
std::optional<Collective> parse_collective(std::string_view name);

// The fewest payload bytes a rank must send for one call, as a real number of bytes (fractional
// when N does not divide the buffer). Zero when N == 1.
double lower_bound_bytes(Collective collective, int world_size, uint64_t bytes);
// busbw / algbw; 0 when it is undefined (N == 1), which reports print as N/A.
double busbw_factor(Collective collective, int world_size);

}  // namespace ringbench
