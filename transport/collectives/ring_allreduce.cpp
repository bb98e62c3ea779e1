// Ring all-reduce: a reduce-scatter followed by an all-gather around the ring r -> r+1.
//
//   steps          2(N-1)
//   bytes per rank 2(N-1) chunk sends = 2(N-1)/N x data when N divides the count (the bound)
//   wins           large messages: bandwidth-optimal for any N; latency grows as 2(N-1) hops
//
// The buffer is cut into N chunks (ChunkLayout). Reduce-scatter step s: rank r sends chunk
// r-s to r+1 and receives chunk r-s-1 from r-1 into a small staging ring, reducing each piece
// into its own copy as it arrives (RecvSpec::on_arrival, RecvSpec::staging), so the reduction of
// one piece overlaps the receive of the next and reads it from cache. After N-1 steps rank r
// holds the complete chunk r+1. All-gather step s: rank r sends chunk r+1-s and receives chunk
// r-s straight into place. The chunk a step sends is always the one the step before produced, so
// the schedule runs as one stream (Communicator::ring_stream): each piece goes on to the right
// as soon as it is reduced, and every link stays busy across steps. Each final chunk is computed
// once, by one rank, and copied to the others, so every rank ends with bit-identical results.

#include "ring_allreduce.h"

#include <cstring>
#include <vector>

#include "../communicator.h"
#include "chunk_layout.h"

namespace ringbench {
namespace {

// Pieces in the reduce-scatter's staging ring: enough that the kernel can fill one while the
// other is reduced, few enough to stay in a core's L2 beside the data the reduction streams.
// Measured at N=4 on 2 cores, 16-128 MiB, 3 interleaved repetitions: 2, 4 and 8 pieces all
// reach 87-96% of the link bound (a chunk-sized buffer: 75-95%); 4 pieces of 256 KiB kept.
constexpr size_t kStagingPieces = 4;

class RingAllReduce final : public Algorithm {
 public:
  Collective collective() const override { return Collective::AllReduce; }
  std::string_view name() const override { return "ring"; }
  std::string_view when_it_wins() const override { return "large messages: bandwidth-optimal, 2(N-1) steps"; }
  uint32_t steps(int world_size) const override { return 2 * static_cast<uint32_t>(world_size - 1); }

  uint64_t payload_bytes_sent(int rank, int world_size, size_t count, size_t element_bytes, int) const override {
    ChunkLayout chunks(count, world_size);
    uint64_t elements = 0;
    for (int s = 0; s < world_size - 1; ++s) elements += chunks.size(rank - s);      // reduce-scatter
    for (int s = 0; s < world_size - 1; ++s) elements += chunks.size(rank + 1 - s);  // all-gather
    return elements * element_bytes;
  }

  void run(Communicator& comm, const CollectiveCall& call) const override {
    const int n = comm.size(), r = comm.rank();
    if (n == 1) return;
    comm.begin_collective();
    const size_t esize = element_size(call.dtype);
    const ChunkLayout chunks(call.count, n);
    const int right = (r + 1) % n, left = (r - 1 + n) % n;
    const uint32_t total_steps = steps(n);
    std::byte* data = call.buffer.data();
    auto chunk_bytes = [&](int c) { return std::span<std::byte>(data + chunks.offset(c) * esize, chunks.size(c) * esize); };
    // Reduce-scatter receives land in a staging ring of a few pipeline pieces, not a chunk-sized
    // buffer: the kernel's copy and the reduction reading it then meet in cache (see RecvSpec).
    std::span<std::byte> staging = comm.scratch(kStagingPieces * comm.pipeline_piece(esize));

    // The whole schedule goes to the progress loop at once: frame k+1 is sent from the chunk that
    // frame k reduces into (reduce-scatter) or lands in (all-gather), piece by piece as it is ready.
    std::vector<SendSpec> sends;
    std::vector<RecvSpec> receives;
    sends.reserve(total_steps);
    receives.reserve(total_steps);
    for (int s = 0; s < n - 1; ++s) {
      std::span<std::byte> target = chunk_bytes(r - s - 1);
      sends.push_back({right, static_cast<uint32_t>(s), chunk_bytes(r - s)});
      receives.push_back({left, static_cast<uint32_t>(s), target,
                          [target, staging, esize, &call](size_t begin, size_t end) {
                            reduce_into(call.dtype, call.op, target.data() + begin,
                                        staging.data() + begin % staging.size(), (end - begin) / esize);
                          },
                          esize, staging});
    }
    for (int s = 0; s < n - 1; ++s) {
      uint32_t step = static_cast<uint32_t>(n - 1 + s);
      sends.push_back({right, step, chunk_bytes(r + 1 - s)});
      receives.push_back({left, step, chunk_bytes(r - s)});
    }
    comm.ring_stream(sends, receives, {"allreduce", "ring", 0, total_steps});
  }
};

}  // namespace

const Algorithm& ring_allreduce() {
  static const RingAllReduce algorithm;
  return algorithm;
}

}  // namespace ringbench
