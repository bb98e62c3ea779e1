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
//
// The buffer convention (nccl-tests', in place). CollectiveCall.buffer holds `count` elements on
// every rank; "chunk i" is chunk i of ChunkLayout(count, N) (collectives/chunk_layout.h: the
// first count % N chunks have one element more).
//   all-reduce      every rank's buffer is an input; on return every rank holds the reduction,
//                   bit-identical on all ranks.
//   all-gather      rank r's contribution is chunk r of its buffer (the rest is ignored on
//                   entry); on return every rank holds every rank's chunk in place.
//   reduce-scatter  every rank's whole buffer is an input; on return chunk r of rank r's buffer
//                   holds the reduction of everyone's chunk r; its other chunks are unspecified.
//   broadcast       on return every rank's buffer equals the root's.
//   reduce          on return the root's buffer holds the reduction; other ranks' buffers are
//                   unspecified (algorithms use them as working space).
//   all-to-all      the buffer is N blocks of floor(count/N) elements (equal blocks, as MPI's
//                   sendcount; unequal chunks could not swap in place); block j goes to rank j,
//                   and on return block j holds what rank j sent me (block r of rank j's
//                   buffer). The count % N trailing elements are not exchanged and stay as they
//                   were. Bytes per rank: (N-1) x floor(count/N) x element size.

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
// Broadcast and reduce have a root (CollectiveCall.root): the source, or the destination.
inline bool has_root(Collective collective) {
  return collective == Collective::Broadcast || collective == Collective::Reduce;
}
// All-reduce, reduce-scatter and reduce combine the ranks' data with ReduceOp; the others only move it.
inline bool combines_data(Collective collective) {
  return collective == Collective::AllReduce || collective == Collective::ReduceScatter || collective == Collective::Reduce;
}
// busbw / algbw; 0 when it is undefined (N == 1), which reports print as N/A.
double busbw_factor(Collective collective, int world_size);

}  // namespace ringbench
