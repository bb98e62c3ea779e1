#pragma once
#include "../algorithm.h"

namespace ringbench {
const Algorithm& pairwise_alltoall();
}
