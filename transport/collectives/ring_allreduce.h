#pragma once
#include <cstddef>

#include "../algorithm.h"

namespace ringbench {

const Algorithm& ring_allreduce();

// Pipeline pieces in the reduce-scatter's staging ring: enough that the kernel can fill one while
// the other is reduced, few enough to stay in a core's L2 beside the data the reduction streams.
// Measured at N=4 on 2 cores, 16-128 MiB, 3 interleaved repetitions: 2, 4 and 8 pieces all
// reach 87-96% of the link bound (a chunk-sized buffer: 75-95%); 4 pieces of 256 KiB kept. The
// reducing link test (bench/ringbench/link_test.h) stages its receives the same way.
inline constexpr size_t kRingStagingPieces = 4;

}  // namespace ringbench
