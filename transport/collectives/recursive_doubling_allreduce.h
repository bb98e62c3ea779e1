#pragma once
#include "../algorithm.h"

namespace ringbench {
const Algorithm& recursive_doubling_allreduce();
}
