#pragma once
// INFO COLL diagnostics of the harness's choices (transport/debug_log.h): what each size runs and
// how it is cut, and why `auto` picked what it picked. Each returns at once, without formatting
// or allocating, unless RINGBENCH_DEBUG=INFO (or TRACE) with COLL on, so callers pass what they
// already hold and call it once per size, never per call.

#include <cstddef>
#include <cstdint>
#include <span>
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

// "auto at allreduce 1M (262144 x 4 B): the link model (alpha 31.2 us per step, beta 1.200 GB/s)
// shortlisted ring 912.0 us, rhd 1104.0 us (within 2x of the cheapest); trial medians ring 850.0 us
// over 24 calls, rhd 1020.0 us over 12 calls; picked ring". shortlisted: shortlist()'s answer;
// trial_calls_us: each shortlisted algorithm's trial call times as rank 0 holds them (empty on the
// other ranks, and when the shortlist had one entry and no trial ran); picked: the index into
// shortlisted that every rank agreed on.
void log_auto_pick(const Communicator& comm, uint64_t bytes, const LinkModel& model, std::span<const int> host_of_rank,
                   size_t element_bytes, const std::vector<const Algorithm*>& shortlisted,
                   const std::vector<std::vector<double>>& trial_calls_us, size_t picked);

}  // namespace ringbench
