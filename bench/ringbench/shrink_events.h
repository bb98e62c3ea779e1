#pragma once
// --on-failure shrink, the harness's side (the transport's is transport/shrink.h): what a shrink
// records and prints, and the two things the survivors must agree on before they go on: whose
// run id the rows carry, and where the sweep resumes.
//
//   /events  one row per shrink: when, which ranks failed (as launched), the new N, and the
//            collective and size that failed (schema 5)
// Rows measured after a shrink carry its epoch in /results' `epoch` column.

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "results/results_file.h"
#include "transport/communicator.h"

namespace ringbench {

struct ShrinkEvent {
  std::string run_id;
  std::string time_utc;          // when the survivors resumed
  double resumed_unix_s = 0;     // the same moment, for measuring time to recovery
  std::vector<int> failed;       // ranks as launched
  int old_size = 0, new_size = 0;
  uint32_t epoch = 0;            // the epoch the survivors go on in
  std::string collective;        // where the sweep resumes: the collective and size that failed
  uint64_t bytes = 0;
  int rounds = 0;                // agreement rounds until stable
  double agreement_s = 0;        // from the verdict to the rebuilt communicator
  std::string cause;             // the verdict that stopped the failed call
};

const results::Table& events_table();
results::Row to_row(const ShrinkEvent& event);
// "# shrink : rank 2 failed (...); 3 survivors go on as N=3 from allreduce 64 KiB ...".
void print_event(std::FILE* out, const ShrinkEvent& event);

// Rank 0's run id on every rank (collective), so whichever rank writes after a shrink writes
// under the run's own id.
std::string share_run_id(Communicator& comm, const std::string& mine);

// Where the sweep resumes: the earliest (collective index, size) any survivor was at, so no size
// is skipped (a size some survivors had finished is measured again, after the shrink).
struct SweepPosition {
  size_t collective = 0;
  uint64_t bytes = 0;
};
SweepPosition agree_resume_point(Communicator& comm, SweepPosition mine);

}  // namespace ringbench
