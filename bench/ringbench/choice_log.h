#pragma once
// INFO COLL diagnostics of the harness's choices (transport/debug_log.h): what each size runs and
// how it is cut, and why `auto` picked what it picked. Each returns at once, without formatting
// or allocating, unless RINGBENCH_DEBUG=INFO (or TRACE) with COLL on, so callers pass what they
// already hold and call it once per size, never per call.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "algorithm_choice.h"
#include "transport/algorithm.h"
#include "transport/communicator.h"

namespace ringbench {

// "allreduce 1M (262144 x 4 B) runs ring: 2 step(s), this rank sends 1048576 B, receives in
// pipeline pieces of 256K (--pipeline)". Call once per algorithm and size, before measuring;
// root: --root, for the rooted collectives' bytes.
void log_size_plan(const Communicator& comm, const Algorithm& algorithm, uint64_t bytes, size_t element_bytes,
                   int root);

// "auto at allreduce 1M (262144 x 4 B): the model priced ring 912.0 us, rhd 1004.0 us, tree 2210.0 us;
// raced ring, rhd (priced within 15%): medians ring 850.0 us over 24 calls, rhd 1020.0 us over 12
// calls; picked ring". candidates: auto's; predicted_us: price_candidates()'s answer, aligned
// with them (empty without prices: `without_prices` then says why, "rank 0 prices" on the
// others); raced: contenders()'s answer as every rank agreed it; calls_us: each candidate's race
// call times as rank 0 holds them (empty elsewhere, and when nothing raced); picked: the index
// into candidates every rank agreed on.
void log_auto_pick(const Communicator& comm, uint64_t bytes, size_t element_bytes,
                   const std::vector<const Algorithm*>& candidates, std::span<const double> predicted_us,
                   std::string_view without_prices, const std::vector<size_t>& raced,
                   const std::vector<std::vector<double>>& calls_us, size_t picked);

}  // namespace ringbench
