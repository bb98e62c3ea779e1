#pragma once
#include "../algorithm.h"

namespace ringbench {
const Algorithm& hierarchical_allreduce();
}
