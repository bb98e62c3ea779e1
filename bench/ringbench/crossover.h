#pragma once
// The end-of-run summary per collective: which algorithm won at each size, each one's time as a
// ratio to the winner, the sizes where the winner changes, and for `auto` its pick and regret
// (how much slower the pick was than the measured winner). Printed as '#' lines, so the table
// stays clean under `grep -v '^#'`.

#include <cstdio>
#include <string>
#include <vector>

#include "measurement.h"

namespace ringbench {

// How much slower auto's pick was than the fastest of ringbench's own rows: a percentage where
// their intervals separate, "noise" where they do not (or either has none). Never negative: a
// pick that beat every row has no regret.
std::string regret_text(const SizeResult& pick, const SizeResult& fastest);

void print_crossovers(std::FILE* out, Collective collective, int world, const std::vector<SizeResult>& results);

}  // namespace ringbench
